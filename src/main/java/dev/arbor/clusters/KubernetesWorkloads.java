package dev.arbor.clusters;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * {@link Workloads} through fabric8's client (the cluster {@code local} is refused with an IllegalArgumentException), with the kubeconfig the cluster was added with, in its namespace. Objects
 * are created when absent and replaced (PUT) when present, so a second apply brings them to the new spec; server-side
 * apply is not used because fabric8's API server mock, which the tests run against, cannot create with it.
 */
public final class KubernetesWorkloads implements Workloads {
    /** The label the pods are selected by: the Deployment's selector and the Service's. */
    static final String WORKLOAD_LABEL = "arbor.dev/workload";

    private static final String MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
    /**
     * A DNS-1035 label: a Service's name must be one, which is a DNS-1123 label that starts with a letter, so that
     * the three objects share their name.
     */
    private static final Pattern NAME = Pattern.compile("[a-z]([-a-z0-9]{0,61}[a-z0-9])?");

    private static final Pattern LABEL_NAME = Pattern.compile("([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)");
    private static final Pattern LABEL_PREFIX = Pattern.compile("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?");
    private static final int SERVICE_PORT = 80;
    private static final String CONTAINER = "server";
    private static final String PORT_NAME = "http";
    private static final String HEALTH_PATH = "/health";

    /** Waiting reasons of a container that will not start by waiting longer. */
    private static final Set<String> STUCK = Set.of(
            "ImagePullBackOff",
            "ErrImagePull",
            "InvalidImageName",
            "CrashLoopBackOff",
            "CreateContainerConfigError",
            "CreateContainerError");

    private final Clusters clusters;
    private final ClusterSettings settings;

    /** @param settings the serving images */
    public KubernetesWorkloads(Clusters clusters, ClusterSettings settings) {
        this.clusters = requireNonNull(clusters, "clusters");
        this.settings = requireNonNull(settings, "settings");
    }

    /**
     * @throws ApiException {@code model_format_unsupported} for a model the chosen server cannot load (see
     *     {@link Serving})
     * @throws IllegalArgumentException for a name that is not a DNS-1035 label, labels Kubernetes would refuse,
     *     negative amounts or autoscaling bounds out of order
     */
    @Override
    public void check(Workload workload) {
        serving(workload);
    }

    @Override
    public WorkloadStatus apply(String clusterId, Workload workload) {
        requireNonNull(clusterId, "clusterId");
        Serving serving = serving(workload);
        Kubeconfig kubeconfig = clusters.kubeconfig(clusterId);
        try (KubernetesClient client = clusters.connect(kubeconfig, Clusters.CHECK_TIMEOUT)) {
            var call = new Call(client, kubeconfig);
            Map<String, String> labels = labels(workload.name(), workload.labels());
            Deployment deployment = call.put(deployment(workload, serving, labels, kubeconfig.namespace()));
            call.put(service(workload.name(), serving, labels, kubeconfig.namespace()));
            String name = workload.name();
            workload.autoscaling()
                    .ifPresentOrElse(
                            scaling -> call.put(autoscaler(name, scaling, serving, labels, kubeconfig.namespace())),
                            () -> call.deleteAutoscaler(name));
            return status(deployment, call.pods(name), kubeconfig.namespace());
        }
    }

    @Override
    public Optional<WorkloadStatus> status(String clusterId, String name) {
        requireNonNull(clusterId, "clusterId");
        requireName(name);
        Kubeconfig kubeconfig = clusters.kubeconfig(clusterId);
        try (KubernetesClient client = clusters.connect(kubeconfig, Clusters.CHECK_TIMEOUT)) {
            var call = new Call(client, kubeconfig);
            Optional<Deployment> deployment = call.deployment(name);
            return deployment.map(d -> status(d, call.pods(name), kubeconfig.namespace()));
        }
    }

