package dev.arbor.deployments;

import static java.util.Objects.requireNonNull;

import dev.arbor.clusters.Workloads;
import dev.arbor.models.Model;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.timers.Repeating;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deployments on Kubernetes clusters, through {@link Workloads}: a Deployment, a Service and (with autoscaling) an
 * autoscaler named after the deployment, labelled with its id and project (when it has one). While a deployment deploys or scales, a
 * poller reads its ready replicas back from the cluster until they match.
 */
final class KubernetesBackend {
    private static final Logger LOG = LoggerFactory.getLogger(KubernetesBackend.class);
    static final String DEPLOYMENT_LABEL = "arbor.dev/deployment";
    static final String PROJECT_LABEL = "arbor.dev/project";
    /** What each pod of a deployment that asks for no resources asks for: the defaults of {@link Resources}. */
    static final Resources NOTHING_ASKED = new Resources(Optional.empty(), Optional.empty(), 0, Optional.empty());

    /** What the cluster says of a deployment's workload. */
    sealed interface Observed {
        record Applied(String serviceUrl, int ready, int desired) implements Observed {}

        record Failed(String reason) implements Observed {}
    }

    @FunctionalInterface
    interface Reports {
        void workload(String deploymentId, Observed observed);
    }

    private final Workloads workloads;
    private final Reports reports;
    private final Map<String, Deployment> watching = new ConcurrentHashMap<>();
    private final ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("deployment-poller").factory());

    KubernetesBackend(Workloads workloads, Reports reports, Duration pollEvery) {
        this.workloads = requireNonNull(workloads, "workloads");
        this.reports = requireNonNull(reports, "reports");
        Repeating.every(poller, pollEvery, pollEvery, "the Kubernetes deployments' poll", this::poll);
    }

    /**
     * Refuses at once what the cluster could not run: {@code model_format_unsupported} at {@code model_id} for a model
     * the serving image cannot load.
     */
    void check(Deployment deployment, Model model) {
        workloads.check(workload(deployment, model));
    }

    /** Makes (or brings to this spec) the deployment's objects in the background, then watches them. */
    void apply(Deployment deployment, Model model) {
        Thread.ofVirtual().name("deployment-apply-" + deployment.id()).start(() -> {
            try {
                Workloads.WorkloadStatus status = workloads.apply(deployment.clusterId(), workload(deployment, model));
                reports.workload(
                        deployment.id(),
                        new Observed.Applied(
                                status.serviceUrl(),
                                status.readyReplicas(),
                                deployment.spec().replicas()));
                watch(deployment);
            } catch (ApiException e) {
                reports.workload(
                        deployment.id(),
                        new Observed.Failed(e.problems().getFirst().message()));
            } catch (RuntimeException e) {
                LOG.warn("deployment {} could not be made on cluster {}", deployment.id(), deployment.clusterId(), e);
                reports.workload(deployment.id(), new Observed.Failed("the cluster refused its objects: " + e));
            }
        });
    }

    /** Sets the deployment's replicas on the cluster now; a refusal is thrown for the caller to answer. */
    void scale(Deployment deployment) {
        workloads.scale(
                deployment.clusterId(), deployment.name(), deployment.spec().replicas());
    }

    /** Removes the objects; the caller then forgets the deployment. */
    void remove(Deployment deployment) {
        watching.remove(deployment.id(), deployment);
        workloads.delete(deployment.clusterId(), deployment.name());
    }

    /** Watches a deployment until its ready replicas match those asked for. */
    void watch(Deployment deployment) {
        watching.put(deployment.id(), deployment);
    }

    void close() {
        poller.shutdownNow();
    }

    private void poll() {
        // a copy: a deployment that is ready or gone leaves the map during the round
        for (Deployment deployment : List.copyOf(watching.values())) {
            try {
                Optional<Workloads.WorkloadStatus> status = workloads.status(deployment.clusterId(), deployment.name());
                if (status.isEmpty()) {
                    watching.remove(deployment.id(), deployment);
                    reports.workload(deployment.id(), new Observed.Failed("its Deployment is gone from the cluster"));
                    continue;
                }
                Workloads.WorkloadStatus now = status.get();
                if (now.failure().isPresent()) {
                    watching.remove(deployment.id(), deployment);
                    reports.workload(
                            deployment.id(), new Observed.Failed(now.failure().get()));
                    continue;
                }
                if (now.readyReplicas() >= deployment.spec().replicas()) {
                    watching.remove(deployment.id(), deployment);
                }
                reports.workload(
                        deployment.id(),
                        new Observed.Applied(
                                now.serviceUrl(),
                                now.readyReplicas(),
                                deployment.spec().replicas()));
            } catch (RuntimeException e) {
                // the cluster may answer at the next look: a deployment fails only on what the cluster says
                LOG.debug("deployment {}: its cluster did not answer", deployment.id(), e);
            }
        }
    }

    /** What each pod of the deployment asks the cluster for. */
    static Workloads.Resources resources(Deployment deployment) {
        return deployment.spec().resources().orElse(NOTHING_ASKED).onKubernetes();
    }

    private static Workloads.Workload workload(Deployment deployment, Model model) {
        var labels = new HashMap<String, String>();
        labels.put(DEPLOYMENT_LABEL, deployment.id());
        deployment.projectId().ifPresent(project -> labels.put(PROJECT_LABEL, project));
        return new Workloads.Workload(
                deployment.name(),
                labels,
                new Workloads.ModelSource(model.id(), model.uri(), model.format(), purpose(model)),
                deployment.spec().replicas(),
                deployment
                        .spec()
                        .autoScaling()
                        .map(a -> new Workloads.Scaling(a.minReplicas(), a.maxReplicas(), a.targetInFlight())),
                resources(deployment));
    }

    /** What the registry's engine serves the model for: its embedding engine's models are served as embedders. */
    static Workloads.Purpose purpose(Model model) {
        return switch (model.engine()) {
            case "embedding" -> Workloads.Purpose.EMBED;
            case "onnx-classifier" -> Workloads.Purpose.CLASSIFY;
            default -> Workloads.Purpose.GENERATE;
        };
    }
}
