package dev.arbor.testing;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;

/**
 * fabric8's Kubernetes API server mock in CRUD mode on 127.0.0.1 (what it is sent it keeps), with answers of our own
 * where a test needs one (a refusal, a readiness), and the kubeconfig that reaches it.
 */
public final class KubernetesApiMock implements AutoCloseable {
    public static final String TOKEN = "k8s-token-5f1e9c";

    private final KubernetesMockServer server;
    private final KubernetesClient client;

    public KubernetesApiMock() {
        Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
        server = new KubernetesMockServer(
                new Context(), new MockWebServer(), responses, new KubernetesMixedDispatcher(responses), false);
        try {
            server.init(InetAddress.getByName("127.0.0.1"), 0);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
        client = server.createClient();
    }

    public String url() {
        return "http://127.0.0.1:" + server.getPort();
    }

    /** A kubeconfig whose current context reaches this server with a token, in the namespace {@code serving}. */
    public String kubeconfig() {
        return kubeconfig(url(), TOKEN);
    }

    /** A kubeconfig whose current context reaches {@code server} with {@code token}, in the namespace serving. */
    public static String kubeconfig(String server, String token) {
        return """
                apiVersion: v1
                kind: Config
                clusters:
                - name: mock
                  cluster:
                    server: %s
                contexts:
                - name: mock
                  context:
                    cluster: mock
                    user: arbor
                    namespace: serving
                current-context: mock
                users:
                - name: arbor
                  user:
                    token: %s
                """.formatted(server, token);
    }

    /**
     * Adds a node with these conditions ({@code type -> status}) allocating {@code cpu}, {@code memory} and
     * {@code gpus} NVIDIA L4s (labelled as NVIDIA's GPU feature discovery labels them).
     */
    public KubernetesApiMock node(String name, Map<String, String> conditions, String cpu, String memory, int gpus) {
        var builder = new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewStatus()
                .addToAllocatable("cpu", new Quantity(cpu))
                .addToAllocatable("memory", new Quantity(memory))
                .endStatus();
        if (gpus > 0) {
            builder.editMetadata()
                    .addToLabels("nvidia.com/gpu.product", "NVIDIA-L4")
                    .addToLabels("nvidia.com/gpu.memory", "23034")
                    .endMetadata()
                    .editStatus()
                    .addToAllocatable("nvidia.com/gpu", new Quantity(Integer.toString(gpus)))
                    .endStatus();
        }
        conditions.forEach((type, status) -> builder.editStatus()
                .addNewCondition()
                .withType(type)
                .withStatus(status)
                .withReason(type.equals("Ready") ? "KubeletNotReady" : "Kubelet" + type)
                .endCondition()
                .endStatus());
        Node node = builder.build();
        client.nodes().resource(node).create();
        return this;
    }

    /** The client of the mock's own: what a test reads back, or sets as a cluster's controllers would. */
    public KubernetesClient client() {
        return client;
    }

    /** Every GET of {@code path} (with its query) answered with {@code status} and a Kubernetes Status body. */
    public KubernetesApiMock answer(String path, int status, String message) {
        return answer("GET", path, status, message);
    }

    /**
     * Every {@code method} request for {@code path} (with its query) answered with {@code status} and a Kubernetes
     * Status body, as an API server that refuses one kind of request does.
     */
    public KubernetesApiMock answer(String method, String path, int status, String message) {
        var expectation = server.expect();
        var request = switch (method) {
            case "GET" -> expectation.get();
            case "POST" -> expectation.post();
            case "PUT" -> expectation.put();
            case "PATCH" -> expectation.patch();
            case "DELETE" -> expectation.delete();
            default -> throw new IllegalArgumentException("no expectation for the method " + method);
        };
        request.withPath(path)
                .andReturn(
                        status,
                        new StatusBuilder()
                                .withStatus("Failure")
                                .withCode(status)
                                .withMessage(message)
                                .build())
                .always();
        return this;
    }

    /** {@code /readyz} answering {@code status} with {@code body}, as an API server with a failing check does. */
    public KubernetesApiMock readiness(int status, String body) {
        server.expect().get().withPath("/readyz").andReturn(status, body).always();
        return this;
    }

    /** Every GET of {@code path} answered 302 to {@code location}, as an API server sending its clients elsewhere. */
    public KubernetesApiMock redirect(String path, String location) {
        server.expect()
                .get()
                .withPath(path)
                .andReturn(302, "")
                .withHeader("Location", location)
                .always();
        return this;
    }

    public int port() {
        return server.getPort();
    }

    @Override
    public void close() {
        client.close();
        server.destroy();
    }
}