    /**
     * With an autoscaler, replicas from 1 up pin its bounds to them (min = max = replicas), so that the autoscaler
     * keeps what was asked instead of undoing it; applying the workload again restores its bounds. Zero replicas leave
     * the bounds: an autoscaler does not act on a Deployment scaled to zero.
     *
     * @throws ApiException {@code workload_gone} when the Deployment is not on the cluster
     */
    @Override
    public void scale(String clusterId, String name, int replicas) {
        requireNonNull(clusterId, "clusterId");
        requireName(name);
        if (replicas < 0) {
            throw new IllegalArgumentException("replicas must be 0 or more, not " + replicas);
        }
        Kubeconfig kubeconfig = clusters.kubeconfig(clusterId);
        String namespace = kubeconfig.namespace();
        try (KubernetesClient client = clusters.connect(kubeconfig, Clusters.CHECK_TIMEOUT)) {
            var call = new Call(client, kubeconfig);
            if (call.deployment(name).isEmpty()) {
                throw ApiException.of(
                        ErrorCode.WORKLOAD_GONE,
                        "The Deployment '" + name + "' is not in the namespace '" + namespace + "' of its cluster any "
                                + "more: deploy it again.");
            }
            call.run(
                    "scale the Deployment '" + name + "' in the namespace '" + namespace + "'",
                    () -> client.apps()
                            .deployments()
                            .inNamespace(namespace)
                            .withName(name)
                            .edit(d -> new DeploymentBuilder(d)
                                    .editSpec()
                                    .withReplicas(replicas)
                                    .endSpec()
                                    .build()));
            if (replicas == 0) {
                return;
            }
            var autoscaler = client.autoscaling()
                    .v2()
                    .horizontalPodAutoscalers()
                    .inNamespace(namespace)
                    .withName(name);
            String action = "change the HorizontalPodAutoscaler '" + name + "' in the namespace '" + namespace + "'";
            if (call.run(action, autoscaler::get) != null) {
                call.run(
                        action,
                        () -> autoscaler.edit(hpa -> new HorizontalPodAutoscalerBuilder(hpa)
                                .editSpec()
                                .withMinReplicas(replicas)
                                .withMaxReplicas(replicas)
                                .endSpec()
                                .build()));
            }
        }
    }

    @Override
    public boolean delete(String clusterId, String name) {
        requireNonNull(clusterId, "clusterId");
        requireName(name);
        Kubeconfig kubeconfig = clusters.kubeconfig(clusterId);
        String namespace = kubeconfig.namespace();
        try (KubernetesClient client = clusters.connect(kubeconfig, Clusters.CHECK_TIMEOUT)) {
            var call = new Call(client, kubeconfig);
            boolean autoscaler = call.deleteAutoscaler(name);
            boolean service = call.delete(
                    "Service",
                    name,
                    () -> client.services()
                            .inNamespace(namespace)
                            .withName(name)
                            .delete());
            boolean deployment = call.delete(
                    "Deployment",
                    name,
                    () -> client.apps()
                            .deployments()
                            .inNamespace(namespace)
                            .withName(name)
                            .delete());
            return autoscaler || service || deployment;
        }
    }

    /** What the workload's pods run, once it passed every check made without the cluster. */
    private Serving serving(Workload workload) {
        requireNonNull(workload, "workload");
        requireName(workload.name());
        requireValid(workload);
        return Serving.of(workload.name(), workload.model(), workload.resources(), settings);
    }

    private static Deployment deployment(
            Workload workload, Serving serving, Map<String, String> labels, String namespace) {
        var container = new ContainerBuilder()
                .withName(CONTAINER)
                .withImage(serving.image())
                .withArgs(serving.args())
                .addNewPort()
                .withName(PORT_NAME)
                .withContainerPort(serving.server().port)
                .withProtocol("TCP")
                .endPort()
                .withNewReadinessProbe()
                .withNewHttpGet()
                .withPath(HEALTH_PATH)
                .withPort(new IntOrString(PORT_NAME))
                .endHttpGet()
                .withPeriodSeconds(10)
                .withFailureThreshold(3)
                .endReadinessProbe()
                .withNewResources()
                .withRequests(amounts(workload.resources()))
                .withLimits(amounts(workload.resources()))
                .endResources();
        var pod = new PodSpecBuilder();
        if (serving.server() == Serving.Server.VLLM && workload.resources().gpus() > 1) {
            // tensor parallelism shares tensors between the GPUs' workers through /dev/shm, which is 64 MiB otherwise
            container
                    .addNewVolumeMount()
                    .withName("shm")
                    .withMountPath("/dev/shm")
                    .endVolumeMount();
            pod.addNewVolume()
                    .withName("shm")
                    .withNewEmptyDir()
                    .withMedium("Memory")
                    .endEmptyDir()
                    .endVolume();
        }
        if (workload.resources().gpus() > 0) {
            workload.resources()
                    .gpuType()
                    .ifPresent(type -> pod.withNodeSelector(Map.of(KubernetesApi.GPU_PRODUCT_LABEL, type)));
        }
        Container built = container.build();
        return new DeploymentBuilder()
                .withMetadata(metadata(workload.name(), namespace, labels))
                .withNewSpec()
                .withReplicas(workload.replicas())
                .withNewSelector()
                .withMatchLabels(Map.of(WORKLOAD_LABEL, workload.name()))
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .withLabels(labels)
                .endMetadata()
                .withSpec(pod.withContainers(built).build())
                .endTemplate()
                .endSpec()
                .build();
    }

