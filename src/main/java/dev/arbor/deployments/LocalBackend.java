package dev.arbor.deployments;

import static java.util.Objects.requireNonNull;

import dev.arbor.models.engines.ReplicaSet;
import dev.arbor.platform.errors.ApiException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Local deployments: a {@link ReplicaSet} per deployment, in this server's processes. Every change a set reports turns
 * into the deployment's status: {@code running} once every replica asked for is ready, {@code failed} once none is
 * ready or starting and some failed (the set is then closed, so that a model that cannot load is not started over and
 * over).
 */
final class LocalBackend {
    private static final Logger LOG = LoggerFactory.getLogger(LocalBackend.class);

    /** What a set's replicas come to now. */
    sealed interface Observed {
        int ready();

        /** Every replica asked for is ready, and none is still starting. */
        record Settled(int ready) implements Observed {}

        record Moving(int ready) implements Observed {}

        record Failed(int ready, String reason) implements Observed {}
    }

    /** Told what a deployment's replicas come to, each time they change. */
    @FunctionalInterface
    interface Reports {
        void replicas(String deploymentId, Observed observed);
    }

    private final ReplicaSets starter;
    private final Reports reports;
    private final Map<String, ReplicaSet> sets = new ConcurrentHashMap<>();

    LocalBackend(ReplicaSets starter, Reports reports) {
        this.starter = requireNonNull(starter, "starter");
        this.reports = requireNonNull(reports, "reports");
    }

    /** Starts the deployment's replicas in the background; what they come to arrives through the reports. */
    void start(Deployment deployment) {
        Thread.ofVirtual().name("deployment-start-" + deployment.id()).start(() -> {
            var holder = new AtomicReference<ReplicaSet>();
            try {
                ReplicaSet set = starter.start(
                        deployment.modelId(),
                        deployment.id(), // a name is unique in its project only; the runtime needs it unique
                        deployment.spec().replicas(),
                        limits(deployment),
                        replica -> Optional.ofNullable(holder.get())
                                .filter(s -> sets.get(deployment.id()) == s)
                                .ifPresent(s -> report(deployment.id(), s)));
                holder.set(set);
                ReplicaSet earlier = sets.put(deployment.id(), set);
                if (earlier != null) {
                    earlier.close();
                }
                deployment.spec().autoScaling().ifPresent(scaling -> set.autoscale(Optional.of(scaling)));
                report(deployment.id(), set);
            } catch (ApiException e) {
                reports.replicas(
                        deployment.id(),
                        new Observed.Failed(0, e.problems().getFirst().message()));
            } catch (RuntimeException e) {
                LOG.warn("the replicas of deployment {} did not start", deployment.id(), e);
                reports.replicas(deployment.id(), new Observed.Failed(0, "its replicas did not start: " + e));
            }
        });
    }

    /**
     * What each replica's process may use: the memory asked for is its Java heap, the processors (rounded up) what its
     * JVM sizes its thread pools to.
     */
    static ReplicaSet.WorkerLimits limits(Deployment deployment) {
        return deployment
                .spec()
                .resources()
                .map(asked -> new ReplicaSet.WorkerLimits(
                        asked.memoryBytes(), asked.cpu().map(cpu -> (int) Math.ceil(cpu))))
                .orElse(ReplicaSet.WorkerLimits.NONE);
    }

    Optional<ReplicaSet> replicas(String deploymentId) {
        return Optional.ofNullable(sets.get(deploymentId));
    }

    /** Asks for {@code replicas}; false when this server runs no replicas of the deployment. */
    boolean scale(String deploymentId, int replicas) {
        return replicas(deploymentId)
                .map(set -> {
                    set.scale(replicas);
                    report(deploymentId, set);
                    return true;
                })
                .orElse(false);
    }

    void autoscale(String deploymentId, Optional<ReplicaSet.Autoscaling> autoscaling) {
        replicas(deploymentId).ifPresent(set -> set.autoscale(autoscaling));
    }

    /** Stops the deployment's replicas, when this server runs them. */
    void stop(String deploymentId) {
        Optional.ofNullable(sets.remove(deploymentId)).ifPresent(ReplicaSet::close);
    }

    /** Stops every set (the server stops; their deployments start again with it). */
    void close() {
        List.copyOf(sets.keySet()).forEach(this::stop);
    }

    private void report(String deploymentId, ReplicaSet set) {
        Observed observed = observe(set);
        if (observed instanceof Observed.Failed) {
            sets.remove(deploymentId, set);
            set.close();
        }
        reports.replicas(deploymentId, observed);
    }

    static Observed observe(ReplicaSet set) {
        List<ReplicaSet.ReplicaState> replicas = set.replicas();
        int ready = count(replicas, ReplicaSet.ReplicaStatus.READY);
        int starting = count(replicas, ReplicaSet.ReplicaStatus.STARTING);
        Optional<String> failure = replicas.stream()
                .filter(r -> r.status() == ReplicaSet.ReplicaStatus.FAILED)
                .map(r -> r.error().orElse("replica " + r.index() + " failed"))
                .findFirst();
        if (ready == 0 && starting == 0 && failure.isPresent()) {
            return new Observed.Failed(0, failure.get());
        }
        // a stopping replica serves no more: it finishes its calls and ends, which the set does not announce
        if (ready >= set.desired() && starting == 0) {
            return new Observed.Settled(ready);
        }
        return new Observed.Moving(ready);
    }

    private static int count(List<ReplicaSet.ReplicaState> replicas, ReplicaSet.ReplicaStatus status) {
        return (int) replicas.stream().filter(r -> r.status() == status).count();
    }
}
