package dev.arbor.pipelines.definitions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.actions.ActionCatalog;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.json.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A pipeline as written: declared parameters, a directed acyclic graph of steps, and outputs worked out from them.
 * {@link #read} takes a request body and reports every problem of it at once (see {@link GraphCheck} for the graph).
 */
public record PipelineDefinition(
        String name,
        String description,
        List<Parameter> parameters,
        List<Step> steps,
        Map<String, String> outputs,
        int timeoutSeconds,
        OptionalInt maxConcurrentRuns,
        int priority) {
    static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");
    static final int MAX_STEPS = 500;
    /** How long a run may take unless its definition says otherwise: a day. */
    static final int DEFAULT_TIMEOUT_SECONDS = 86_400;

    public static final int MAX_TIMEOUT_SECONDS = 30 * 86_400;
    /** How a time limit out of range is refused, in a definition and when a run starts. */
    public static final String TIMEOUT_REFUSAL = "must be an integer from 1 to " + MAX_TIMEOUT_SECONDS + " (30 days)";

    /** The most runs of one pipeline that may run at once, when it sets a limit. */
    public static final int MAX_CONCURRENT_RUNS = 1_000;
    /** Priorities go from {@code -PRIORITY_RANGE} to {@code PRIORITY_RANGE}; 0 unless set. */
    public static final int PRIORITY_RANGE = 100;

    private static final Set<String> FIELDS = Set.of(
            "name",
            "description",
            "parameters",
            "steps",
            "outputs",
            "timeout_seconds",
            "max_concurrent_runs",
            "priority");
    private static final Set<String> STEP_FIELDS = Set.of(
            "id", "name", "action", "params", "depends_on", "condition", "retry", "timeout_seconds", "on_failure");
    private static final Set<String> PARAMETER_TYPES = Set.of(
            "string",
            "number",
            "integer",
            "boolean",
            "array",
            "object",
            "model_ref",
            "cluster_ref",
            "project_ref",
            "endpoint_ref",
            "credential_ref");

    /** A run parameter: {@code {{ params.<name> }}} in templates. */
    record Parameter(String name, String type, boolean required, Optional<JsonNode> defaultValue, String description) {}

    public enum OnFailure {
        FAIL,
        CONTINUE
    }

    /** Attempts after a failure, waiting {@code backoffSeconds × multiplier^n}, at most {@code maxBackoffSeconds}. */
    public record Retry(int maxAttempts, int backoffSeconds, double backoffMultiplier, int maxBackoffSeconds) {}

    public record Step(
            String id,
            String name,
            String action,
            ObjectNode params,
            List<String> dependsOn,
            Optional<String> condition,
            Optional<Retry> retry,
            OptionalInt timeoutSeconds,
            OnFailure onFailure) {
        public Step {
            requireNonNull(id, "id");
            dependsOn = List.copyOf(dependsOn);
        }
    }

    public PipelineDefinition {
        requireNonNull(name, "name");
        parameters = List.copyOf(parameters);
        steps = List.copyOf(steps);
        outputs = Map.copyOf(outputs);
    }

    /** A definition stored after it was checked, such as a run's copy. */
    public static PipelineDefinition stored(JsonNode json, ActionCatalog catalog) {
        var problems = new Problems();
        return read(json, catalog, problems)
                .orElseThrow(() -> new IllegalStateException(
                        "a stored pipeline definition no longer passes its checks: " + problems.list()));
    }

    public Step step(String id) {
        return steps.stream()
                .filter(step -> step.id().equals(id))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no step " + id));
    }

    /**
     * A run's time limit in seconds, when one is given: a whole number from 1 to {@link #MAX_TIMEOUT_SECONDS}.
     */
    static OptionalInt timeoutSeconds(JsonNode json, String param, Problems problems) {
        if (json.isMissingNode() || json.isNull()) {
            return OptionalInt.empty();
        }
        if (!json.isIntegralNumber()
                || !json.canConvertToInt()
                || json.asInt() < 1
                || json.asInt() > MAX_TIMEOUT_SECONDS) {
            invalid(problems, param, TIMEOUT_REFUSAL);
            return OptionalInt.empty();
        }
        return OptionalInt.of(json.asInt());
    }

    /** Reads and checks a definition; every problem goes to {@code problems}, and nothing is returned with any. */
    public static Optional<PipelineDefinition> read(JsonNode body, ActionCatalog catalog, Problems problems) {
        if (!body.isObject()) {
            problems.add(ErrorCode.INVALID_JSON, null, "A pipeline is a JSON object.");
            return Optional.empty();
        }
        problems.unknownFields(body, FIELDS, null, "a pipeline");
        String name = text(body, "name", null, true, 200, problems).orElse("");
        String description =
                text(body, "description", null, false, 2000, problems).orElse("");
        List<Parameter> parameters = parameters(body.path("parameters"), problems);
        List<Step> steps = steps(body.get("steps"), problems);
        var outputs = new LinkedHashMap<String, String>();
        JsonNode outputsJson = body.path("outputs");
        if (!outputsJson.isMissingNode() && !outputsJson.isNull() && !outputsJson.isObject()) {
            invalid(problems, "outputs", "must be an object of names and templates");
        }
        for (var output : outputsJson.properties()) {
            String at = ParamPath.key("outputs", output.getKey());
            if (!IDENTIFIER.matcher(output.getKey()).matches()) {
                invalid(problems, at, "must be named with letters, digits and _");
            } else if (!output.getValue().isTextual()
                    || output.getValue().textValue().length() > 10_000) {
                invalid(problems, at, "must be a template string of at most 10,000 characters");
            } else {
                outputs.put(output.getKey(), output.getValue().textValue());
            }
        }
        int timeout = timeoutSeconds(body.path("timeout_seconds"), "timeout_seconds", problems)
                .orElse(DEFAULT_TIMEOUT_SECONDS);
        OptionalInt maxConcurrentRuns = body.path("max_concurrent_runs").isMissingNode()
                        || body.path("max_concurrent_runs").isNull()
                ? OptionalInt.empty()
                : OptionalInt.of(whole(body, "max_concurrent_runs", null, 1, MAX_CONCURRENT_RUNS, 1, problems));
        int priority = whole(body, "priority", null, -PRIORITY_RANGE, PRIORITY_RANGE, 0, problems);
        var definition = new PipelineDefinition(
                name, description, parameters, steps, outputs, timeout, maxConcurrentRuns, priority);
        if (problems.isEmpty()) {
            new GraphCheck(definition, catalog, problems).run();
        }
        return problems.isEmpty() ? Optional.of(definition) : Optional.empty();
    }

    private static List<Parameter> parameters(JsonNode json, Problems problems) {
        var parameters = new ArrayList<Parameter>();
        if (json.isMissingNode() || json.isNull()) {
            return parameters;
        }
        if (!json.isArray() || json.size() > 100) {
            invalid(problems, "parameters", "must be an array of at most 100 parameters");
            return parameters;
        }
        var seen = new java.util.HashSet<String>();
        for (int i = 0; i < json.size(); i++) {
            String at = ParamPath.index("parameters", i);
            JsonNode entry = json.get(i);
            if (!entry.isObject()) {
                invalid(problems, at, "must be an object {name, type, required, default, description}");
                continue;
            }
            problems.unknownFields(
                    entry, Set.of("name", "type", "required", "default", "description"), at, "a parameter");
            Optional<String> name = text(entry, "name", at, true, 64, problems);
            name.filter(n -> !IDENTIFIER.matcher(n).matches())
                    .ifPresent(n -> invalid(
                            problems, at + ".name", "must start with a letter or _ and hold letters, digits and _"));
            name.filter(n -> !seen.add(n)).ifPresent(n -> invalid(problems, at + ".name", "repeats '" + n + "'"));
            String type = text(entry, "type", at, false, 20, problems).orElse("string");
            if (!PARAMETER_TYPES.contains(type)) {
                invalid(
                        problems,
                        at + ".type",
                        "must be one of "
                                + String.join(
                                        ", ", PARAMETER_TYPES.stream().sorted().toList()));
            }
            JsonNode required = entry.path("required");
            if (!required.isMissingNode() && !required.isBoolean()) {
                invalid(problems, at + ".required", "must be true or false");
            }
            Optional<JsonNode> defaultValue =
                    Optional.ofNullable(entry.get("default")).filter(d -> !d.isNull());
            defaultValue
                    .filter(d -> !fits(d, type))
                    .ifPresent(d -> invalid(problems, at + ".default", "must be of the parameter's type, " + type));
            parameters.add(new Parameter(
                    name.orElse(""),
                    type,
                    required.asBoolean(false),
                    defaultValue,
                    entry.path("description").asText("")));
        }
        return parameters;
    }

    private static List<Step> steps(JsonNode json, Problems problems) {
        var steps = new ArrayList<Step>();
        if (json == null || json.isNull()) {
            problems.add(ErrorCode.MISSING_FIELD, "steps", "`steps` is required: the steps of the pipeline.");
            return steps;
        }
        if (!json.isArray() || json.isEmpty() || json.size() > MAX_STEPS) {
            invalid(problems, "steps", "must be an array of 1 to " + MAX_STEPS + " steps");
            return steps;
        }
        for (int i = 0; i < json.size(); i++) {
            String at = ParamPath.index("steps", i);
            JsonNode entry = json.get(i);
            if (!entry.isObject()) {
                invalid(problems, at, "must be an object {id, action, params, depends_on, ...}");
                continue;
            }
            problems.unknownFields(entry, STEP_FIELDS, at, "a step");
            Optional<String> id = text(entry, "id", at, true, 64, problems);
            id.filter(s -> !IDENTIFIER.matcher(s).matches())
                    .ifPresent(
                            s -> invalid(
                                    problems,
                                    at + ".id",
                                    "must start with a letter or _ and hold letters, digits and _ (templates read steps.<id>)"));
            Optional<String> name = text(entry, "name", at, false, 200, problems);
            Optional<String> action = text(entry, "action", at, true, 64, problems);
            JsonNode params = entry.path("params");
            if (!params.isMissingNode() && !params.isNull() && !params.isObject()) {
                invalid(problems, at + ".params", "must be an object");
            }
            var dependsOn = new ArrayList<String>();
            JsonNode depends = entry.path("depends_on");
            if (!depends.isMissingNode() && !depends.isNull() && !depends.isArray()) {
                invalid(problems, at + ".depends_on", "must be an array of step ids");
            }
            for (int d = 0; depends.isArray() && d < depends.size(); d++) {
                if (!depends.get(d).isTextual()) {
                    invalid(problems, ParamPath.index(at + ".depends_on", d), "must be a step id");
                } else {
                    dependsOn.add(depends.get(d).textValue());
                }
            }
            Optional<String> condition = text(entry, "condition", at, false, 2000, problems);
            Optional<Retry> retry = retry(entry.path("retry"), at + ".retry", problems);
            OptionalInt timeout = OptionalInt.empty();
            JsonNode timeoutJson = entry.path("timeout_seconds");
            if (!timeoutJson.isMissingNode() && !timeoutJson.isNull()) {
                if (!timeoutJson.canConvertToInt()
                        || !timeoutJson.isIntegralNumber()
                        || timeoutJson.asInt() < 1
                        || timeoutJson.asInt() > 604_800) {
                    invalid(problems, at + ".timeout_seconds", "must be an integer from 1 to 604800 (a week)");
                } else {
                    timeout = OptionalInt.of(timeoutJson.asInt());
                }
            }
            String onFailure =
                    text(entry, "on_failure", at, false, 20, problems).orElse("fail");
            if (!onFailure.equals("fail") && !onFailure.equals("continue")) {
                invalid(problems, at + ".on_failure", "must be fail or continue");
            }
            steps.add(new Step(
                    id.orElse(""),
                    name.orElse(id.orElse("")),
                    action.orElse(""),
                    params.isObject() ? (ObjectNode) params : Json.object(),
                    dependsOn,
                    condition,
                    retry,
                    timeout,
                    onFailure.equals("continue") ? OnFailure.CONTINUE : OnFailure.FAIL));
        }
        return steps;
    }

    private static Optional<Retry> retry(JsonNode json, String at, Problems problems) {
        if (json.isMissingNode() || json.isNull()) {
            return Optional.empty();
        }
        if (!json.isObject()) {
            invalid(
                    problems,
                    at,
                    "must be an object {max_attempts, backoff_seconds, backoff_multiplier, " + "max_backoff_seconds}");
            return Optional.empty();
        }
        problems.unknownFields(
                json,
                Set.of("max_attempts", "backoff_seconds", "backoff_multiplier", "max_backoff_seconds"),
                at,
                "a retry");
        int attempts = whole(json, "max_attempts", at, 1, 10, 3, problems);
        int backoff = whole(json, "backoff_seconds", at, 0, 86_400, 10, problems);
        int maxBackoff = whole(json, "max_backoff_seconds", at, 0, 86_400, 3_600, problems);
        JsonNode multiplier = json.path("backoff_multiplier");
        double factor = 2;
        if (!multiplier.isMissingNode()) {
            if (!multiplier.isNumber() || multiplier.asDouble() < 1 || multiplier.asDouble() > 10) {
                invalid(problems, at + ".backoff_multiplier", "must be a number from 1 to 10");
            } else {
                factor = multiplier.asDouble();
            }
        }
        if (maxBackoff < backoff) {
            invalid(problems, at + ".max_backoff_seconds", "must be at least backoff_seconds");
        }
        return Optional.of(new Retry(attempts, backoff, factor, maxBackoff));
    }

    /**
     * A run's params: those given, each a declared parameter of its type; a parameter left out takes its default, or
     * is null when it has none and is not required.
     */
    public ObjectNode runParams(JsonNode given, Problems problems) {
        ObjectNode params = Json.object();
        if (!given.isMissingNode() && !given.isNull() && !given.isObject()) {
            invalid(problems, "params", "must be an object of the pipeline's parameters");
            return params;
        }
        Set<String> declared =
                new java.util.HashSet<>(parameters.stream().map(Parameter::name).toList());
        for (var field : given.properties()) {
            if (!declared.contains(field.getKey())) {
                invalid(
                        problems,
                        ParamPath.key("params", field.getKey()),
                        "is not a parameter of this pipeline"
                                + (declared.isEmpty()
                                        ? " (it has none)"
                                        : " (its parameters: "
                                                + String.join(
                                                        ", ",
                                                        parameters.stream()
                                                                .map(Parameter::name)
                                                                .toList()) + ")"));
            }
        }
        for (Parameter parameter : parameters) {
            String at = ParamPath.key("params", parameter.name());
            JsonNode value = given.get(parameter.name());
            if (value == null || value.isNull()) {
                if (parameter.defaultValue().isPresent()) {
                    params.set(parameter.name(), parameter.defaultValue().get());
                } else if (parameter.required()) {
                    problems.add(
                            ErrorCode.MISSING_FIELD,
                            at,
                            "`" + at + "` is required: a " + parameter.type()
                                    + (parameter.description().isBlank() ? "" : " (" + parameter.description() + ")")
                                    + ".");
                } else {
                    params.putNull(parameter.name());
                }
            } else if (!fits(value, parameter.type())) {
                invalid(problems, at, "must be of the parameter's type, " + parameter.type());
            } else {
                params.set(parameter.name(), value);
            }
        }
        return params;
    }

    /** Whether a default value is of a parameter's type (references are checked where they are given). */
    private static boolean fits(JsonNode value, String type) {
        return switch (type) {
            case "number" -> value.isNumber();
            case "integer" -> value.isIntegralNumber();
            case "boolean" -> value.isBoolean();
            case "array" -> value.isArray();
            case "object" -> value.isObject();
            default -> value.isTextual();
        };
    }

    /** The definition as it is stored and shown. */
    public ObjectNode toJson() {
        ObjectNode json = Json.object();
        json.put("name", name);
        json.put("description", description);
        var parametersJson = json.putArray("parameters");
        for (Parameter parameter : parameters) {
            ObjectNode p = parametersJson
                    .addObject()
                    .put("name", parameter.name())
                    .put("type", parameter.type())
                    .put("required", parameter.required());
            parameter.defaultValue().ifPresent(d -> p.set("default", d));
            p.put("description", parameter.description());
        }
        var stepsJson = json.putArray("steps");
        for (Step step : steps) {
            ObjectNode s = stepsJson
                    .addObject()
                    .put("id", step.id())
                    .put("name", step.name())
                    .put("action", step.action());
            s.set("params", step.params());
            step.dependsOn().forEach(s.putArray("depends_on")::add);
            if (step.dependsOn().isEmpty()) {
                s.putArray("depends_on");
            }
            step.condition().ifPresent(c -> s.put("condition", c));
            step.retry()
                    .ifPresent(r -> s.putObject("retry")
                            .put("max_attempts", r.maxAttempts())
                            .put("backoff_seconds", r.backoffSeconds())
                            .put("backoff_multiplier", r.backoffMultiplier())
                            .put("max_backoff_seconds", r.maxBackoffSeconds()));
            step.timeoutSeconds().ifPresent(t -> s.put("timeout_seconds", t));
            s.put("on_failure", step.onFailure().name().toLowerCase(java.util.Locale.ROOT));
        }
        ObjectNode outputsJson = json.putObject("outputs");
        outputs.forEach(outputsJson::put);
        json.put("timeout_seconds", timeoutSeconds);
        // written only when set, so that a definition without them reads back as it was saved
        maxConcurrentRuns.ifPresent(max -> json.put("max_concurrent_runs", max));
        if (priority != 0) {
            json.put("priority", priority);
        }
        return json;
    }

    private static Optional<String> text(
            JsonNode json, String field, @Nullable String at, boolean required, int maxLength, Problems problems) {
        JsonNode value = json.get(field);
        String param = ParamPath.key(at, field);
        if (value == null || value.isNull()) {
            if (required) {
                problems.add(ErrorCode.MISSING_FIELD, param, "`" + param + "` is required.");
            }
            return Optional.empty();
        }
        if (!value.isTextual()
                || (required && value.textValue().isBlank())
                || value.textValue().length() > maxLength) {
            invalid(
                    problems,
                    param,
                    "must be a" + (required ? " non-empty" : "") + " string of at most " + maxLength + " characters");
            return Optional.empty();
        }
        return Optional.of(value.textValue());
    }

    private static int whole(
            JsonNode json, String field, @Nullable String at, int min, int max, int fallback, Problems problems) {
        JsonNode value = json.path(field);
        if (value.isMissingNode() || value.isNull()) {
            return fallback;
        }
        if (!value.isIntegralNumber() || !value.canConvertToInt() || value.asInt() < min || value.asInt() > max) {
            invalid(problems, ParamPath.key(at, field), "must be an integer from " + min + " to " + max);
            return fallback;
        }
        return value.asInt();
    }

    public static void invalid(Problems problems, String param, String why) {
        problems.add(ErrorCode.INVALID_FIELD, param, "`" + param + "` " + why + ".");
    }
}
