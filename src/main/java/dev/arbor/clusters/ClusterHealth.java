package dev.arbor.clusters;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * What a cluster has to offer now: its status, how many nodes it has, the resources new work may use and, for a
 * status other than healthy, why.
 *
 * @param nodes what each ready, schedulable node offers, the largest pod that could run there (not shown in the
 *     contract's shape: a deployment's request is checked against it)
 */
public record ClusterHealth(
        Status status, int nodeCount, Resources available, List<Resources> nodes, List<String> reasons) {
    public ClusterHealth {
        requireNonNull(status, "status");
        requireNonNull(available, "available");
        nodes = List.copyOf(nodes);
        reasons = List.copyOf(reasons);
    }

    /** A resource no node offers as much of as one pod asks for: its field and why, in words. */
    public record Shortfall(String resource, String message) {
        public Shortfall {
            requireNonNull(resource, "resource");
            requireNonNull(message, "message");
        }
    }

    /**
     * Why no node could run a pod that asks for {@code asked} (GPUs of its type first, then memory, then processors,
     * each among the nodes that meet the ones before); empty when one could, or when no node is known to judge by.
     */
    public Optional<Shortfall> shortfall(Workloads.Resources asked) {
        requireNonNull(asked, "asked");
        if (nodes.isEmpty()) {
            return Optional.empty();
        }
        String gpuKind = asked.gpuType().map(type -> " of the type " + type).orElse("");
        List<Resources> fitting = nodes.stream()
                .filter(node -> gpus(node, asked.gpuType()) >= asked.gpus())
                .toList();
        if (fitting.isEmpty()) {
            long most = nodes.stream()
                    .mapToLong(node -> gpus(node, asked.gpuType()))
                    .max()
                    .orElse(0);
            return Optional.of(new Shortfall(
                    "gpus",
                    "no node of the cluster has " + asked.gpus() + " GPU(s)" + gpuKind + " to give one replica (the "
                            + "most on one node: " + most + ")"));
        }
        List<Resources> withMemory = fitting.stream()
                .filter(node -> node.memoryBytes() >= asked.memoryBytes())
                .toList();
        String those = asked.gpus() > 0 ? " with those GPUs" : "";
        if (withMemory.isEmpty()) {
            long most = fitting.stream().mapToLong(Resources::memoryBytes).max().orElse(0);
            return Optional.of(new Shortfall(
                    "memory_bytes",
                    "no node of the cluster" + those + " offers " + asked.memoryBytes() + " bytes of memory to one "
                            + "replica (the most on one node: " + most + ")"));
        }
        if (withMemory.stream().noneMatch(node -> node.cpu() >= asked.cpu())) {
            double most = withMemory.stream().mapToDouble(Resources::cpu).max().orElse(0);
            return Optional.of(new Shortfall(
                    "cpu",
                    "no node of the cluster" + those + " with that memory offers " + asked.cpu() + " CPUs to one "
                            + "replica (the most on one node: " + most + ")"));
        }
        return Optional.empty();
    }

    private static long gpus(Resources node, Optional<String> type) {
        return node.gpus().stream()
                .filter(gpu -> type.map(t -> t.equalsIgnoreCase(gpu.name())).orElse(true))
                .count();
    }

    /** Declared from best to worst, the order {@link #worse} reads. */
    public enum Status {
        HEALTHY,
        DEGRADED,
        UNHEALTHY;

        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }

        Status worse(Status other) {
            return other.compareTo(this) > 0 ? other : this;
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
        return new ClusterHealth(Status.UNHEALTHY, 0, Resources.NONE, List.of(), List.of(reason));
    }
}
