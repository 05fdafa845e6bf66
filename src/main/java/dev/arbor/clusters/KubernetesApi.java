package dev.arbor.clusters;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.outbound.OutboundPolicy;
import dev.arbor.platform.outbound.OutboundRefusedException;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;

/**
 * A Kubernetes cluster's API server, through fabric8's client: whether a kubeconfig reaches it with the rights Arbor
 * needs (listing nodes), and the cluster's health from its nodes and the API server's readiness ({@code /readyz}).
 * The server's address must pass the outbound policy; the name is checked, then fabric8 connects by name, to that
 * server only: through no proxy, following no redirect.
 */
final class KubernetesApi {
    /** Node conditions that say a node is short of something while it may still be Ready. */
    private static final Set<String> PRESSURES =
            Set.of("MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable");

    static final String GPU_RESOURCE = "nvidia.com/gpu";
    /** Labels NVIDIA's GPU feature discovery puts on a node: the GPU's model, and its memory in MiB. */
    static final String GPU_PRODUCT_LABEL = "nvidia.com/gpu.product";

    static final String GPU_MEMORY_LABEL = "nvidia.com/gpu.memory";

    private final OutboundPolicy policy;

    KubernetesApi(OutboundPolicy policy) {
        this.policy = requireNonNull(policy, "policy");
    }

    /**
     * Refuses a kubeconfig whose API server this server may not call, cannot reach, or that does not let it list
     * nodes: {@code invalid_field}, {@code cluster_unreachable}, {@code cluster_unauthorized} or
     * {@code cluster_forbidden}, each at {@code kubeconfig}.
     */
    void verify(Kubeconfig kubeconfig, Duration timeout) {
        try {
            policy.check(kubeconfig.server());
        } catch (OutboundRefusedException e) {
            throw ApiException.of(
                    ErrorCode.INVALID_FIELD,
                    Kubeconfig.FIELD,
                    "`kubeconfig`'s server " + kubeconfig.server() + " may not be called: " + e.getMessage() + ".");
        }
        try (KubernetesClient client = client(kubeconfig, timeout)) {
            client.nodes().list(new ListOptionsBuilder().withLimit(1L).build());
        } catch (RuntimeException e) {
            Failure failure = Failure.of(e, kubeconfig);
            throw ApiException.of(failure.code(), Kubeconfig.FIELD, sentence(failure.message()));
        }
    }

    /**
     * A client of the API server for a deployment's objects, once its address passes the outbound policy
     * ({@code cluster_unreachable} at {@code cluster_id} otherwise); the caller closes it.
     */
    KubernetesClient connect(Kubeconfig kubeconfig, Duration timeout) {
        try {
            policy.check(kubeconfig.server());
        } catch (OutboundRefusedException e) {
            throw ApiException.of(
                    ErrorCode.CLUSTER_UNREACHABLE,
                    "cluster_id",
                    "The API server " + kubeconfig.server() + " may not be called: " + e.getMessage() + ".");
        }
        return client(kubeconfig, timeout);
    }

    ClusterHealth health(Kubeconfig kubeconfig, Duration timeout) {
        try {
            policy.check(kubeconfig.server());
        } catch (OutboundRefusedException e) {
            return ClusterHealth.unreachable(
                    "the API server " + kubeconfig.server() + " may not be called: " + e.getMessage());
        }
        try (KubernetesClient client = client(kubeconfig, timeout)) {
            var reasons = new ArrayList<String>();
            ClusterHealth.Status status = ClusterHealth.Status.HEALTHY;
            try {
                client.raw("/readyz"); // an API server without /readyz (404) is taken as ready
            } catch (RuntimeException e) {
                Failure failure = Failure.of(e, kubeconfig);
                if (failure.code() == ErrorCode.CLUSTER_UNREACHABLE && failure.status() == 0) {
                    return ClusterHealth.unreachable(failure.message());
                }
                status = ClusterHealth.Status.DEGRADED;
                reasons.add("the API server is not ready: " + failure.message());
            }
            List<Node> nodes;
            try {
                nodes = client.nodes().list().getItems();
            } catch (RuntimeException e) {
                return ClusterHealth.unreachable("the nodes cannot be listed: "
                        + Failure.of(e, kubeconfig).message());
            }
            return fromNodes(nodes, status, reasons);
        }
    }

