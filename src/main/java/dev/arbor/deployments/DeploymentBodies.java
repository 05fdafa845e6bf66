package dev.arbor.deployments;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static dev.arbor.platform.http.bodies.BodyField.Presence.REQUIRED;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.access.CurrentProject;
import dev.arbor.clusters.Clusters;
import dev.arbor.models.engines.ReplicaSet;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodyReader;
import dev.arbor.platform.http.bodies.BodySpec;
import dev.arbor.platform.ratelimits.RateLimiter;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The bodies of a deployment's create and change: their fields, declared once, and the rules between fields (the
 * replicas within the autoscaling bounds, the lower bound not above the upper, GPUs of a type only with GPUs). Each
 * read reports every problem of the body at once.
 */
final class DeploymentBodies {
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

    private DeploymentBodies() {}

    /** The project the body names, read first: which project the request acts in decides what else may follow. */
    static Optional<String> projectId(BodyReader reader) {
        return PROJECT_ID.read(reader);
    }

    /** The rest of a create's body, for a deployment in {@code projectId} (none: an admin's outside every project). */
    static Deployments.NewDeployment create(BodyReader reader, Optional<String> projectId) {
        Optional<String> name = NAME.read(reader);
        Optional<String> model = MODEL_ID.read(reader);
        String cluster = CLUSTER_ID.read(reader).orElse(Clusters.LOCAL);
        int replicas = REPLICAS.read(reader).map(Long::intValue).orElse(1);
        Optional<ReplicaSet.Autoscaling> autoScaling = autoScaling(reader, Optional.of(replicas));
        Optional<RateLimiter.Limit> rateLimit = rateLimit(reader);
        Optional<Resources> resources = resources(reader);
        reader.problems().throwIfAny();
        return new Deployments.NewDeployment(
                projectId,
                name.orElseThrow(),
                model.orElseThrow(),
                cluster,
                new Deployment.Spec(replicas, autoScaling, rateLimit, resources));
    }

    /**
     * The rest of a change's body to {@code current}: a group sent as null turns that setting off, and replicas
     * sent alone must stay within the deployment's autoscaling bounds.
     */
    static DeploymentChange change(ObjectNode body, BodyReader reader, Deployment current) {
        Optional<Integer> replicas = REPLICAS.read(reader).map(Long::intValue);
        Optional<ReplicaSet.Autoscaling> autoScaling =
                autoScaling(reader, Optional.of(replicas.orElse(current.spec().replicas())));
        Optional<RateLimiter.Limit> rateLimit = rateLimit(reader);
        Optional<Resources> resources = resources(reader);
        if (replicas.isPresent() && !body.has(AUTO_SCALING.name())) {
            current.spec().autoScaling().ifPresent(bounds -> checkWithin(replicas.get(), bounds, reader));
        }
        reader.problems().throwIfAny();
        return new DeploymentChange(
                replicas,
                sent(body, AUTO_SCALING, autoScaling),
                sent(body, RATE_LIMIT, rateLimit),
                sent(body, RESOURCES, resources));
    }

    /** {@code read} when the body has the field (empty when it was null), else empty: the field was not sent. */
    private static <T> Optional<Optional<T>> sent(ObjectNode body, BodyField<?> field, Optional<T> read) {
        return body.has(field.name()) ? Optional.of(read) : Optional.empty();
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
}
