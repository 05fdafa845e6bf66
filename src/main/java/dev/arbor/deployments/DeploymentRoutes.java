package dev.arbor.deployments;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static dev.arbor.platform.http.bodies.BodyField.Presence.REQUIRED;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.access.Access;
import dev.arbor.access.CurrentProject;
import dev.arbor.access.Principal;
import dev.arbor.access.ProjectId;
import dev.arbor.clusters.Clusters;
import dev.arbor.models.engines.ReplicaSet;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.errors.Warning;
import dev.arbor.platform.http.EventStream;
import dev.arbor.platform.http.EventStreams;
import dev.arbor.platform.http.QueryParam;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodyReader;
import dev.arbor.platform.http.bodies.BodySpec;
import dev.arbor.platform.ratelimits.RateLimiter;
import dev.arbor.platform.references.ReferenceGuard;
import dev.arbor.platform.references.Referrers;
import io.javalin.http.Context;
import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The routes of deployments, in the current project: members see, make and change only their own projects'
 * deployments (another project's is not found); admins see every one, and make and change deployments in no project
 * too (a request naming no project, where a member's is refused). Long work answers at once (202) with the
 * status to poll ({@code ?wait=N} waits up to N seconds for it to settle) or to follow as server-sent events.
 */
final class DeploymentRoutes {
    static final String DEPLOYMENT_ID = "deployment_id";
    /** The longest {@code ?wait=} a read may ask for. */
    static final int MAX_WAIT_SECONDS = 60;

    /** A DNS-1123 label: the deployment's Kubernetes objects are named after it. */
    private static final Pattern NAME_PATTERN = Pattern.compile("[a-z]([-a-z0-9]{0,61}[a-z0-9])?");

    private static final String NAME_RULE =
            "must be a DNS label: lowercase letters, digits and '-', starting with a letter and "
                    + "ending with a letter or digit, at most 63 characters";
    private static final List<String> ALGORITHMS = Arrays.stream(RateLimiter.Algorithm.values())
            .map(RateLimiter.Algorithm::wire)
            .toList();
    private static final List<String> WINDOWS = Arrays.stream(RateLimiter.Window.values())
            .map(RateLimiter.Window::wire)
            .toList();

    private static final BodyField<String> PROJECT_ID = BodyField.text(OPTIONAL, CurrentProject.FIELD, 100);
    private static final BodyField<String> NAME =
            BodyField.text(REQUIRED, "name", 63).matching(NAME_PATTERN, NAME_RULE);
    private static final BodyField<String> MODEL_ID = BodyField.text(REQUIRED, "model_id", 200);
    private static final BodyField<String> CLUSTER_ID = BodyField.text(OPTIONAL, "cluster_id", 100);
    private static final BodyField<Long> REPLICAS =
            BodyField.integer(OPTIONAL, "replicas", 1, Deployments.MAX_REPLICAS);
    private static final BodyField<Long> MIN_REPLICAS =
            BodyField.integer(REQUIRED, "min_replicas", 1, Deployments.MAX_REPLICAS);
    private static final BodyField<Long> MAX_REPLICAS =
            BodyField.integer(REQUIRED, "max_replicas", 1, Deployments.MAX_REPLICAS);
    private static final BodyField<Long> TARGET_IN_FLIGHT = BodyField.integer(REQUIRED, "target_in_flight", 1, 1_000);
    private static final BodyField.Group AUTO_SCALING = BodyField.group(
            OPTIONAL, "auto_scaling", BodySpec.closed("auto_scaling", MIN_REPLICAS, MAX_REPLICAS, TARGET_IN_FLIGHT));
    private static final BodyField<String> ALGORITHM =
            BodyField.choice(REQUIRED, "algorithm", ALGORITHMS, "must be one of " + String.join(", ", ALGORITHMS));
    private static final BodyField<Long> RATE = BodyField.integer(REQUIRED, "rate_limit", 1, 100_000_000);
    private static final BodyField<String> WINDOW =
            BodyField.choice(REQUIRED, "time_window", WINDOWS, "must be one of " + String.join(", ", WINDOWS));
    private static final BodyField.Group RATE_LIMIT =
            BodyField.group(OPTIONAL, "rate_limit", BodySpec.closed("rate_limit", ALGORITHM, RATE, WINDOW));

    private static final BodyField<Double> CPU =
            BodyField.number(OPTIONAL, "cpu", Schema.Bound.exclusive(0), Schema.Bound.inclusive(Resources.MAX_CPU));
    private static final BodyField<Long> MEMORY_BYTES =
            BodyField.integer(OPTIONAL, "memory_bytes", Resources.MIN_MEMORY_BYTES, Resources.MAX_MEMORY_BYTES);
    private static final BodyField<Long> GPUS = BodyField.integer(OPTIONAL, "gpus", 0, Resources.MAX_GPUS);
    /** A Kubernetes label value: the nodes' {@code nvidia.com/gpu.product} label the pods are placed by. */
    private static final BodyField<String> GPU_TYPE = BodyField.text(OPTIONAL, "gpu_type", 63)
            .matching(
                    Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?"),
                    "must be a GPU model as NVIDIA's GPU feature discovery labels nodes (nvidia.com/gpu.product), "
                            + "such as NVIDIA-L4: letters, digits, '-', '_' and '.', at most 63 characters");

    private static final BodyField.Group RESOURCES =
            BodyField.group(OPTIONAL, "resources", BodySpec.closed("resources", CPU, MEMORY_BYTES, GPUS, GPU_TYPE));

    static final BodySpec CREATE = BodySpec.closed(
            "a deployment", PROJECT_ID, NAME, MODEL_ID, CLUSTER_ID, REPLICAS, AUTO_SCALING, RATE_LIMIT, RESOURCES);
    static final BodySpec CHANGE =
            BodySpec.closed("a deployment's change", PROJECT_ID, REPLICAS, AUTO_SCALING, RATE_LIMIT, RESOURCES);

    private static final QueryParam PROJECT_QUERY = new QueryParam(
            CurrentProject.FIELD,
            Schema.string(),
            "Only this project's deployments (X-Project-Id when left out); without either, every deployment the "
                    + "token may see.");
    private static final QueryParam WAIT_QUERY = new QueryParam(
            "wait",
            Schema.integer(0, MAX_WAIT_SECONDS),
            "Wait up to this many seconds for the deployment's work to settle (running or failed) before answering.");

    private final Deployments deployments;
    private final Access access;
    private final EventStreams streams;

    DeploymentRoutes(Deployments deployments, Access access, EventStreams streams) {
        this.deployments = requireNonNull(deployments, "deployments");
        this.access = requireNonNull(access, "access");
        this.streams = requireNonNull(streams, "streams");
    }

    /** The routes; a delete asks {@code referrers} (the routers) whether the deployment is in use. */
    void addTo(Routes routes, Referrers referrers) {
        var guard = new ReferenceGuard(referrers);
        routes.group("deployments")
                .post(
                        "/deployments",
                        "Deploy a model in the current project (an admin naming none deploys it in no project): "
                                + "answered at once (pending), its replicas or pods start in the background",
                        this::create)
                .body(CREATE.schema())
                .header(CurrentProject.HEADER)
                .accepted(ApiShapes.DEPLOYMENT)
                .get("/deployments", "The deployments of the current project, newest first", this::list)
                .query(PROJECT_QUERY)
                .header(CurrentProject.HEADER)
                .ok(Schema.list(ApiShapes.DEPLOYMENT))
                .get("/deployments/{deployment_id}", "A deployment, its status and progress", this::get)
                .query(WAIT_QUERY)
                .header(CurrentProject.HEADER)
                .ok(ApiShapes.DEPLOYMENT)
                .patch(
                        "/deployments/{deployment_id}",
                        "Change a deployment's replicas (scaling until they are ready), autoscaling, rate limit or "
                                + "resources (null turns any of these three off; new resources deploy it again)",
                        this::change)
                .body(CHANGE.schema())
                .header(CurrentProject.HEADER)
                .accepted(ApiShapes.DEPLOYMENT)
                .delete(
                        "/deployments/{deployment_id}",
                        "Stop a deployment and remove it; refused while an active router sends requests to it, "
                                + "unless ?force=true makes those routers inactive",
                        ctx -> delete(ctx, guard))
                .query(ReferenceGuard.FORCE)
                .header(CurrentProject.HEADER)
                .ok(Schema.deleted("deployment"))
                .get(
                        "/deployments/{deployment_id}/events",
                        "Follow a deployment (server-sent events): its state first, then each change, until its "
                                + "work settles or it is deleted",
                        this::events)
                .header(CurrentProject.HEADER)
                .answers(200, "text/event-stream", Schema.string());
    }

    private void create(Context ctx) {
        ObjectNode body = Requests.jsonObject(ctx);
        BodyReader reader = CREATE.reader(body);
        Problems problems = reader.problems();
        Optional<String> projectField = PROJECT_ID.read(reader);
        Optional<ProjectId> project = access.currentProject().named(ctx, projectField);
        if (project.isEmpty() && !Access.principal(ctx).isAdmin()) {
            // a member's deployment is in one of its projects; only an admin makes one in none
            project = Optional.of(access.currentProject().required(ctx, projectField));
        }
        Optional<String> name = NAME.read(reader);
        Optional<String> model = MODEL_ID.read(reader);
        String cluster = CLUSTER_ID.read(reader).orElse(Clusters.LOCAL);
        int replicas = REPLICAS.read(reader).map(Long::intValue).orElse(1);
        Optional<ReplicaSet.Autoscaling> autoScaling = autoScaling(reader, Optional.of(replicas));
        Optional<RateLimiter.Limit> rateLimit = rateLimit(reader);
        Optional<Resources> resources = resources(reader);
        problems.throwIfAny();
        Deployment deployment = deployments.create(new Deployments.NewDeployment(
                project.map(ProjectId::value),
                name.orElseThrow(),
                model.orElseThrow(),
                cluster,
                new Deployment.Spec(replicas, autoScaling, rateLimit, resources)));
        ctx.header("location", "/deployments/" + deployment.id());
        Responses.json(ctx, 202, json(deployment, Optional.empty()));
    }

    private void list(Context ctx) {
        Principal principal = Access.principal(ctx);
        Optional<Set<String>> projects = access.currentProject()
                .named(ctx, PROJECT_QUERY.read(ctx))
                .<Optional<Set<String>>>map(p -> Optional.of(Set.of(p.value())))
                .orElseGet(() -> principal.isAdmin() ? Optional.empty() : Optional.of(principal.projects()));
        List<Deployment> all = deployments.list(projects);
        Responses.ok(
                ctx,
                Responses.list(
                        all.stream().map(d -> json(d, Optional.empty())).toList(),
                        all.stream().map(Deployment::id).toList(),
                        false));
    }

    private void get(Context ctx) throws InterruptedException {
        Deployment deployment = visible(ctx, Optional.empty());
        Optional<String> wait = WAIT_QUERY.read(ctx);
        if (wait.isPresent()) {
            int seconds = seconds(wait.get());
            deployment = deployments
                    .await(deployment.id(), Duration.ofSeconds(seconds))
                    .orElseThrow(() -> DeploymentStore.notFound(ctx.pathParam(DEPLOYMENT_ID), false));
        }
        Responses.ok(ctx, json(deployment, deployments.replicas(deployment.id())));
    }

    private void change(Context ctx) {
        ObjectNode body = Requests.jsonObject(ctx);
        BodyReader reader = CHANGE.reader(body);
        Problems problems = reader.problems();
        Deployment current = visible(ctx, PROJECT_ID.read(reader));
        Optional<Integer> replicas = REPLICAS.read(reader).map(Long::intValue);
        boolean scalingOff =
                body.has(AUTO_SCALING.name()) && body.get(AUTO_SCALING.name()).isNull();
        boolean limitOff =
                body.has(RATE_LIMIT.name()) && body.get(RATE_LIMIT.name()).isNull();
        Optional<ReplicaSet.Autoscaling> autoScaling =
                autoScaling(reader, Optional.of(replicas.orElse(current.spec().replicas())));
        Optional<RateLimiter.Limit> rateLimit = rateLimit(reader);
        Optional<Resources> resources = resources(reader);
        if (replicas.isPresent() && !body.has(AUTO_SCALING.name())) {
            current.spec().autoScaling().ifPresent(bounds -> checkWithin(replicas.get(), bounds, reader));
        }
        problems.throwIfAny();
        Deployment changed = current;
        if (body.has(RATE_LIMIT.name())) {
            changed = deployments.limit(changed, limitOff ? Optional.empty() : rateLimit);
        }
        if (body.has(AUTO_SCALING.name())) {
            changed = deployments.autoscale(changed, scalingOff ? Optional.empty() : autoScaling);
        }
        if (replicas.isPresent()
                && (replicas.get() != current.spec().replicas()
                        || current.state().status() == DeploymentStatus.FAILED)) {
            changed = deployments.scale(changed, replicas.get());
        }
        if (body.has(RESOURCES.name()) && !resources.equals(current.spec().resources())) {
            changed = deployments.reserve(changed, resources);
        }
        Responses.json(ctx, 202, json(changed, deployments.replicas(changed.id())));
    }

    private void delete(Context ctx, ReferenceGuard guard) {
        Deployment deployment = visible(ctx, Optional.empty());
        // routers name a deployment in their endpoint references by its id, as they name cloud models
        List<Warning> warnings = guard.beforeDelete(
                Referrers.Kind.MODEL,
                Set.of(deployment.id()),
                "deployment '" + deployment.name() + "'",
                "deployment_id",
                ReferenceGuard.WhenInUse.of(ctx));
        deployments.delete(deployment);
        Responses.ok(
                ctx,
                Map.of("id", deployment.id(), "object", "deployment.deleted", "deleted", true, "warnings", warnings));
    }

    /**
     * Follows a deployment: {@code deployment} (as {@code GET} shows it) first, then again at each change, and
     * {@code end} once its work settles (running or failed) or it is deleted. A deployment settled already is sent
     * once, then {@code end}.
     */
    private void events(Context ctx) throws IOException {
        Deployment deployment = visible(ctx, Optional.empty());
        EventStream stream = streams.open(ctx);
        Map<String, Object> last = json(deployment, Optional.empty());
        stream.send("deployment", last);
        stream.flush();
        try {
            while (stream.open() && !deployment.state().status().settled()) {
                Optional<Deployment> now = deployments.await(deployment.id(), Duration.ofSeconds(1));
                if (now.isEmpty()) {
                    stream.send("deleted", Map.of("id", deployment.id()));
                    break;
                }
                deployment = now.get();
                Map<String, Object> json = json(deployment, Optional.empty());
                if (!json.equals(last)) {
                    stream.send("deployment", json);
                    stream.flush();
                    last = json;
                } else {
                    stream.keepAlive();
                }
            }
            stream.end();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // the client went away
        }
    }

    /** Reads the {@code auto_scaling} group; its bounds must hold {@code replicas}. */
    private static Optional<ReplicaSet.Autoscaling> autoScaling(BodyReader reader, Optional<Integer> replicas) {
        Optional<BodyReader> group = AUTO_SCALING.read(reader);
        if (group.isEmpty()) {
            return Optional.empty();
        }
        Optional<Long> min = MIN_REPLICAS.read(group.get());
        Optional<Long> max = MAX_REPLICAS.read(group.get());
        Optional<Long> target = TARGET_IN_FLIGHT.read(group.get());
        if (min.isEmpty() || max.isEmpty() || target.isEmpty()) {
            return Optional.empty();
        }
        if (min.get() > max.get()) {
            group.get()
                    .reject(
                            MIN_REPLICAS.name(),
                            ErrorCode.INVALID_FIELD,
                            "must not be above `auto_scaling.max_replicas` (" + max.get() + ")");
            return Optional.empty();
        }
        var bounds = new ReplicaSet.Autoscaling(
                min.get().intValue(), max.get().intValue(), target.get().intValue());
        replicas.ifPresent(asked -> checkWithin(asked, bounds, reader));
        return Optional.of(bounds);
    }

    private static void checkWithin(int replicas, ReplicaSet.Autoscaling bounds, BodyReader reader) {
        if (replicas < bounds.minReplicas() || replicas > bounds.maxReplicas()) {
            reader.reject(
                    REPLICAS.name(),
                    ErrorCode.INVALID_FIELD,
                    "must be within the autoscaling bounds, " + bounds.minReplicas() + " to " + bounds.maxReplicas());
        }
    }

    /** Reads the {@code resources} group: GPUs of a type need GPUs. Empty when left out or null. */
    private static Optional<Resources> resources(BodyReader reader) {
        Optional<BodyReader> group = RESOURCES.read(reader);
        if (group.isEmpty()) {
            return Optional.empty();
        }
        Optional<Double> cpu = CPU.read(group.get());
        Optional<Long> memory = MEMORY_BYTES.read(group.get());
        Optional<Long> gpusAsked = GPUS.read(group.get());
        int gpus = gpusAsked.map(Long::intValue).orElse(0);
        Optional<String> gpuType = GPU_TYPE.read(group.get());
        boolean gpusLeftOut = group.get().node(GPUS.name(), false).isEmpty();
        if (gpuType.isPresent() && (gpusLeftOut || gpusAsked.equals(Optional.of(0L)))) {
            group.get()
                    .reject(
                            GPU_TYPE.name(),
                            ErrorCode.INVALID_FIELD,
                            "names the type of the GPUs asked for: ask for `resources.gpus` above 0 with it");
        }
        return Optional.of(new Resources(cpu, memory, gpus, gpuType));
    }

    private static Optional<RateLimiter.Limit> rateLimit(BodyReader reader) {
        Optional<BodyReader> group = RATE_LIMIT.read(reader);
        if (group.isEmpty()) {
            return Optional.empty();
        }
        Optional<RateLimiter.Algorithm> algorithm = ALGORITHM.read(group.get()).flatMap(RateLimiter.Algorithm::of);
        Optional<Long> rate = RATE.read(group.get());
        Optional<RateLimiter.Window> window = WINDOW.read(group.get()).flatMap(RateLimiter.Window::of);
        if (algorithm.isEmpty() || rate.isEmpty() || window.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new RateLimiter.Limit(algorithm.get(), rate.get(), window.get()));
    }

    private static int seconds(String wait) {
        try {
            int seconds = Integer.parseInt(wait);
            if (seconds >= 0 && seconds <= MAX_WAIT_SECONDS) {
                return seconds;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw ApiException.of(
                ErrorCode.INVALID_PARAMETER,
                WAIT_QUERY.name(),
                "`wait` must be a whole number of seconds from 0 to " + MAX_WAIT_SECONDS + ".");
    }

    /**
     * The path's deployment, when it is in the current project (if one is named) and the caller may act in its
     * project; otherwise 404, as if there were none. One being deleted is gone already.
     */
    private Deployment visible(Context ctx, Optional<String> projectId) {
        Optional<ProjectId> current = access.currentProject().named(ctx, projectId);
        Principal principal = Access.principal(ctx);
        String id = ctx.pathParam(DEPLOYMENT_ID);
        return deployments
                .find(id)
                .filter(d -> d.state().status() != DeploymentStatus.DELETING)
                .filter(d -> d.projectId().map(principal::mayActIn).orElse(principal.isAdmin()))
                .filter(d -> current.map(p -> d.projectId().equals(Optional.of(p.value())))
                        .orElse(true))
                .orElseThrow(() -> DeploymentStore.notFound(id, current.isPresent()));
    }

    static Map<String, Object> json(RateLimiter.Limit limit) {
        var json = new LinkedHashMap<String, Object>();
        json.put("algorithm", limit.algorithm().wire());
        json.put("rate_limit", limit.requests());
        json.put("time_window", limit.window().wire());
        return json;
    }

    /** A deployment as the API shows it; {@code replicas_detail} when this server runs its replicas. */
    private Map<String, Object> json(Deployment deployment, Optional<ReplicaSet> replicas) {
        var json = new LinkedHashMap<String, Object>();
        json.put("id", deployment.id());
        json.put("object", "deployment");
        json.put("project_id", deployment.projectId().orElse(null));
        json.put("name", deployment.name());
        json.put("model_id", deployment.modelId());
        json.put("cluster_id", deployment.clusterId());
        json.put("replicas", deployment.spec().replicas());
        json.put("ready_replicas", deployment.state().readyReplicas());
        json.put(
                "auto_scaling",
                deployment
                        .spec()
                        .autoScaling()
                        .map(a -> Map.of(
                                "min_replicas", a.minReplicas(),
                                "max_replicas", a.maxReplicas(),
                                "target_in_flight", a.targetInFlight()))
                        .orElse(null));
        json.put(
                "rate_limit",
                deployment.spec().rateLimit().map(DeploymentRoutes::json).orElse(null));
        json.put("resources", deployment.spec().resources().map(Resources::json).orElse(null));
        json.put("status", deployment.state().status().wire());
        json.put("progress", deployment.progress());
        json.put("endpoint_url", deployments.endpoint(deployment).orElse(null));
        json.put("error", deployment.state().error().orElse(null));
        replicas.ifPresent(set -> json.put(
                "replicas_detail",
                set.replicas().stream()
                        .map(replica -> {
                            var item = new LinkedHashMap<String, Object>();
                            item.put("index", replica.index());
                            item.put("pid", replica.pid());
                            item.put("status", replica.status().name().toLowerCase(Locale.ROOT));
                            item.put("in_flight", replica.inFlight());
                            item.put("error", replica.error().orElse(null));
                            return item;
                        })
                        .toList()));
        json.put("created_at", deployment.createdAt().getEpochSecond());
        json.put("updated_at", deployment.updatedAt().getEpochSecond());
        return json;
    }
}