    /**
     * Degraded by a node that is not ready or reports a pressure; unhealthy when no node is ready. The resources are
     * those the ready, schedulable nodes allocate to pods (not less what runs there already).
     */
    static ClusterHealth fromNodes(List<Node> nodes, ClusterHealth.Status apiStatus, List<String> apiReasons) {
        var reasons = new ArrayList<>(apiReasons);
        ClusterHealth.Status status = apiStatus;
        BigDecimal cpu = BigDecimal.ZERO;
        long memory = 0;
        var gpus = new ArrayList<ClusterHealth.Gpu>();
        var offers = new ArrayList<ClusterHealth.Resources>();
        int ready = 0;
        for (Node node : nodes) {
            String name = Optional.ofNullable(node.getMetadata())
                    .map(m -> m.getName())
                    .orElse("(unnamed)");
            List<NodeCondition> conditions = node.getStatus() == null
                    ? List.of()
                    : Optional.ofNullable(node.getStatus().getConditions()).orElse(List.of());
            Optional<NodeCondition> readiness =
                    conditions.stream().filter(c -> "Ready".equals(c.getType())).findFirst();
            boolean isReady = readiness.map(c -> "True".equals(c.getStatus())).orElse(false);
            if (!isReady) {
                reasons.add("node " + name + " is not ready"
                        + readiness.map(KubernetesApi::why).orElse(" (it reports no Ready condition)"));
            }
            for (NodeCondition condition : conditions) {
                if (PRESSURES.contains(condition.getType()) && "True".equals(condition.getStatus())) {
                    reasons.add("node " + name + " reports " + condition.getType() + why(condition));
                }
            }
            boolean schedulable = node.getSpec() == null
                    || !Boolean.TRUE.equals(node.getSpec().getUnschedulable());
            if (!isReady || !schedulable) {
                continue;
            }
            ready++;
            Map<String, Quantity> allocatable =
                    Optional.ofNullable(node.getStatus().getAllocatable()).orElse(Map.of());
            try {
                BigDecimal nodeCpu = amount(allocatable.get("cpu"));
                long nodeMemory = amount(allocatable.get("memory")).longValue();
                int count = amount(allocatable.get(GPU_RESOURCE)).intValue();
                Map<String, String> labels = Optional.ofNullable(node.getMetadata())
                        .map(m -> m.getLabels())
                        .orElse(Map.of());
                String product = labels.getOrDefault(GPU_PRODUCT_LABEL, GPU_RESOURCE);
                long gpuMemory = mebibytes(labels.get(GPU_MEMORY_LABEL));
                var nodeGpus = new ArrayList<ClusterHealth.Gpu>();
                for (int i = 0; i < count; i++) {
                    nodeGpus.add(new ClusterHealth.Gpu(product, gpuMemory));
                }
                cpu = cpu.add(nodeCpu);
                memory += nodeMemory;
                gpus.addAll(nodeGpus);
                offers.add(new ClusterHealth.Resources(nodeCpu.doubleValue(), nodeMemory, nodeGpus));
            } catch (ArithmeticException | NumberFormatException e) {
                reasons.add("node " + name + " allocates resources that cannot be read: " + e.getMessage());
            }
        }
        if (nodes.isEmpty()) {
            reasons.add("the cluster has no nodes");
        }
        if (ready == 0) {
            status = ClusterHealth.Status.UNHEALTHY;
            if (!nodes.isEmpty()) {
                reasons.add("no node is ready and schedulable");
            }
        } else if (!reasons.isEmpty()) {
            status = status.worse(ClusterHealth.Status.DEGRADED);
        }
        return new ClusterHealth(
                status,
                nodes.size(),
                new ClusterHealth.Resources(
                        cpu.setScale(3, RoundingMode.HALF_UP).doubleValue(), memory, gpus),
                offers,
                reasons);
    }

    /** A reason (as health gives it) as the sentence of a refusal. */
    static String sentence(String reason) {
        return Character.toUpperCase(reason.charAt(0)) + reason.substring(1) + ".";
    }

