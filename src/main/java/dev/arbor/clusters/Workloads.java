package dev.arbor.clusters;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A deployment's objects on a Kubernetes cluster of the registry: a Deployment of serving pods, a Service in front of
 * them and, with autoscaling, a HorizontalPodAutoscaler, all labelled with the workload's labels and named after it,
 * in the cluster's namespace. Calls fail with {@code ApiException}s naming the cluster's trouble
 * ({@code cluster_not_found}, {@code cluster_unreachable}, {@code cluster_unauthorized}, {@code cluster_forbidden}).
 */
public interface Workloads {
    /**
     * Refuses, without asking the cluster, a workload it could not run: {@code model_format_unsupported} at
     * {@code model_id} for a model the serving image its resources pick cannot load; an IllegalArgumentException for a
     * name, labels or amounts Kubernetes would refuse. {@link #apply} checks the same first.
     */
    void check(Workload workload);

    /**
     * Creates the objects, or brings existing ones to this spec; when a step fails, the objects this call created are
     * removed before the failure is thrown, so a cluster never keeps half a workload.
     */
    WorkloadStatus apply(String clusterId, Workload workload);

    /** What the cluster says of the workload now; empty when its Deployment is gone. */
    Optional<WorkloadStatus> status(String clusterId, String name);

    /** Sets the Deployment's replicas (and the autoscaler's bounds around them when there is one). */
    void scale(String clusterId, String name, int replicas);

    /** Removes the workload's objects; returns whether there were any. */
    boolean delete(String clusterId, String name);

    /**
     * @param name a DNS-1123 label, the objects' name
     * @param model what the serving image loads: the registry model's source URI and its format
     */
    record Workload(
            String name,
            Map<String, String> labels,
            ModelSource model,
            int replicas,
            Optional<Scaling> autoscaling,
            Resources resources) {
        public Workload {
            requireNonNull(name, "name");
            labels = Map.copyOf(labels);
            requireNonNull(model, "model");
            requireNonNull(autoscaling, "autoscaling");
            requireNonNull(resources, "resources");
        }
    }

    /**
     * @param format {@code safetensors}, {@code gguf} or {@code onnx}: with the GPUs asked for, it picks the image
     * @param purpose what the model is served for: an embedding model needs the serving arguments that make the server
     *     answer {@code /v1/embeddings}
     */
    record ModelSource(String id, String uri, String format, Purpose purpose) {
        public ModelSource {
            requireNonNull(id, "id");
            requireNonNull(uri, "uri");
            requireNonNull(format, "format");
            requireNonNull(purpose, "purpose");
        }
    }

    enum Purpose {
        GENERATE,
        EMBED,
        CLASSIFY
    }

    record Scaling(int minReplicas, int maxReplicas, int targetInFlight) {}

    /**
     * What each pod asks for (requests and limits alike); an amount of 0 is not asked.
     *
     * @param gpuType the GPU model the pods need, as NVIDIA's GPU feature discovery labels nodes
     *     ({@code nvidia.com/gpu.product}); any when empty
     */
    record Resources(double cpu, long memoryBytes, int gpus, Optional<String> gpuType) {
        public Resources {
            requireNonNull(gpuType, "gpuType");
        }
    }

    /**
     * @param image the serving image the pods run
     * @param serviceUrl where the Service answers inside the cluster ({@code http://name.namespace.svc:port/v1})
     * @param failure why pods cannot run (image pull errors, unschedulable), when the cluster says so
     */
    record WorkloadStatus(
            String name,
            String image,
            int desiredReplicas,
            int readyReplicas,
            String serviceUrl,
            Optional<String> failure,
            List<String> conditions) {
        public WorkloadStatus {
            requireNonNull(name, "name");
            requireNonNull(image, "image");
            requireNonNull(serviceUrl, "serviceUrl");
            requireNonNull(failure, "failure");
            conditions = List.copyOf(conditions);
        }
    }
}
