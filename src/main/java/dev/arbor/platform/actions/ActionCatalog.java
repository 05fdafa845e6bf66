package dev.arbor.platform.actions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The actions the steps of a graph may use (a pipeline's, a router's), read from a catalog shipped with the server:
 * each with its parameters (types and checks) and the outputs later steps may refer to. An action not in the catalog
 * is an error, never a step that pretends to run.
 */
public final class ActionCatalog {

    /**
     * One action: what it is for, how an editor shows it, its parameters, and its outputs.
     *
     * @param outputNamedBy the parameter whose value names the action's one output (a pipeline's Set Output)
     * @param terminal whether a step of it may end a graph: for routers, the action selects an endpoint or answers
     */
    public record Action(
            String type,
            String name,
            String category,
            String description,
            String icon,
            String color,
            List<ParamSpec> params,
            List<String> outputs,
            Optional<String> outputNamedBy,
            boolean terminal) {
        public Action {
            requireNonNull(type, "type");
            params = List.copyOf(params);
            outputs = List.copyOf(outputs);
        }

        public Optional<ParamSpec> param(String name) {
            return params.stream().filter(p -> p.name().equals(name)).findFirst();
        }

        /** Whether the action gives this output; a Set Output step gives the one its {@code key} names. */
        public boolean gives(String output, JsonNode params) {
            return outputs.contains(output)
                    || outputNamedBy
                            .map(p -> output.equals(params.path(p).asText(null)))
                            .orElse(false);
        }
    }

    public record Category(String id, String name) {}

    private final List<Category> categories;
    private final Map<String, Action> actions;

    private ActionCatalog(List<Category> categories, Map<String, Action> actions) {
        this.categories = List.copyOf(categories);
        this.actions = Map.copyOf(actions);
    }