    /** What each object of a workload is named, placed and labelled with. */
    private static ObjectMeta metadata(String name, String namespace, Map<String, String> labels) {
        return new ObjectMetaBuilder()
                .withName(name)
                .withNamespace(namespace)
                .withLabels(labels)
                .build();
    }

    private static Service service(String name, Serving serving, Map<String, String> labels, String namespace) {
        return new ServiceBuilder()
                .withMetadata(metadata(name, namespace, labels))
                .withNewSpec()
                .withType("ClusterIP")
                .withSelector(Map.of(WORKLOAD_LABEL, name))
                .addNewPort()
                .withName(PORT_NAME)
                .withPort(SERVICE_PORT)
                .withTargetPort(new IntOrString(serving.server().port))
                .withProtocol("TCP")
                .endPort()
                .endSpec()
                .build();
    }

    /**
     * Scales on the serving server's own gauge of requests in flight, averaged over the pods, at the workload's
     * target: that is what {@code target_in_flight} means, where CPU use would say little about a GPU server. The
     * gauge reaches the autoscaler through the cluster's custom metrics API (an adapter such as prometheus-adapter
     * scraping the pods); without one the autoscaler keeps the replicas within its bounds and does not scale.
     */
    private static HorizontalPodAutoscaler autoscaler(
            String name, Scaling scaling, Serving serving, Map<String, String> labels, String namespace) {
        return new HorizontalPodAutoscalerBuilder()
                .withMetadata(metadata(name, namespace, labels))
                .withNewSpec()
                .withNewScaleTargetRef()
                .withApiVersion("apps/v1")
                .withKind("Deployment")
                .withName(name)
                .endScaleTargetRef()
                .withMinReplicas(scaling.minReplicas())
                .withMaxReplicas(scaling.maxReplicas())
                .addNewMetric()
                .withType("Pods")
                .withNewPods()
                .withNewMetric()
                .withName(serving.server().inFlightMetric)
                .endMetric()
                .withNewTarget()
                .withType("AverageValue")
                .withAverageValue(new Quantity(Integer.toString(scaling.targetInFlight())))
                .endTarget()
                .endPods()
                .endMetric()
                .endSpec()
                .build();
    }

    /** Requests and limits alike: a serving pod that gets less than it asked for serves slower than planned. */
    private static Map<String, Quantity> amounts(Resources resources) {
        var amounts = new LinkedHashMap<String, Quantity>();
        if (resources.cpu() > 0) {
            amounts.put("cpu", new Quantity(Math.max(1, Math.round(resources.cpu() * 1000)) + "m"));
        }
        if (resources.memoryBytes() > 0) {
            amounts.put("memory", new Quantity(Long.toString(resources.memoryBytes())));
        }
        if (resources.gpus() > 0) {
            amounts.put(KubernetesApi.GPU_RESOURCE, new Quantity(Integer.toString(resources.gpus())));
        }
        return amounts;
    }

    /** The workload's labels, then the ones the objects are found by (which win). */
    private static Map<String, String> labels(String name, Map<String, String> given) {
        var labels = new LinkedHashMap<>(given);
        labels.put(WORKLOAD_LABEL, name);
        labels.put(MANAGED_BY_LABEL, "arbor");
        return labels;
    }

