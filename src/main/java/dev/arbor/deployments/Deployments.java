package dev.arbor.deployments;

import static java.util.Objects.requireNonNull;

import dev.arbor.access.Access;
import dev.arbor.clusters.ClusterHealth;
import dev.arbor.clusters.Clusters;
import dev.arbor.clusters.DeploymentsOnCluster;
import dev.arbor.clusters.Workloads;
import dev.arbor.inference.DeploymentDirectory;
import dev.arbor.models.Model;
import dev.arbor.models.Models;
import dev.arbor.models.RemoteEndpoint;
import dev.arbor.models.engines.ReplicaSet;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problem;
import dev.arbor.platform.http.EventStreams;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.instances.ServerInstances;
import dev.arbor.platform.ratelimits.RateLimiter;
import dev.arbor.platform.references.Referrers;
import dev.arbor.platform.timers.Repeating;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deployments: a registry model served under a name of a project, by replicas on this machine ({@code local}) or by
 * pods on a Kubernetes cluster. Work that takes time (starting replicas, the cluster making pods) runs in the
 * background; the status and progress say where it stands. A local deployment's replicas run in the server that made
 * it (on PostgreSQL, others answer 503 {@code deployment_on_other_server} to changes, pass requests to it, and take
 * it over once that server is gone); a server that starts again starts its local deployments again.
 *
 * <p>Inference finds running deployments through {@link DeploymentDirectory}; the model registry asks it, as
 * {@link Referrers}, which deployments use a model before deleting one.
 */
public final class Deployments implements DeploymentDirectory, Referrers {
    /** How often the ready replicas of a Kubernetes deployment are read back while it deploys or scales. */
    static final Duration POLL_EVERY = Duration.ofSeconds(1);

    /** The most replicas a deployment may ask for. */
    static final int MAX_REPLICAS = 32;

    /** How long a deployment's request waits for its cluster's health, read to check what the request asks for. */
    static final Duration HEALTH_TIMEOUT = Duration.ofSeconds(10);

    /** The project id of a deployment in no project, where a project id must be given: no project has it. */
    static final String NO_PROJECT = "";

    private static final Logger LOG = LoggerFactory.getLogger(Deployments.class);

    private final DeploymentStore store;
    /** What requests are served from: every deployment, reloaded at each change. */
    private final DeploymentView view;

