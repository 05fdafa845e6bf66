package dev.arbor.clusters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.arbor.ArborServer;
import dev.arbor.clusters.Workloads.ModelSource;
import dev.arbor.clusters.Workloads.Purpose;
import dev.arbor.clusters.Workloads.Resources;
import dev.arbor.clusters.Workloads.Scaling;
import dev.arbor.clusters.Workloads.Workload;
import dev.arbor.clusters.Workloads.WorkloadStatus;
import dev.arbor.platform.config.StorageSettings;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.outbound.AllowedDestination;
import dev.arbor.platform.outbound.OutboundPolicy;
import dev.arbor.platform.secrets.SecretBox;
import dev.arbor.testing.KubernetesApiMock;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A deployment's Kubernetes objects through the real fabric8 client against fabric8's API server mock in CRUD mode,
 * on clusters added through the server's API (one test builds the clusters by hand, to change the outbound policy
 * under a stored cluster); the server's CPU image is a setting, its GPU image the default.
 */
class KubernetesWorkloadsTest {
    private static final String NAMESPACE = "serving";
    private static final String CPU_IMAGE = "registry.example/llama.cpp:server-test";
    private static final Map<String, String> LABELS = Map.of("arbor.dev/deployment-id", "dep_0001");
    private static final ModelSource SAFETENSORS =
            new ModelSource("qwen-0-5b", "Qwen/Qwen2.5-0.5B-Instruct", "safetensors", Purpose.GENERATE);
    private static final ModelSource GGUF =
            new ModelSource("qwen-gguf", "Qwen/Qwen2.5-0.5B-Instruct-GGUF", "gguf", Purpose.GENERATE);
    private static final Resources TWO_GPUS = new Resources(4, 16L << 30, 2, Optional.empty());
    private static final Resources CPU_ONLY = new Resources(2.5, 4L << 30, 0, Optional.empty());
    private static final AtomicInteger CLUSTERS = new AtomicInteger();

    private static ArborServer server;