    private static WorkloadStatus status(Deployment deployment, List<Pod> pods, String namespace) {
        String name = deployment.getMetadata().getName();
        String image = deployment.getSpec().getTemplate().getSpec().getContainers().stream()
                .map(Container::getImage)
                .findFirst()
                .orElse("");
        int desired = Optional.ofNullable(deployment.getSpec().getReplicas()).orElse(1);
        var deploymentStatus = Optional.ofNullable(deployment.getStatus());
        int ready = deploymentStatus
                .map(s -> s.getReadyReplicas())
                .map(Integer::intValue)
                .orElse(0);
        List<DeploymentCondition> conditions =
                deploymentStatus.map(s -> s.getConditions()).map(List::copyOf).orElse(List.of());
        var failures = new LinkedHashSet<String>();
        for (DeploymentCondition condition : conditions) {
            if ("Progressing".equals(condition.getType()) && "False".equals(condition.getStatus())
                    || "ReplicaFailure".equals(condition.getType()) && "True".equals(condition.getStatus())) {
                failures.add("the Deployment " + said(condition.getReason(), condition.getMessage()));
            }
        }
        pods.forEach(pod -> failures.addAll(failures(pod)));
        return new WorkloadStatus(
                name,
                image,
                desired,
                ready,
                "http://" + name + "." + namespace + ".svc:" + SERVICE_PORT + "/v1",
                failures.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", failures)),
                conditions.stream()
                        .map(c -> c.getType() + "=" + c.getStatus()
                                + (c.getReason() == null ? "" : " (" + said(c.getReason(), c.getMessage()) + ")"))
                        .toList());
    }

    /** Why a pod cannot serve, in words without the pod's name: the same trouble on every pod is said once. */
    private static List<String> failures(Pod pod) {
        var failures = new ArrayList<String>();
        if (pod.getStatus() == null) {
            return failures;
        }
        for (PodCondition condition :
                Optional.ofNullable(pod.getStatus().getConditions()).orElse(List.of())) {
            if ("PodScheduled".equals(condition.getType())
                    && "False".equals(condition.getStatus())
                    && "Unschedulable".equals(condition.getReason())) {
                failures.add("pods cannot be scheduled: "
                        + Optional.ofNullable(condition.getMessage()).orElse("no node fits them"));
            }
        }
        var statuses = new ArrayList<ContainerStatus>();
        statuses.addAll(
                Optional.ofNullable(pod.getStatus().getInitContainerStatuses()).orElse(List.of()));
        statuses.addAll(
                Optional.ofNullable(pod.getStatus().getContainerStatuses()).orElse(List.of()));
        for (ContainerStatus status : statuses) {
            var waiting = Optional.ofNullable(status.getState()).map(s -> s.getWaiting());
            if (waiting.isPresent() && STUCK.contains(waiting.get().getReason())) {
                failures.add("container " + status.getName() + " cannot start: "
                        + said(waiting.get().getReason(), waiting.get().getMessage()));
            }
        }
        return failures;
    }

    private static String said(String reason, String message) {
        String why = Optional.ofNullable(reason).orElse("");
        String more = Optional.ofNullable(message).orElse("").strip();
        return why.isEmpty() ? more : more.isEmpty() ? why : why + ": " + more;
    }