    private static KubernetesClient client(Kubeconfig kubeconfig, Duration timeout) {
        return new KubernetesClientBuilder()
                .withConfig(kubeconfig.clientConfig(timeout))
                .withHttpClientFactory(new DirectOnly())
                .build();
    }

    /**
     * The JDK client fabric8 builds, but connecting only to the API server the outbound policy checked: fabric8
     * follows every redirect (a redirect to a refused address would be called, with the cluster's token) and takes
     * a proxy from the kubeconfig or this machine's settings. Its own settings come first, these last.
     */
    private static final class DirectOnly extends JdkHttpClientFactory {
        @Override
        protected void additionalConfig(HttpClient.Builder builder) {
            builder.followRedirects(HttpClient.Redirect.NEVER);
            builder.proxy(HttpClient.Builder.NO_PROXY);
        }
    }

    private static BigDecimal amount(@Nullable Quantity quantity) {
        return quantity == null ? BigDecimal.ZERO : quantity.getNumericalAmount();
    }

    private static long mebibytes(@Nullable String label) {
        if (label == null) {
            return 0;
        }
        try {
            return Long.parseLong(label.strip()) << 20;
        } catch (NumberFormatException e) {
            return 0; // a label someone else wrote: the GPU is counted, its memory unknown
        }
    }

    private static String why(NodeCondition condition) {
        String reason = Optional.ofNullable(condition.getReason()).orElse("");
        String message = Optional.ofNullable(condition.getMessage()).orElse("");
        String said = (reason + (reason.isEmpty() || message.isEmpty() ? "" : ": ") + message).strip();
        return said.isEmpty() ? "" : " (" + said + ")";
    }

    /** Why a call to the API server failed, as one of the cluster codes and a sentence naming the server. */
    record Failure(ErrorCode code, int status, String message) {
        static Failure of(RuntimeException e, Kubeconfig kubeconfig) {
            return of(e, kubeconfig, "list nodes", "grant it get and list on nodes");
        }

        /**
         * @param action what the call did, as a 403 says the user may not ("list nodes")
         * @param grant what to grant for it ("grant it get and list on nodes")
         */
        static Failure of(RuntimeException e, Kubeconfig kubeconfig, String action, String grant) {
            int status = 0;
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof KubernetesClientException k && k.getCode() > 0) {
                    status = k.getCode();
                    break;
                }
            }
            String server = "the API server " + kubeconfig.server();
            return switch (status) {
                case 0 -> new Failure(ErrorCode.CLUSTER_UNREACHABLE, 0, server + " cannot be reached: " + cause(e));
                case 401 ->
                    new Failure(
                            ErrorCode.CLUSTER_UNAUTHORIZED,
                            401,
                            server + " does not accept the kubeconfig's credentials (401)");
                case 403 ->
                    new Failure(
                            ErrorCode.CLUSTER_FORBIDDEN,
                            403,
                            server + " does not let the kubeconfig's user " + action + " (403): " + grant);
                case 300, 301, 302, 303, 307, 308 ->
                    new Failure(
                            ErrorCode.CLUSTER_UNREACHABLE,
                            status,
                            server + " answered " + status
                                    + ", a redirect: Arbor calls only the API server the kubeconfig names and follows"
                                    + " no redirect");
                default ->
                    new Failure(
                            ErrorCode.CLUSTER_UNREACHABLE, status, server + " answered " + status + ": " + cause(e));
            };
        }

        /** What went wrong on the way, in words: the JDK's client often gives only exception types. */
        private static String cause(Throwable e) {
            for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
                String said = switch (t) {
                    case ConnectException _ -> "the connection was refused";
                    case HttpTimeoutException _, SocketTimeoutException _ -> "it did not answer in time";
                    case UnknownHostException _ -> "its host name does not resolve";
                    case SSLException tls -> "TLS failed: " + firstLine(tls.getMessage());
                    default -> "";
                };
                if (!said.isEmpty()) {
                    return said;
                }
            }
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            return firstLine(root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage());
        }

        private static String firstLine(@Nullable String message) {
            String line = message == null || message.isBlank()
                    ? "no reason given"
                    : message.strip().lines().findFirst().orElseThrow();
            return line.length() > 300 ? line.substring(0, 300) + "…" : line;
        }
    }
}