    /** A catalog shipped with the server ({@code /catalog/...json}); a malformed entry stops the start. */
    public static ActionCatalog load(String resource) {
        JsonNode json;
        try (InputStream in = requireNonNull(ActionCatalog.class.getResourceAsStream(resource), resource)) {
            json = Json.read(in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        var categories = new ArrayList<Category>();
        json.path("categories")
                .forEach(c -> categories.add(
                        new Category(c.path("id").asText(), c.path("name").asText())));
        Set<String> categoryIds =
                Set.copyOf(categories.stream().map(Category::id).toList());
        var actions = new LinkedHashMap<String, Action>();
        for (JsonNode entry : json.path("actions")) {
            var params = new ArrayList<ParamSpec>();
            entry.path("params").forEach(p -> params.add(ParamSpec.fromJson(p)));
            var outputs = new ArrayList<String>();
            entry.path("outputs").forEach(o -> outputs.add(o.asText()));
            var action = new Action(
                    entry.path("type").asText(),
                    entry.path("name").asText(),
                    entry.path("category").asText(),
                    entry.path("description").asText(),
                    entry.path("icon").asText(),
                    entry.path("color").asText(),
                    params,
                    outputs,
                    Optional.ofNullable(entry.path("output_named_by").textValue()),
                    entry.path("terminal").asBoolean());
            if (!categoryIds.contains(action.category())
                    || actions.put(action.type(), action) != null
                    || action.params().stream()
                            .anyMatch(p -> p.visibleWhen()
                                    .map(v -> action.param(v.param()).isEmpty())
                                    .orElse(false))) {
                throw new IllegalStateException(resource + ": action '" + action.type() + "' is invalid: " + entry);
            }
        }
        return new ActionCatalog(categories, actions);
    }

    public Optional<Action> find(String type) {
        return Optional.ofNullable(actions.get(type));
    }

    public List<String> types() {
        return List.copyOf(actions.keySet());
    }

    /**
     * Checks a step's params against its action: every parameter known, required ones present where they apply,
     * each value of its type and within its bounds, none given where it does not apply. Problems go at
     * {@code prefix.<name>}.
     */
    public void check(Action action, JsonNode params, String prefix, Problems problems, ParamRules rules) {
        if (!params.isObject()) {
            problems.add(ErrorCode.INVALID_FIELD, prefix, "`" + prefix + "` must be an object.");
            return;
        }
        for (var given : params.properties()) {
            if (action.param(given.getKey()).isEmpty()) {
                String at = ParamPath.key(prefix, given.getKey());
                problems.add(
                        ErrorCode.INVALID_FIELD,
                        at,
                        "`" + at + "` is not a parameter of " + action.type()
                                + " (its parameters: "
                                + String.join(
                                        ", ",
                                        action.params().stream()
                                                .map(ParamSpec::name)
                                                .toList()) + ").");
            }
        }
        for (ParamSpec spec : action.params()) {
            String at = ParamPath.key(prefix, spec.name());
            JsonNode value = params.get(spec.name());
            boolean present = value != null && !value.isNull();
            boolean applies = spec.visibleWhen().map(v -> v.holds(params)).orElse(true);
            if (present && !applies) {
                problems.add(
                        ErrorCode.INVALID_FIELD,
                        at,
                        "`" + at + "` applies only "
                                + spec.visibleWhen().orElseThrow().describe() + ".");
            } else if (present) {
                spec.check(value, at, problems, rules);
            } else if (spec.required() && applies) {
                problems.add(
                        ErrorCode.MISSING_FIELD,
                        at,
                        "`" + at + "` is required"
                                + spec.visibleWhen()
                                        .map(v -> " " + v.describe())
                                        .orElse("") + ".");
            }
        }
    }

    /**
     * Checks one action's params as {@code POST .../actions/validate} takes them, {@code {action_type, params}}: the
     * same checks a saved step gets, problems at {@code action_type} and {@code params.<name>}.
     */
    public void checkRequest(JsonNode body, Problems problems, ParamRules rules) {
        checkRequest(body, problems, (action, params, prefix, found) -> check(action, params, prefix, found, rules));
    }

    /** A known action's params checked: the catalog's {@link #check}, and what its user adds to it. */
    @FunctionalInterface
    public interface ParamsCheck {
        void check(Action action, JsonNode params, String prefix, Problems problems);
    }

    /** {@link #checkRequest(JsonNode, Problems, ParamRules)}, a known action's params checked by {@code check}. */
    public void checkRequest(JsonNode body, Problems problems, ParamsCheck check) {
        JsonNode type = body.path("action_type");
        if (!type.isTextual()) {
            problems.add(ErrorCode.MISSING_FIELD, "action_type", "`action_type` is required: an action's type.");
            return;
        }
        find(type.textValue())
                .ifPresentOrElse(
                        action -> check.check(
                                action, body.has("params") ? body.get("params") : Json.object(), "params", problems),
                        () -> problems.add(
                                ErrorCode.INVALID_FIELD,
                                "action_type",
                                "`action_type` is '" + type.textValue() + "', which is not an action; the actions are "
                                        + String.join(", ", types()) + "."));
    }

    /** Problems as a validation answer lists them: {@code [{code, param, message}]}. */
    public static List<Map<String, Object>> errorsJson(Problems problems) {
        return problems.list().stream()
                .map(problem -> {
                    var json = new LinkedHashMap<String, Object>();
                    json.put("code", problem.code().code());
                    json.put("param", problem.param());
                    json.put("message", problem.message());
                    return (Map<String, Object>) json;
                })
                .toList();
    }

    /**
     * Params as a step runs with them: each one left out that applies and has a default gets it, and a number or
     * boolean a template gave to a text parameter becomes its text ({@code "{{ params.n }}"} as a log message).
     */
    public static ObjectNode forRun(Action action, ObjectNode params) {
        ObjectNode full = params.deepCopy();
        for (ParamSpec spec : action.params()) {
            JsonNode given = full.get(spec.name());
            boolean text = spec.type() == ParamSpec.Type.STRING || spec.type() == ParamSpec.Type.TEMPLATE;
            if (text && given != null && (given.isNumber() || given.isBoolean())) {
                full.put(spec.name(), given.asText());
            }
            if ((!full.has(spec.name()) || full.get(spec.name()).isNull())
                    && spec.defaultValue().isPresent()
                    && spec.visibleWhen().map(v -> v.holds(full)).orElse(true)) {
                full.set(spec.name(), spec.defaultValue().get());
            }
        }
        return full;
    }

    /** The catalog as its {@code GET .../actions} route shows it. */
    public Map<String, Object> toJson() {
        var data = new ArrayList<Map<String, Object>>();
        for (Action action : actions.values()) {
            var json = new LinkedHashMap<String, Object>();
            json.put("type", action.type());
            json.put("name", action.name());
            json.put("category", action.category());
            json.put("description", action.description());
            json.put("icon", action.icon());
            json.put("color", action.color());
            json.put(
                    "params",
                    action.params().stream().map(ActionCatalog::paramJson).toList());
            json.put("outputs", action.outputs());
            action.outputNamedBy().ifPresent(p -> json.put("output_named_by", p));
            if (action.terminal()) {
                json.put("terminal", true);
            }
            data.add(json);
        }
        var categoryJson = categories.stream()
                .map(c -> Map.<String, Object>of(
                        "id",
                        c.id(),
                        "name",
                        c.name(),
                        "actions",
                        actions.values().stream()
                                .filter(a -> a.category().equals(c.id()))
                                .map(Action::type)
                                .toList()))
                .toList();
        return Map.of("object", "list", "categories", categoryJson, "data", data);
    }

    private static Map<String, Object> paramJson(ParamSpec spec) {
        var json = new LinkedHashMap<String, Object>();
        json.put("name", spec.name());
        json.put("type", spec.type().wire());
        json.put("required", spec.required());
        spec.defaultValue().ifPresent(d -> json.put("default", d));
        json.put("description", spec.description());
        if (!spec.options().isEmpty()) {
            json.put("options", spec.options());
        }
        var validation = new LinkedHashMap<String, Object>();
        spec.min().ifPresent(v -> validation.put("min", v));
        spec.max().ifPresent(v -> validation.put("max", v));
        if (spec.integer()) {
            validation.put("integer", true);
        }
        spec.minLength().ifPresent(v -> validation.put("min_length", v));
        spec.maxLength().ifPresent(v -> validation.put("max_length", v));
        spec.pattern().ifPresent(p -> validation.put("pattern", p.pattern()));
        spec.maxItems().ifPresent(v -> validation.put("max_items", v));
        if (!validation.isEmpty()) {
            json.put("validation", validation);
        }
        spec.visibleWhen().ifPresent(v -> {
            var visible = new LinkedHashMap<String, Object>();
            visible.put("param", v.param());
            v.equalsValue().ifPresent(e -> visible.put("equals", e));
            v.notEquals().ifPresent(e -> visible.put("not_equals", e));
            json.put("visible_when", visible);
        });
        return json;
    }
}