    private static void requireName(String name) {
        requireNonNull(name, "name");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("a workload's name must be a DNS-1035 label (lowercase letters, digits "
                    + "and '-', starting with a letter, ending with a letter or digit, at most 63): '" + name + "'");
        }
    }

    private static void requireValid(Workload workload) {
        workload.labels().forEach((key, value) -> {
            int slash = key.indexOf('/');
            String prefix = slash < 0 ? "" : key.substring(0, slash);
            String label = key.substring(slash + 1);
            if (slash >= 0 && !LABEL_PREFIX.matcher(prefix).matches()
                    || !LABEL_NAME.matcher(label).matches()) {
                throw new IllegalArgumentException("'" + key + "' is not a Kubernetes label key");
            }
            if (!value.isEmpty() && !LABEL_NAME.matcher(value).matches()) {
                throw new IllegalArgumentException(
                        "'" + value + "' (label " + key + ") is not a Kubernetes label value");
            }
        });
        Resources resources = workload.resources();
        if (workload.replicas() < 0
                || !(resources.cpu() >= 0)
                || Double.isInfinite(resources.cpu())
                || resources.memoryBytes() < 0
                || resources.gpus() < 0) {
            throw new IllegalArgumentException("replicas and resources must be 0 or more: " + workload);
        }
        resources.gpuType().ifPresent(type -> {
            if (!LABEL_NAME.matcher(type).matches()) {
                throw new IllegalArgumentException("'" + type + "' (a GPU type) is not a Kubernetes label value");
            }
        });
        workload.autoscaling().ifPresent(scaling -> {
            if (scaling.minReplicas() < 1
                    || scaling.maxReplicas() < scaling.minReplicas()
                    || scaling.targetInFlight() < 1) {
                throw new IllegalArgumentException(
                        "autoscaling needs 1 <= min_replicas <= max_replicas and target_in_flight >= 1: " + scaling);
            }
        });
    }

    /**
     * One call's requests to the API server: each failure becomes a cluster code at {@code cluster_id} naming what was
     * refused, once the objects this call created are removed again.
     */
    private static final class Call {
        private final KubernetesClient client;
        private final Kubeconfig kubeconfig;
        private final List<HasMetadata> created = new ArrayList<>();

        Call(KubernetesClient client, Kubeconfig kubeconfig) {
            this.client = client;
            this.kubeconfig = kubeconfig;
        }

        /** Creates the object, or replaces the one there; remembers it when it was created. */
        <T extends HasMetadata> T put(T desired) {
            String action = "create or update the " + desired.getKind() + " '"
                    + desired.getMetadata().getName() + "' in the namespace '" + kubeconfig.namespace() + "'";
            var resource = client.resource(desired);
            T existing = run(action, resource::get);
            if (existing == null) {
                T made = run(action, resource::create);
                created.add(made);
                return made;
            }
            if (existing instanceof Service there && desired instanceof Service wanted) {
                // an address the cluster gave the Service stays with it: a replacement without one would be refused
                wanted.getSpec().setClusterIP(there.getSpec().getClusterIP());
                wanted.getSpec().setClusterIPs(there.getSpec().getClusterIPs());
            }
            return run(action, () -> client.resource(desired).update());
        }

        /** Deletes an object; whether it was there. */
        boolean delete(String kind, String name, Supplier<List<?>> deletion) {
            return !run(
                            "delete the " + kind + " '" + name + "' in the namespace '" + kubeconfig.namespace() + "'",
                            deletion)
                    .isEmpty();
        }

        boolean deleteAutoscaler(String name) {
            return delete(
                    "HorizontalPodAutoscaler",
                    name,
                    () -> client.autoscaling()
                            .v2()
                            .horizontalPodAutoscalers()
                            .inNamespace(kubeconfig.namespace())
                            .withName(name)
                            .delete());
        }

        Optional<Deployment> deployment(String name) {
            return Optional.ofNullable(run(
                    "read the Deployment '" + name + "' in the namespace '" + kubeconfig.namespace() + "'",
                    () -> client.apps()
                            .deployments()
                            .inNamespace(kubeconfig.namespace())
                            .withName(name)
                            .get()));
        }

        List<Pod> pods(String name) {
            return run(
                    "list the pods of '" + name + "' in the namespace '" + kubeconfig.namespace() + "'",
                    () -> client.pods()
                            .inNamespace(kubeconfig.namespace())
                            .withLabel(WORKLOAD_LABEL, name)
                            .list()
                            .getItems());
        }

        <T> T run(String action, Supplier<T> request) {
            try {
                return request.get();
            } catch (KubernetesClientException e) {
                KubernetesApi.Failure failure = KubernetesApi.Failure.of(
                        e,
                        kubeconfig,
                        action,
                        "grant it get, list, create, update, patch and delete on deployments, services and "
                                + "horizontalpodautoscalers, and list on pods, in that namespace");
                throw ApiException.of(failure.code(), "cluster_id", KubernetesApi.sentence(failure.message()) + undo());
            }
        }

        /** Removes what this call created, newest first; says what it removed, or could not. */
        private String undo() {
            var removed = new ArrayList<String>();
            var left = new ArrayList<String>();
            for (HasMetadata made : created.reversed()) {
                String what =
                        "the " + made.getKind() + " '" + made.getMetadata().getName() + "'";
                try {
                    client.resource(made).delete();
                    removed.add(what);
                } catch (KubernetesClientException e) {
                    left.add(what);
                }
            }
            created.clear();
            return (removed.isEmpty() ? "" : " Removed again what this call made: " + String.join(", ", removed) + ".")
                    + (left.isEmpty()
                            ? ""
                            : " Left on the cluster (removing failed): " + String.join(", ", left) + ".");
        }
    }
}