    @BeforeAll
    static void startServer() {
        server = ArborServer.start(Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1", "ARBOR_SERVING_IMAGE_CPU", CPU_IMAGE));
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @Test
    void onGpusTheDeploymentRunsVllmWithItsResourcesProbeAndLabelsBehindAServiceAndAnAutoscaler() {
        try (var mock = new KubernetesApiMock()) {
            String cluster = addCluster(mock);
            var workload =
                    new Workload("chat-small", LABELS, SAFETENSORS, 2, Optional.of(new Scaling(1, 4, 8)), TWO_GPUS);

            workloads().check(workload);
            WorkloadStatus status = workloads().apply(cluster, workload);

            assertThat(status.name()).isEqualTo("chat-small");
            assertThat(status.image()).isEqualTo(ClusterSettings.DEFAULT.servingImageGpu());
            assertThat(status.desiredReplicas()).isEqualTo(2);
            assertThat(status.readyReplicas()).isZero();
            assertThat(status.serviceUrl()).isEqualTo("http://chat-small.serving.svc:80/v1");
            assertThat(status.failure()).isEmpty();
            var expectedLabels = Map.of(
                    "arbor.dev/deployment-id", "dep_0001",
                    "arbor.dev/workload", "chat-small",
                    "app.kubernetes.io/managed-by", "arbor");

            Deployment deployment = deployment(mock, "chat-small");
            assertThat(deployment.getMetadata().getLabels()).isEqualTo(expectedLabels);
            assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
            assertThat(deployment.getSpec().getSelector().getMatchLabels())
                    .isEqualTo(Map.of("arbor.dev/workload", "chat-small"));
            assertThat(deployment.getSpec().getTemplate().getMetadata().getLabels())
                    .isEqualTo(expectedLabels);
            Container container =
                    deployment.getSpec().getTemplate().getSpec().getContainers().getFirst();
            assertThat(container.getImage()).isEqualTo(ClusterSettings.DEFAULT.servingImageGpu());
            assertThat(container.getArgs())
                    .containsExactly(
                            "--model",
                            "Qwen/Qwen2.5-0.5B-Instruct",
                            "--served-model-name",
                            "chat-small",
                            "--port",
                            "8000",
                            "--tensor-parallel-size",
                            "2");
            assertThat(container.getPorts().getFirst().getContainerPort()).isEqualTo(8000);
            assertThat(container.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/health");
            assertThat(container.getReadinessProbe().getHttpGet().getPort()).isEqualTo(new IntOrString("http"));
            var amounts = Map.of(
                    "cpu", new Quantity("4000m"),
                    "memory", new Quantity(Long.toString(16L << 30)),
                    "nvidia.com/gpu", new Quantity("2"));
            assertThat(container.getResources().getRequests()).isEqualTo(amounts);
            assertThat(container.getResources().getLimits()).isEqualTo(amounts);
            assertThat(container.getVolumeMounts().getFirst().getMountPath()).isEqualTo("/dev/shm");

            Service service = mock.client()
                    .services()
                    .inNamespace(NAMESPACE)
                    .withName("chat-small")
                    .get();
            assertThat(service.getMetadata().getLabels()).isEqualTo(expectedLabels);
            assertThat(service.getSpec().getType()).isEqualTo("ClusterIP");
            assertThat(service.getSpec().getSelector()).isEqualTo(Map.of("arbor.dev/workload", "chat-small"));
            assertThat(service.getSpec().getPorts().getFirst().getPort()).isEqualTo(80);
            assertThat(service.getSpec().getPorts().getFirst().getTargetPort()).isEqualTo(new IntOrString(8000));

            HorizontalPodAutoscaler autoscaler = autoscaler(mock, "chat-small");
            assertThat(autoscaler.getMetadata().getLabels()).isEqualTo(expectedLabels);
            assertThat(autoscaler.getSpec().getScaleTargetRef().getKind()).isEqualTo("Deployment");
            assertThat(autoscaler.getSpec().getScaleTargetRef().getName()).isEqualTo("chat-small");
            assertThat(autoscaler.getSpec().getMinReplicas()).isEqualTo(1);
            assertThat(autoscaler.getSpec().getMaxReplicas()).isEqualTo(4);
            var metric = autoscaler.getSpec().getMetrics().getFirst();
            assertThat(metric.getType()).isEqualTo("Pods");
            assertThat(metric.getPods().getMetric().getName()).isEqualTo("vllm:num_requests_running");
            assertThat(metric.getPods().getTarget().getAverageValue()).isEqualTo(new Quantity("8"));
        }
    }

    @Test
    void anEmbeddingModelOnGpusOfATypeRunsVllmAsAnEmbedderOnNodesOfThatType() {
        try (var mock = new KubernetesApiMock()) {
            String cluster = addCluster(mock);
            var workload = new Workload(
                    "embedder",
                    LABELS,
                    new ModelSource("minilm", "sentence-transformers/all-MiniLM-L6-v2", "onnx", Purpose.EMBED),
                    1,
                    Optional.empty(),
                    new Resources(2, 8L << 30, 1, Optional.of("NVIDIA-L4")));

            assertThat(workloads().apply(cluster, workload).image())
                    .isEqualTo(ClusterSettings.DEFAULT.servingImageGpu());

            var pod = deployment(mock, "embedder").getSpec().getTemplate().getSpec();
            assertThat(pod.getContainers().getFirst().getArgs())
                    .containsExactly(
                            "--model",
                            "sentence-transformers/all-MiniLM-L6-v2",
                            "--served-model-name",
                            "embedder",
                            "--port",
                            "8000",
                            "--runner",
                            "pooling",
                            "--convert",
                            "embed");
            assertThat(pod.getContainers().getFirst().getResources().getLimits())
                    .containsEntry("nvidia.com/gpu", new Quantity("1"));
            assertThat(pod.getNodeSelector()).isEqualTo(Map.of("nvidia.com/gpu.product", "NVIDIA-L4"));
        }
    }

    @Test
    void anEmbeddingModelInGgufWithoutGpusRunsTheLlamaCppServerServingEmbeddings() {
        try (var mock = new KubernetesApiMock()) {
            String cluster = addCluster(mock);
            var workload = new Workload(
                    "gguf-embedder",
                    LABELS,
                    new ModelSource("nomic", "nomic-ai/nomic-embed-text-v1.5-GGUF", "gguf", Purpose.EMBED),
                    1,
                    Optional.empty(),
                    CPU_ONLY);

            workloads().apply(cluster, workload);

            var pod = deployment(mock, "gguf-embedder").getSpec().getTemplate().getSpec();
            assertThat(pod.getContainers().getFirst().getArgs()).endsWith("--metrics", "--embeddings");
            assertThat(pod.getNodeSelector()).isNullOrEmpty();
        }
    }

    /** A gguf model without GPUs: the llama.cpp server of the setting, loading it by where it comes from. */
    record CpuSource(String uri, List<String> loads) {}

    static Stream<CpuSource> cpuSources() {
        return Stream.of(
                new CpuSource("Qwen/Qwen2.5-0.5B-Instruct-GGUF", List.of("-hf", "Qwen/Qwen2.5-0.5B-Instruct-GGUF")),
                new CpuSource(
                        "https://models.example/qwen2.5-0.5b-q4_k_m.gguf",
                        List.of("--model-url", "https://models.example/qwen2.5-0.5b-q4_k_m.gguf")));
    }

    @ParameterizedTest
    @MethodSource("cpuSources")
    void withoutGpusTheDeploymentRunsTheLlamaCppServerOfTheSetting(CpuSource source) {
        try (var mock = new KubernetesApiMock()) {
            String cluster = addCluster(mock);
            var workload = new Workload(
                    "chat-cpu",
                    LABELS,
                    new ModelSource("qwen-gguf", source.uri(), "gguf", Purpose.GENERATE),
                    1,
                    Optional.of(new Scaling(1, 3, 4)),
                    CPU_ONLY);

            assertThat(workloads().apply(cluster, workload).image()).isEqualTo(CPU_IMAGE);

            Container container = deployment(mock, "chat-cpu")
                    .getSpec()
                    .getTemplate()
                    .getSpec()
                    .getContainers()
                    .getFirst();
            assertThat(container.getImage()).isEqualTo(CPU_IMAGE);
            assertThat(container.getArgs())
                    .containsExactlyElementsOf(Stream.concat(
                                    source.loads().stream(),
                                    Stream.of(
                                            "--alias", "chat-cpu", "--port", "8080", "--host", "0.0.0.0", "--metrics"))
                            .toList());
            assertThat(container.getPorts().getFirst().getContainerPort()).isEqualTo(8080);
            assertThat(container.getResources().getLimits())
                    .isEqualTo(Map.of("cpu", new Quantity("2500m"), "memory", new Quantity(Long.toString(4L << 30))));
            assertThat(container.getVolumeMounts()).isEmpty();
            assertThat(mock.client()
                            .services()
                            .inNamespace(NAMESPACE)
                            .withName("chat-cpu")
                            .get()
                            .getSpec()
                            .getPorts()
                            .getFirst()
                            .getTargetPort())
                    .isEqualTo(new IntOrString(8080));
            assertThat(autoscaler(mock, "chat-cpu")
                            .getSpec()
                            .getMetrics()
                            .getFirst()
                            .getPods()
                            .getMetric()
                            .getName())
                    .isEqualTo("llamacpp:requests_processing");
        }
    }

    @Test
    void applyingAgainUpdatesTheObjectsInPlaceAndDropsAnAutoscalerNoLongerAskedFor() {
        try (var mock = new KubernetesApiMock()) {
            String cluster = addCluster(mock);
            workloads()
                    .apply(cluster, new Workload("chat", LABELS, GGUF, 1, Optional.of(new Scaling(1, 2, 4)), CPU_ONLY));

            WorkloadStatus status =
                    workloads().apply(cluster, new Workload("chat", LABELS, GGUF, 3, Optional.empty(), CPU_ONLY));

            assertThat(status.desiredReplicas()).isEqualTo(3);
            assertThat(deployments(mock))
                    .singleElement()
                    .satisfies(d -> assertThat(d.getSpec().getReplicas()).isEqualTo(3));
            assertThat(services(mock)).hasSize(1);
            assertThat(autoscalers(mock)).isEmpty();
        }
    }

    @Test
    void statusReadsReadyReplicasAndWhyPodsCannotRun() {
        try (var mock = new KubernetesApiMock()) {
            String cluster = addCluster(mock);
            workloads().apply(cluster, new Workload("chat", LABELS, GGUF, 3, Optional.empty(), CPU_ONLY));
            KubernetesClient kube = mock.client();
            kube.apps()
                    .deployments()
                    .inNamespace(NAMESPACE)
                    .withName("chat")
                    .editStatus(d -> new DeploymentBuilder(d)
                            .withNewStatus()
                            .withReadyReplicas(2)
                            .addNewCondition()
                            .withType("Available")
                            .withStatus("False")
                            .withReason("MinimumReplicasUnavailable")
                            .withMessage("Deployment does not have minimum availability.")
                            .endCondition()
                            .endStatus()
                            .build());
            var pod = kube.pods()
                    .inNamespace(NAMESPACE)
                    .resource(new PodBuilder()
                            .withNewMetadata()
                            .withName("chat-7d9f-abcde")
                            .withLabels(Map.of("arbor.dev/workload", "chat"))
                            .endMetadata()
                            .build())
                    .create();
            kube.pods()
                    .inNamespace(NAMESPACE)
                    .resource(new PodBuilder(pod)
                            .withNewStatus()
                            .addNewContainerStatus()
                            .withName("server")
                            .withNewState()
                            .withNewWaiting()
                            .withReason("ImagePullBackOff")
                            .withMessage("Back-off pulling image \"" + CPU_IMAGE + "\"")
                            .endWaiting()
                            .endState()
                            .endContainerStatus()
                            .endStatus()
                            .build())
                    .updateStatus();

            WorkloadStatus status = workloads().status(cluster, "chat").orElseThrow();

            assertThat(status.desiredReplicas()).isEqualTo(3);
            assertThat(status.readyReplicas()).isEqualTo(2);
            assertThat(status.failure())
                    .contains("container server cannot start: ImagePullBackOff: Back-off pulling image \"" + CPU_IMAGE
                            + "\"");
            assertThat(status.conditions())
                    .containsExactly(
                            "Available=False (MinimumReplicasUnavailable: Deployment does not have minimum availability.)");
            assertThat(workloads().status(cluster, "other")).isEmpty();
        }
    }

    @Test
    void scaleSetsTheReplicasAndPinsTheAutoscalersBoundsToThem() {
        try (var mock = new KubernetesApiMock()) {
            String cluster = addCluster(mock);
            workloads()
                    .apply(cluster, new Workload("chat", LABELS, GGUF, 1, Optional.of(new Scaling(1, 4, 4)), CPU_ONLY));

            workloads().scale(cluster, "chat", 3);

            assertThat(deployment(mock, "chat").getSpec().getReplicas()).isEqualTo(3);
            assertThat(autoscaler(mock, "chat").getSpec().getMinReplicas()).isEqualTo(3);
            assertThat(autoscaler(mock, "chat").getSpec().getMaxReplicas()).isEqualTo(3);
            assertThat(workloads().status(cluster, "chat").orElseThrow().desiredReplicas())
                    .isEqualTo(3);
        }
    }

    @Test
    void scalingAWorkloadWhoseDeploymentIsGoneSaysSo() {
        try (var mock = new KubernetesApiMock()) {
            String cluster = addCluster(mock);
            assertThatThrownBy(() -> workloads().scale(cluster, "chat", 2))
                    .isInstanceOfSatisfying(ApiException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.WORKLOAD_GONE);
                        assertThat(e.status()).isEqualTo(409);
                        assertThat(e.problems().getFirst().param()).isNull();
                        assertThat(e.getMessage()).contains("The Deployment 'chat' is not in the namespace 'serving'");
                    });
        }
    }

    @Test
    void deleteRemovesTheThreeObjectsAndASecondDeleteFindsNone() {
        try (var mock = new KubernetesApiMock()) {
            String cluster = addCluster(mock);
            workloads()
                    .apply(cluster, new Workload("chat", LABELS, GGUF, 1, Optional.of(new Scaling(1, 2, 4)), CPU_ONLY));

            assertThat(workloads().delete(cluster, "chat")).isTrue();

            assertThat(deployments(mock)).isEmpty();
            assertThat(services(mock)).isEmpty();
            assertThat(autoscalers(mock)).isEmpty();
            assertThat(workloads().status(cluster, "chat")).isEmpty();
            assertThat(workloads().delete(cluster, "chat")).isFalse();
        }
    }

    @Test
    void aRefusalPartWayRemovesWhatTheCallMadeAndSaysWhatToGrant() {
        try (var mock = new KubernetesApiMock()) {
            String cluster = addCluster(mock);
            mock.answer(
                    "POST",
                    "/apis/autoscaling/v2/namespaces/serving/horizontalpodautoscalers",
                    403,
                    "horizontalpodautoscalers.autoscaling is forbidden: User \"arbor\" cannot create");
            var workload = new Workload("chat", LABELS, GGUF, 1, Optional.of(new Scaling(1, 2, 4)), CPU_ONLY);

            assertThatThrownBy(() -> workloads().apply(cluster, workload))
                    .isInstanceOfSatisfying(ApiException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.CLUSTER_FORBIDDEN);
                        assertThat(e.problems().getFirst().param()).isEqualTo("cluster_id");
                        assertThat(e.problems().getFirst().message())
                                .contains("does not let the kubeconfig's user create or update the "
                                        + "HorizontalPodAutoscaler 'chat' in the namespace 'serving' (403)")
                                .contains("grant it get, list, create, update, patch and delete on deployments")
                                .contains("Removed again what this call made: the Service 'chat', the Deployment "
                                        + "'chat'.")
                                .doesNotContain(KubernetesApiMock.TOKEN);
                    });

            assertThat(deployments(mock)).isEmpty();
            assertThat(services(mock)).isEmpty();
        }
    }

    @Test
    void aRefusalPartWayKeepsWhatWasThereBefore() {
        try (var mock = new KubernetesApiMock()) {
            String cluster = addCluster(mock);
            workloads().apply(cluster, new Workload("chat", LABELS, GGUF, 1, Optional.empty(), CPU_ONLY));
            mock.answer("POST", "/apis/autoscaling/v2/namespaces/serving/horizontalpodautoscalers", 403, "forbidden");

            assertThatThrownBy(() -> workloads()
                            .apply(
                                    cluster,
                                    new Workload("chat", LABELS, GGUF, 2, Optional.of(new Scaling(1, 2, 4)), CPU_ONLY)))
                    .isInstanceOfSatisfying(
                            ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CLUSTER_FORBIDDEN));

            assertThat(deployments(mock)).hasSize(1);
            assertThat(services(mock)).hasSize(1);
        }
    }

    @Test
    void aClusterWhoseApiServerIsGoneIsUnreachable() {
        String cluster;
        try (var mock = new KubernetesApiMock()) {
            cluster = addCluster(mock);
        }
        var workload = new Workload("chat", LABELS, GGUF, 1, Optional.empty(), CPU_ONLY);
        Stream.<Runnable>of(
                        () -> workloads().apply(cluster, workload),
                        () -> workloads().status(cluster, "chat"),
                        () -> workloads().scale(cluster, "chat", 2),
                        () -> workloads().delete(cluster, "chat"))
                .forEach(call -> assertClusterRefused(
                        call::run, ErrorCode.CLUSTER_UNREACHABLE, "cannot be reached: the connection was refused"));
    }

    @Test
    void credentialsTheApiServerNoLongerTakesAreUnauthorized() {
        try (var mock = new KubernetesApiMock()) {
            String cluster = addCluster(mock);
            mock.answer("GET", "/apis/apps/v1/namespaces/serving/deployments/chat", 401, "Unauthorized");

            assertClusterRefused(
                    () -> workloads().status(cluster, "chat"),
                    ErrorCode.CLUSTER_UNAUTHORIZED,
                    "does not accept the kubeconfig's credentials (401)");
        }
    }

    @Test
    void anApiServerTheOutboundPolicyNoLongerAllowsIsNotCalled(@TempDir Path data) {
        var storage = new StorageSettings(data, Optional.empty(), Optional.empty());
        try (var mock = new KubernetesApiMock();
                var database = Database.open(storage)) {
            var problems = new Problems();
            Kubeconfig kubeconfig = Kubeconfig.read(mock.kubeconfig(), Optional.empty(), Optional.empty(), problems)
                    .orElseThrow();
            String cluster = clusters(database, storage, List.of(AllowedDestination.parse("127.0.0.1")))
                    .add("was-allowed", kubeconfig)
                    .id();
            var workloads = new KubernetesWorkloads(clusters(database, storage, List.of()), ClusterSettings.DEFAULT);

            assertClusterRefused(
                    () -> workloads.delete(cluster, "chat"),
                    ErrorCode.CLUSTER_UNREACHABLE,
                    "The API server " + mock.url() + " may not be called");
        }
    }

    @Test
    void anUnknownClusterIsNotFound() {
        assertThatThrownBy(() -> workloads().status("clu_none", "chat"))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.CLUSTER_NOT_FOUND);
                    assertThat(e.problems().getFirst().param()).isEqualTo("cluster_id");
                });
    }

    /** A model the chosen server cannot load: its resources, the model, and what the refusal says. */
    record Unservable(String what, Resources resources, ModelSource model, String says) {
        @Override
        public String toString() {
            return what;
        }
    }

    static Stream<Unservable> unservable() {
        return Stream.of(
                new Unservable(
                        "safetensors without GPUs",
                        CPU_ONLY,
                        SAFETENSORS,
                        "Model qwen-0-5b is in the format 'safetensors', which the llama.cpp server"),
                new Unservable(
                        "an onnx classifier on GPUs",
                        TWO_GPUS,
                        new ModelSource("minilm", "sentence-transformers/all-MiniLM-L6-v2", "onnx", Purpose.CLASSIFY),
                        "Model minilm is in the format 'onnx', which vLLM"),
                new Unservable(
                        "a folder of this server on GPUs",
                        TWO_GPUS,
                        new ModelSource("local-llm", "/srv/models/llm", "safetensors", Purpose.GENERATE),
                        "Model local-llm comes from '/srv/models/llm', which vLLM cannot load"),
                new Unservable(
                        "a zip archive without GPUs",
                        CPU_ONLY,
                        new ModelSource("zipped", "https://models.example/llm.zip", "gguf", Purpose.GENERATE),
                        "which the llama.cpp server cannot load"),
                new Unservable(
                        "a hub revision without GPUs",
                        CPU_ONLY,
                        new ModelSource("pinned", "Qwen/Qwen2.5-0.5B-Instruct-GGUF@v1", "gguf", Purpose.GENERATE),
                        "names the revision 'v1'"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("unservable")
    void aModelTheServerCannotLoadIsRefusedAtModelIdAndNothingIsMade(Unservable unservable) {
        try (var mock = new KubernetesApiMock()) {
            String cluster = addCluster(mock);
            var workload =
                    new Workload("chat", LABELS, unservable.model(), 1, Optional.empty(), unservable.resources());

            Stream.<Runnable>of(
                            () -> workloads().check(workload), () -> workloads().apply(cluster, workload))
                    .forEach(call -> assertThatThrownBy(call::run).isInstanceOfSatisfying(ApiException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.MODEL_FORMAT_UNSUPPORTED);
                        assertThat(e.status()).isEqualTo(400);
                        assertThat(e.problems().getFirst().param()).isEqualTo("model_id");
                        assertThat(e.problems().getFirst().message()).contains(unservable.says());
                    }));

            assertThat(deployments(mock)).isEmpty();
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "Chat",
                "1chat",
                "chat_1",
                "chat-",
                "",
                "a23456789012345678901234567890123456789012345678901234567890abcd"
            })
    void aNameThatIsNotADnsLabelIsRefusedBeforeTheClusterIsAsked(String name) {
        var workload = new Workload(name, LABELS, GGUF, 1, Optional.empty(), CPU_ONLY);
        assertThatThrownBy(() -> workloads().apply("clu_none", workload))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("DNS-1035 label");
        assertThatThrownBy(() -> workloads().delete("clu_none", name)).isInstanceOf(IllegalArgumentException.class);
    }

    /** A workload Kubernetes would refuse, and what the refusal names. */
    record Refused(String what, Workload workload, String says) {
        @Override
        public String toString() {
            return what;
        }
    }

    static Stream<Refused> refusedWorkloads() {
        return Stream.of(
                new Refused(
                        "a label key with a space",
                        new Workload("chat", Map.of("team name", "x"), GGUF, 1, Optional.empty(), CPU_ONLY),
                        "'team name' is not a Kubernetes label key"),
                new Refused(
                        "a label key with a bad prefix",
                        new Workload("chat", Map.of("-arbor.dev/x", "x"), GGUF, 1, Optional.empty(), CPU_ONLY),
                        "'-arbor.dev/x' is not a Kubernetes label key"),
                new Refused(
                        "a label value with a slash",
                        new Workload("chat", Map.of("team", "a/b"), GGUF, 1, Optional.empty(), CPU_ONLY),
                        "'a/b' (label team) is not a Kubernetes label value"),
                new Refused(
                        "negative replicas",
                        new Workload("chat", LABELS, GGUF, -1, Optional.empty(), CPU_ONLY),
                        "must be 0 or more"),
                new Refused(
                        "no number of CPUs",
                        new Workload(
                                "chat",
                                LABELS,
                                GGUF,
                                1,
                                Optional.empty(),
                                new Resources(Double.NaN, 0, 0, Optional.empty())),
                        "must be 0 or more"),
                new Refused(
                        "a minimum of zero",
                        new Workload("chat", LABELS, GGUF, 1, Optional.of(new Scaling(0, 2, 4)), CPU_ONLY),
                        "1 <= min_replicas <= max_replicas"),
                new Refused(
                        "a maximum under the minimum",
                        new Workload("chat", LABELS, GGUF, 1, Optional.of(new Scaling(3, 2, 4)), CPU_ONLY),
                        "1 <= min_replicas <= max_replicas"),
                new Refused(
                        "no requests in flight",
                        new Workload("chat", LABELS, GGUF, 1, Optional.of(new Scaling(1, 2, 0)), CPU_ONLY),
                        "target_in_flight >= 1"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedWorkloads")
    void aWorkloadKubernetesWouldRefuseIsRefusedBeforeTheClusterIsAsked(Refused refused) {
        assertThatThrownBy(() -> workloads().check(refused.workload()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(refused.says());
        assertThatThrownBy(() -> workloads().apply("clu_none", refused.workload()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(refused.says());
    }

    private static Clusters clusters(Database database, StorageSettings storage, List<AllowedDestination> allowed) {
        return new Clusters(
                database,
                SecretBox.forStorage(storage),
                new OutboundPolicy(allowed),
                DeploymentsOnCluster.NONE,
                ClusterSettings.DEFAULT,
                storage.dataDir(),
                Clock.systemUTC());
    }

    /** The call fails with {@code code} at {@code cluster_id}, its message saying {@code says}. */
    private static void assertClusterRefused(ThrowingCallable call, ErrorCode code, String says) {
        assertThatThrownBy(call).isInstanceOfSatisfying(ApiException.class, e -> {
            assertThat(e.code()).isEqualTo(code);
            assertThat(e.problems().getFirst().param()).isEqualTo("cluster_id");
            assertThat(e.getMessage()).contains(says);
        });
    }

    private static Workloads workloads() {
        return server.workloads();
    }

    private static String addCluster(KubernetesApiMock mock) {
        var created = server.http()
                .post("/clusters", ClustersTest.body("k8s-" + CLUSTERS.incrementAndGet(), mock.kubeconfig()));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return created.json().path("id").asText();
    }

    private static Deployment deployment(KubernetesApiMock mock, String name) {
        return mock.client()
                .apps()
                .deployments()
                .inNamespace(NAMESPACE)
                .withName(name)
                .get();
    }

    private static HorizontalPodAutoscaler autoscaler(KubernetesApiMock mock, String name) {
        return mock.client()
                .autoscaling()
                .v2()
                .horizontalPodAutoscalers()
                .inNamespace(NAMESPACE)
                .withName(name)
                .get();
    }

    private static List<Deployment> deployments(KubernetesApiMock mock) {
        return mock.client().apps().deployments().inNamespace(NAMESPACE).list().getItems();
    }

    private static List<Service> services(KubernetesApiMock mock) {
        return mock.client().services().inNamespace(NAMESPACE).list().getItems();
    }

    private static List<HorizontalPodAutoscaler> autoscalers(KubernetesApiMock mock) {
        return mock.client()
                .autoscaling()
                .v2()
                .horizontalPodAutoscalers()
                .inNamespace(NAMESPACE)
                .list()
                .getItems();
    }
}
