package dev.arbor.clusters;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a cluster has to offer now: its status, how many nodes it has, the resources new work may use and, for a
 * status other than healthy, why.
 */
public record ClusterHealth(Status status, int nodeCount, Resources available, List<String> reasons) {
    public ClusterHealth {
        requireNonNull(status, "status");
        requireNonNull(available, "available");
        reasons = List.copyOf(reasons);
    }

    public enum Status {
        HEALTHY,
        DEGRADED,
        UNHEALTHY;

        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }

        Status worse(Status other) {
            return other.ordinal() > ordinal() ? other : this;
        }
    }

    /**
     * @param cpu processors (cores; fractions on Kubernetes, where a node may offer part of one)
     * @param memoryBytes memory free for new work
     * @param gpus one entry per GPU, with the memory free on it
     */
    public record Resources(double cpu, long memoryBytes, List<Gpu> gpus) {
        public Resources {
            gpus = List.copyOf(gpus);
        }

        static final Resources NONE = new Resources(0, 0, List.of());
    }

    public record Gpu(String name, long memoryBytes) {
        public Gpu {
            requireNonNull(name, "name");
        }
    }

    /**
     * The contract's shape (Cluster Health Check's outputs, and the body of the health route): {@code status},
     * {@code node_count}, {@code available_resources {cpu, memory_bytes, gpus [{name, memory_bytes}]}} and
     * {@code reasons}.
     */
    public Map<String, Object> json() {
        var resources = new LinkedHashMap<String, Object>();
        resources.put("cpu", available.cpu());
        resources.put("memory_bytes", available.memoryBytes());
        resources.put(
                "gpus",
                available.gpus().stream()
                        .map(gpu -> Map.of("name", gpu.name(), "memory_bytes", gpu.memoryBytes()))
                        .toList());
        var json = new LinkedHashMap<String, Object>();
        json.put("status", status.wire());
        json.put("node_count", nodeCount);
        json.put("available_resources", resources);
        json.put("reasons", reasons);
        return json;
    }

    /** A cluster that cannot be asked: nothing of it counts. */
    static ClusterHealth unreachable(String reason) {
        return new ClusterHealth(Status.UNHEALTHY, 0, Resources.NONE, List.of(reason));
    }
}
