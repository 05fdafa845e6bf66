package dev.arbor.clusters;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Locale;

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

    /** A cluster that cannot be asked: nothing of it counts. */
    static ClusterHealth unreachable(String reason) {
        return new ClusterHealth(Status.UNHEALTHY, 0, Resources.NONE, List.of(reason));
    }
}