    private final boolean readOnly;
    private final Models models;
    private final Clusters clusters;
    private final ServerInstances instances;
    private final Access access;
    private final Supplier<String> publicUrl;
    private final LocalBackend local;
    private final KubernetesBackend kubernetes;
    private final DeploymentRoutes routes;
    /** Notified at every change this server records, so that waiting readers look again at once. */
    private final Object changes = new Object();
    /** Takes over, at each heartbeat, the local deployments of servers that stopped. */
    private final ScheduledExecutorService takeovers = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("arbor-deployment-takeover").factory());

    /**
     * @param replicaSets starts a local deployment's replicas
     * @param publicUrl this server's address as callers reach it: a local deployment answers under it, at {@code /v1}
     */
    public Deployments(
            Database database,
            Clock clock,
            Access access,
            Models models,
            Clusters clusters,
            Workloads workloads,
            ReplicaSets replicaSets,
            ServerInstances instances,
            EventStreams streams,
            Supplier<String> publicUrl) {
        this.store = new DeploymentStore(requireNonNull(database, "database"), requireNonNull(clock, "clock"));
        this.view = new DeploymentView(store);
        this.readOnly = database.readOnly();
        this.models = requireNonNull(models, "models");
        this.clusters = requireNonNull(clusters, "clusters");
        this.instances = requireNonNull(instances, "instances");
        this.access = requireNonNull(access, "access");
        this.publicUrl = requireNonNull(publicUrl, "publicUrl");
        this.local = new LocalBackend(replicaSets, this::replicasChanged);
        this.kubernetes = new KubernetesBackend(workloads, this::workloadChanged, POLL_EVERY);
        this.routes = new DeploymentRoutes(this, access, requireNonNull(streams, "streams"));
    }

    /**
     * What keeps a cluster from being deleted: the deployments on it. Made from the database alone, since the
     * clusters are made before the deployments (which need them).
     */
    public static DeploymentsOnCluster onCluster(Database database) {
        var store = new DeploymentStore(database, Clock.systemUTC());
        return clusterId -> store.onCluster(requireNonNull(clusterId, "clusterId")).stream()
                .map(Deployment::name)
                .toList();
    }

    /** The routes; {@code routers} say which deployments they send requests to, which a delete must not pull away. */
    public void addRoutes(Routes routes, Referrers routers) {
        this.routes.addTo(routes, requireNonNull(routers, "routers"));
    }

    /**
     * Starts again the local deployments no running server runs (this server's previous life's, or a stopped
     * server's): they deploy again from no ready replica. Kubernetes deployments still on their way are watched again.
     * On a database servers share, this server goes on taking over the local deployments of servers that stop, at
     * each heartbeat, so that a deployment whose server is gone serves again without waiting for a change.
     */
    public void start() {
        if (readOnly) {
            LOG.warn("the database is read-only for this release: deployments are not started again");
            return;
        }
        takeOverOrphans();
        for (Deployment deployment : store.list(Optional.empty())) {
            if (!deployment.local()
                    && (deployment.state().status() == DeploymentStatus.DEPLOYING
                            || deployment.state().status() == DeploymentStatus.SCALING)) {
                kubernetes.watch(deployment);
            }
        }
        changed();
        if (instances.shared()) {
            Repeating.every(
                    takeovers,
                    instances.heartbeat(),
                    instances.heartbeat(),
                    "the takeover of stopped servers' deployments",
                    this::takeOverOrphansLogged);
        }
    }

    /** Claims the local deployments whose server is gone and starts their replicas here; those being deleted go. */
    private void takeOverOrphans() {
        for (Deployment orphan : store.claimOrphans(instances.id(), instances.shared())) {
            if (orphan.state().status() == DeploymentStatus.DELETING) {
                store.delete(orphan.id());
                changed();
                continue;
            }
            LOG.info("deployment {} ({}) had no running server: its replicas start here", orphan.name(), orphan.id());
            Deployment restarting = record(orphan.id(), d -> d.moved(DeploymentStatus.DEPLOYING, 0, Optional.empty()));
            local.start(restarting);
        }
    }

    private void takeOverOrphansLogged() {
        try {
            takeOverOrphans();
        } catch (ApiException e) {
            LOG.debug("deployments of stopped servers could not be looked for: {}", e.getMessage());
        } catch (RuntimeException e) {
            LOG.warn("deployments of stopped servers could not be looked for", e);
        }
    }

    /** Reads the deployments again for the request path: another server changed them. */
    public void reload() {
        view.reload();
    }

    /** Stops this server's replicas (their deployments start again with the server) and the cluster poller. */
    public void close() {
        takeovers.shutdownNow();
        kubernetes.close();
        local.close();
    }

    /** A deployment as a pipeline step sees it. */
    public record Snapshot(
            String id, String name, String status, int replicas, Optional<String> endpointUrl, Optional<String> error) {
        public Snapshot {
            requireNonNull(id, "id");
            requireNonNull(name, "name");
            requireNonNull(status, "status");
            requireNonNull(endpointUrl, "endpointUrl");
            requireNonNull(error, "error");
        }

        public boolean running() {
            return status.equals(DeploymentStatus.RUNNING.wire());
        }

        public boolean failed() {
            return status.equals(DeploymentStatus.FAILED.wire());
        }

        static Snapshot of(Deployment deployment, Optional<String> endpoint) {
            return new Snapshot(
                    deployment.id(),
                    deployment.name(),
                    deployment.state().status().wire(),
                    deployment.spec().replicas(),
                    endpoint,
                    deployment.state().error());
        }
    }

    /**
     * Deploy Model: the deployment of this name in the project (or in no project), made now when there is none (a
     * deployment of that name that exists counts as deployed, so that a step may run twice). Refusals are
     * {@link ApiException}s, as the API answers them.
     */
    public Snapshot deploy(
            Optional<String> projectId,
            String name,
            String modelId,
            String clusterId,
            int replicas,
            Optional<ReplicaSet.Autoscaling> autoScaling) {
        requireNonNull(projectId, "projectId");
        if (!access.unknownProjects(projectId.stream().toList()).isEmpty()) {
            throw ApiException.of(
                    ErrorCode.PROJECT_NOT_FOUND, "project_id", "There is no project '" + projectId.get() + "'.");
        }
        Optional<Deployment> existing = store.findByName(projectId, name);
        if (existing.isPresent()) {
            return snapshot(existing.get());
        }
        return snapshot(create(new NewDeployment(
                projectId,
                name,
                modelId,
                clusterId,
                new Deployment.Spec(replicas, autoScaling, Optional.empty(), Optional.empty()))));
    }

    /** The deployment of this id, else the one of this name; 409 {@code deployment_exists} when several have it. */
    public Optional<Snapshot> lookup(String idOrName) {
        List<Deployment> found = named(requireNonNull(idOrName, "idOrName"));
        if (found.size() > 1) {
            throw ApiException.of(
                    ErrorCode.DEPLOYMENT_EXISTS,
                    DeploymentRoutes.DEPLOYMENT_ID,
                    "Deployments of several projects are named '" + idOrName + "': name one by its id.");
        }
        return found.stream().findFirst().map(this::snapshot);
    }

    /** Waits until the deployment's work settles (running or failed); empty when it is gone. */
    public Optional<Snapshot> awaitSettled(String id, Duration wait) throws InterruptedException {
        return await(id, wait).map(this::snapshot);
    }

    /** Scale Deployment: asks for {@code replicas} of the deployment of this id. */
    public Snapshot scaleTo(String id, int replicas) {
        if (replicas < 1 || replicas > MAX_REPLICAS) {
            throw ApiException.of(
                    ErrorCode.INVALID_FIELD, "replicas", "`replicas` must be from 1 to " + MAX_REPLICAS + ".");
        }
        Deployment current = current(id);
        current.spec().autoScaling().ifPresent(bounds -> {
            if (replicas < bounds.minReplicas() || replicas > bounds.maxReplicas()) {
                throw ApiException.of(
                        ErrorCode.INVALID_FIELD,
                        "replicas",
                        "`replicas` must be within the deployment's autoscaling bounds, " + bounds.minReplicas()
                                + " to " + bounds.maxReplicas() + ".");
            }
        });
        if (replicas == current.spec().replicas() && current.state().status() != DeploymentStatus.FAILED) {
            return snapshot(current);
        }
        return snapshot(scale(current, replicas));
    }

    /** Configure Rate Limiting: sets the limit of the deployment of this id. */
    public void rateLimit(String id, RateLimiter.Limit limit) {
        limit(current(id), Optional.of(requireNonNull(limit, "limit")));
    }

    /** Delete Deployment: deletes the deployment of this id; one gone already counts as deleted. */
    public void deleteIfPresent(String id) {
        store.find(requireNonNull(id, "id")).ifPresent(this::delete);
    }

    private Snapshot snapshot(Deployment deployment) {
        return Snapshot.of(deployment, endpoint(deployment));
    }

    /** What a deployment is to be, checked for its shape already: what never changes, and what it asks for. */
    record NewDeployment(
            Optional<String> projectId, String name, String modelId, String clusterId, Deployment.Spec asked) {
        NewDeployment {
            requireNonNull(projectId, "projectId");
            requireNonNull(name, "name");
            requireNonNull(modelId, "modelId");
            requireNonNull(clusterId, "clusterId");
            requireNonNull(asked, "asked");
        }
    }

    /**
     * Stores a deployment and starts its work in the background; it answers {@code pending}. An unknown model or
     * cluster is 404 (both listed when both are), a model not downloaded, a name taken or resources the cluster cannot
     * give 409, and nothing is stored.
     */
    Deployment create(NewDeployment spec) {
        var missing = new ArrayList<Problem>();
        Optional<Model> model = models.find(spec.modelId());
        if (model.isEmpty()) {
            missing.add(
                    new Problem(ErrorCode.MODEL_NOT_FOUND, "model_id", "There is no model '" + spec.modelId() + "'."));
        }
        if (!clusters.exists(spec.clusterId())) {
            missing.add(new Problem(
                    ErrorCode.CLUSTER_NOT_FOUND, "cluster_id", "There is no cluster '" + spec.clusterId() + "'."));
        }
        if (!missing.isEmpty()) {
            throw ApiException.of(missing);
        }
        requireServable(model.get(), spec.clusterId());
        if (!spec.clusterId().equals(Clusters.LOCAL)
                && store.onCluster(spec.clusterId()).stream()
                        .anyMatch(d -> d.name().equals(spec.name()))) {
            // its objects are named after it in the cluster's one namespace, whatever the project
            throw ApiException.of(
                    ErrorCode.DEPLOYMENT_EXISTS,
                    "name",
                    "A deployment on the cluster '" + spec.clusterId() + "' is named '" + spec.name()
                            + "' already; on a Kubernetes cluster names are unique across projects.");
        }
        Instant now = store.now();
        boolean onLocal = spec.clusterId().equals(Clusters.LOCAL);
        var deployment = new Deployment(
                Ids.next("dep"),
                spec.projectId(),
                spec.name(),
                spec.modelId(),
                spec.clusterId(),
                spec.asked(),
                new Deployment.State(
                        DeploymentStatus.PENDING,
                        0,
                        Optional.empty(),
                        Optional.empty(),
                        onLocal ? Optional.of(instances.id()) : Optional.empty()),
                now,
                now);
        requireAvailable(deployment);
        if (!onLocal) {
            kubernetes.check(deployment, model.get());
        }
        store.insert(deployment);
        changed();
        if (onLocal) {
            local.start(deployment);
        } else {
            kubernetes.apply(deployment, model.get());
        }
        return deployment;
    }

    /**
     * Makes a change to {@code current}, one setting after another: the rate limit, autoscaling, the replicas (asked
     * again after a failure even when the count is the same), then the resources, which deploy it again.
     */
    Deployment change(Deployment current, DeploymentChange change) {
        Deployment changed = current;
        if (change.rateLimit().isPresent()) {
            changed = limit(changed, change.rateLimit().get());
        }
        if (change.autoScaling().isPresent()) {
            changed = autoscale(changed, change.autoScaling().get());
        }
        Optional<Integer> replicas = change.replicas();
        if (replicas.isPresent()
                && (replicas.get() != current.spec().replicas()
                        || current.state().status() == DeploymentStatus.FAILED)) {
            changed = scale(changed, replicas.get());
        }
        Optional<Optional<Resources>> resources = change.resources();
        if (resources.isPresent() && !resources.get().equals(current.spec().resources())) {
            changed = reserve(changed, resources.get());
        }
        return changed;
    }

    /**
     * Asks for {@code replicas}: {@code scaling} until they are ready. A failed deployment deploys again with the new
     * count.
     */
    Deployment scale(Deployment current, int replicas) {
        requireRunnableHere(current);
        if (current.state().status() == DeploymentStatus.FAILED) {
            return redeploy(current, d -> d.with(d.spec().withReplicas(replicas)));
        }
        DeploymentStatus next = current.state().status() == DeploymentStatus.PENDING
                        || current.state().status() == DeploymentStatus.DEPLOYING
                ? DeploymentStatus.DEPLOYING
                : DeploymentStatus.SCALING;
        if (!current.local()) {
            // the cluster first: a cluster that refuses leaves the deployment as it was
            kubernetes.scale(current.with(current.spec().withReplicas(replicas)));
        }
        Deployment scaled = record(
                current.id(),
                d -> d.with(d.spec().withReplicas(replicas))
                        .moved(next, d.state().readyReplicas(), d.state().error()));
        if (!scaled.local()) {
            kubernetes.watch(scaled);
        } else if (!local.scale(scaled.id(), replicas)) {
            local.start(scaled);
        }
        return current(scaled.id());
    }

    /** Turns autoscaling on (with these bounds) or off. */
    Deployment autoscale(Deployment current, Optional<ReplicaSet.Autoscaling> autoScaling) {
        requireRunnableHere(current);
        Deployment changed = record(current.id(), d -> d.with(d.spec().withAutoScaling(autoScaling)));
        if (changed.local()) {
            local.autoscale(changed.id(), autoScaling);
        } else if (changed.state().status() != DeploymentStatus.FAILED) {
            kubernetes.apply(changed, models.require(changed.modelId(), "model_id"));
        }
        return current(changed.id());
    }

    /**
     * Sets or removes the resources each replica asks for: the deployment deploys again with them (a local one's
     * replicas start again; on Kubernetes the Deployment rolls its pods). Resources the cluster cannot give are 409,
     * and the deployment stays as it was.
     */
    Deployment reserve(Deployment current, Optional<Resources> resources) {
        requireRunnableHere(current);
        Deployment asked = current.with(current.spec().withResources(resources));
        requireAvailable(asked);
        if (asked.local()) {
            local.stop(asked.id()); // its replicas start again, held to the new limits
        } else {
            kubernetes.check(asked, models.require(asked.modelId(), "model_id"));
        }
        return redeploy(current, d -> d.with(d.spec().withResources(resources)));
    }

    /** Sets or removes the rate limit; the serving endpoint reads it with the deployment. */
    Deployment limit(Deployment current, Optional<RateLimiter.Limit> limit) {
        return record(current.id(), d -> d.with(d.spec().withRateLimit(limit)));
    }

    /** Stops the deployment's replicas or removes its objects, then forgets it. */
    void delete(Deployment current) {
        requireRunnableHere(current);
        record(
                current.id(),
                d -> d.moved(
                        DeploymentStatus.DELETING,
                        d.state().readyReplicas(),
                        d.state().error()));
        try {
            if (current.local()) {
                local.stop(current.id());
            } else {
                kubernetes.remove(current);
            }
        } catch (RuntimeException e) {
            // the cluster did not answer: the deployment stays, as it was, to be deleted again
            record(
                    current.id(),
                    d -> d.moved(
                            current.state().status(),
                            d.state().readyReplicas(),
                            d.state().error()));
            throw e;
        }
        store.delete(current.id());
        changed();
    }

    Optional<Deployment> find(String id) {
        return store.find(id);
    }

    /** The deployments of these projects, or every one, newest first. */
    List<Deployment> list(Optional<Set<String>> projects) {
        return store.list(projects);
    }

    /** The deployments a pipeline step may mean by {@code idOrName}: the one of that id, else those of that name. */
    List<Deployment> named(String idOrName) {
        return store.find(idOrName).map(List::of).orElseGet(() -> store.named(idOrName));
    }

    /** Waits up to {@code wait} for the deployment's work to settle (running or failed) or for it to be gone. */
    Optional<Deployment> await(String id, Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        Optional<Deployment> now = store.find(id);
        while (now.isPresent() && !now.get().state().status().settled()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            synchronized (changes) {
                // a change recorded by another server is seen at the next look, at most half a second on
                changes.wait(Math.max(1, Math.min(Duration.ofNanos(left).toMillis(), 500)));
            }
            now = store.find(id);
        }
        return now;
    }

    /** This server's replicas of a local deployment, when it runs them. */
    Optional<ReplicaSet> replicas(String deploymentId) {
        return local.replicas(deploymentId);
    }

    @Override
    public List<ServedDeployment> find(Predicate<String> inProject, String nameOrId) {
        requireNonNull(inProject, "inProject");
        requireNonNull(nameOrId, "nameOrId");
        return served(view.named(nameOrId), inProject);
    }

    @Override
    public List<StartingDeployment> starting(Predicate<String> inProject, String nameOrId) {
        requireNonNull(inProject, "inProject");
        List<Deployment> named = view.named(requireNonNull(nameOrId, "nameOrId"));
        Set<String> serving =
                served(named, inProject).stream().map(ServedDeployment::id).collect(Collectors.toSet());
        return named.stream()
                .filter(deployment -> deployment.state().status().live()
                        && inProject.test(projectOf(deployment))
                        && !serving.contains(deployment.id()))
                .map(deployment -> new StartingDeployment(
                        deployment.id(),
                        deployment.name(),
                        projectOf(deployment),
                        deployment.state().status().wire()))
                .toList();
    }

    @Override
    public List<ServedDeployment> ofModel(Predicate<String> inProject, String modelId, String clusterId) {
        requireNonNull(inProject, "inProject");
        requireNonNull(modelId, "modelId");
        return served(
                view.onCluster(requireNonNull(clusterId, "clusterId")).stream()
                        .filter(deployment -> deployment.modelId().equals(modelId))
                        .toList(),
                inProject);
    }

    /**
     * The project inference and the references see a deployment in: a deployment in no project is in the project
     * {@link #NO_PROJECT}, which no member belongs to, so that only admins (naming no project) may call it.
     */
    private static String projectOf(Deployment deployment) {
        return deployment.projectId().orElse(NO_PROJECT);
    }

    /** Those of {@code deployments} that serve now, in a project {@code inProject} accepts, as inference calls them. */
    private List<ServedDeployment> served(List<Deployment> deployments, Predicate<String> inProject) {
        var found = new ArrayList<ServedDeployment>();
        for (Deployment deployment : deployments) {
            if (!deployment.serves() || !inProject.test(projectOf(deployment))) {
                continue;
            }
            Optional<Backend> backend = deployment.local()
                    ? local.replicas(deployment.id())
                            .<Backend>map(Backend.Replicas::new)
                            .or(() -> deployment
                                    .state()
                                    .serverInstance()
                                    .filter(owner -> !owner.equals(instances.id()))
                                    .map(owner -> new Backend.OtherServer(owner, instances.address(owner))))
                    : deployment
                            .state()
                            .endpointUrl()
                            .map(url -> new Backend.Endpoint(new RemoteEndpoint(
                                    deployment.modelId(), URI.create(url), deployment.name(), Optional.empty())));
            backend.ifPresent(b -> found.add(new ServedDeployment(
                    deployment.id(),
                    deployment.name(),
                    projectOf(deployment),
                    deployment.spec().rateLimit(),
                    b)));
        }
        return found;
    }

    @Override
    public List<Referrer> inUse(Kind kind, Set<String> names) {
        requireNonNull(kind, "kind");
        if (kind != Kind.MODEL) {
            return List.of();
        }
        return store.ofModels(Set.copyOf(names)).stream()
                .map(d -> new Referrer("deployment", d.id(), d.name(), projectOf(d)))
                .toList();
    }

    /** A forced delete of a model deletes the deployments that serve it. */
    @Override
    public List<Referrer> release(Kind kind, Set<String> names) {
        List<Referrer> users = inUse(kind, names);
        for (Referrer user : users) {
            store.find(user.id()).ifPresent(this::delete);
        }
        return users;
    }

    /**
     * Refuses a model no deployment can serve: a cloud model (its provider serves it; 400 {@code model_incompatible}),
     * or, on {@code local}, one whose files are not here (409 {@code model_not_downloaded}). A Kubernetes cluster's
     * pods load the model from its source themselves.
     */
    private static void requireServable(Model model, String clusterId) {
        if (model.engine().equals("remote")) {
            throw ApiException.of(
                    ErrorCode.MODEL_INCOMPATIBLE,
                    "model_id",
                    "The model '" + model.id() + "' is a cloud model: its provider serves it, so it cannot be "
                            + "deployed.");
        }
        if (clusterId.equals(Clusters.LOCAL) && !model.status().equals("downloaded")) {
            throw ApiException.of(
                    ErrorCode.MODEL_NOT_DOWNLOADED,
                    "model_id",
                    "The model '" + model.id() + "' is " + model.status().replace('_', ' ')
                            + ": a deployment on this machine needs its files. Wait for its download, or add it "
                            + "again.");
        }
    }

    /**
     * Refuses (409 {@code resources_unavailable} at the resource) a deployment whose replicas could not get what each
     * asks for. On Kubernetes, no ready node offering the GPUs (of the type), then the memory, then the processors one
     * pod asks for, from the nodes' allocatable resources (a cluster whose nodes cannot be read is not judged: its
     * objects' own failure says more). On {@code local}, GPUs (the replicas run on the processors: ONNX Runtime and
     * Jlama), more processors than the machine has, or more memory than it has free.
     */
    private void requireAvailable(Deployment deployment) {
        if (deployment.local() && deployment.spec().resources().isEmpty()) {
            return;
        }
        ClusterHealth health = clusters.check(deployment.clusterId(), HEALTH_TIMEOUT);
        Optional<ClusterHealth.Shortfall> shortfall;
        if (deployment.local()) {
            Resources asked = deployment.spec().resources().orElseThrow();
            shortfall = asked.gpus() > 0
                    ? Optional.of(new ClusterHealth.Shortfall(
                            "gpus",
                            health.available().gpus().isEmpty()
                                    ? "this machine has no GPU (nvidia-smi shows none); deploy on a Kubernetes cluster "
                                            + "to use GPUs"
                                    : "replicas on this machine run on its processors and do not use its "
                                            + health.available().gpus().size() + " GPU(s); deploy on a Kubernetes "
                                            + "cluster to use GPUs"))
                    : health.shortfall(new Workloads.Resources(
                            asked.cpu().orElse(0.0), asked.memoryBytes().orElse(0L), 0, Optional.empty()));
        } else {
            shortfall = health.shortfall(KubernetesBackend.resources(deployment));
        }
        shortfall.ifPresent(missing -> {
            throw ApiException.of(
                    ErrorCode.RESOURCES_UNAVAILABLE,
                    "resources." + missing.resource(),
                    "The cluster '" + deployment.clusterId() + "' cannot run deployment '" + deployment.name() + "': "
                            + missing.message() + ".");
        });
    }

    /**
     * A local deployment is changed by the server that runs its replicas: another server answers 503 while that one
     * runs, and takes the deployment over once it is gone.
     */
    private void requireRunnableHere(Deployment deployment) {
        if (!deployment.local()
                || deployment
                        .state()
                        .serverInstance()
                        .map(instances.id()::equals)
                        .orElse(false)) {
            return;
        }
        String owner = deployment.state().serverInstance().orElse("");
        if (!owner.isEmpty() && store.serverRuns(owner)) {
            throw ApiException.of(
                            ErrorCode.DEPLOYMENT_ON_OTHER_SERVER,
                            DeploymentRoutes.DEPLOYMENT_ID,
                            "The replicas of deployment '" + deployment.name() + "' run on server " + owner
                                    + ": send this change to that server.")
                    .withHeader("retry-after", "1");
        }
        record(deployment.id(), d -> d.with(d.state().withServer(Optional.of(instances.id()))));
    }

    private Deployment redeploy(Deployment current, UnaryOperator<Deployment> change) {
        Deployment again =
                record(current.id(), d -> change.apply(d).moved(DeploymentStatus.DEPLOYING, 0, Optional.empty()));
        if (again.local()) {
            local.start(again);
        } else {
            kubernetes.apply(again, models.require(again.modelId(), "model_id"));
        }
        return again;
    }

    private void replicasChanged(String id, LocalBackend.Observed observed) {
        recordIfPresent(id, d -> switch (observed) {
            case LocalBackend.Observed.Settled settled ->
                d.moved(DeploymentStatus.RUNNING, settled.ready(), Optional.empty());
            case LocalBackend.Observed.Moving moving ->
                d.moved(moving(d.state().status()), moving.ready(), d.state().error());
            case LocalBackend.Observed.Failed failed ->
                d.moved(DeploymentStatus.FAILED, failed.ready(), Optional.of(failed.reason()));
        });
    }

    private void workloadChanged(String id, KubernetesBackend.Observed observed) {
        recordIfPresent(id, d -> switch (observed) {
            case KubernetesBackend.Observed.Applied applied ->
                d.with(d.state()
                        .moved(
                                applied.ready() >= d.spec().replicas()
                                        ? DeploymentStatus.RUNNING
                                        : moving(d.state().status()),
                                applied.ready(),
                                Optional.empty())
                        .withEndpoint(Optional.of(applied.serviceUrl())));
            case KubernetesBackend.Observed.Failed failed ->
                d.moved(DeploymentStatus.FAILED, 0, Optional.of(failed.reason()));
        });
    }

    /** A deployment whose replicas move stays as it was, unless it had not started yet. */
    private static DeploymentStatus moving(DeploymentStatus status) {
        return status == DeploymentStatus.PENDING ? DeploymentStatus.DEPLOYING : status;
    }

    /** Records a change the background work reports, unless the deployment is being deleted or is gone. */
    private synchronized void recordIfPresent(String id, UnaryOperator<Deployment> change) {
        store.find(id)
                .filter(d -> d.state().status() != DeploymentStatus.DELETING)
                .ifPresent(d -> write(change.apply(d)));
    }

    /** Reads, changes and writes a deployment, one change at a time on this server. */
    private synchronized Deployment record(String id, UnaryOperator<Deployment> change) {
        Deployment changed = change.apply(current(id));
        write(changed);
        return changed;
    }

    private void write(Deployment deployment) {
        store.update(deployment.withUpdatedAt(store.now()));
        changed();
    }

    /** After every change this server stores: the request path's view first, then those waiting for a change. */
    private void changed() {
        view.reload();
        synchronized (changes) {
            changes.notifyAll();
        }
    }

    private Deployment current(String id) {
        return store.find(id).orElseThrow(() -> DeploymentStore.notFound(id, false));
    }

    /**
     * Where a deployment answers: this server's OpenAI-compatible API for a local one (worked out when asked: the
     * server's address is known once it listens), the Service the cluster gave for a Kubernetes one.
     */
    Optional<String> endpoint(Deployment deployment) {
        return deployment.local()
                ? Optional.of(publicUrl.get() + "/v1")
                : deployment.state().endpointUrl();
    }
}
