package dev.arbor.studio.evals;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Warning;
import dev.arbor.platform.http.bodies.BodyReader;
import dev.arbor.platform.json.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code POST /v1/studio/evals} as sent and checked: what is measured (a template reference or an inline
 * definition), on which targets (model × version), over which labelled data set, and how. Every problem of the body
 * is reported at once.
 *
 * @param targets the targets as sent, in order (model-major when built from {@code models} × {@code versions}); an
 *     empty model or version means the template's own
 * @param questions the questions measured; empty: every question
 * @param store how history keeps the eval's decisions: {@code full}, {@code answers_only} or {@code none}
 */
record EvalRequest(
        Optional<String> template,
        Optional<ObjectNode> definition,
        List<Target> targets,
        DataSet dataSet,
        List<String> questions,
        double errorBudget,
        String store,
        List<Warning> warnings) {
    static final int MAX_TARGETS = 8;
    static final int MAX_HISTORY = 5000;
    static final int DEFAULT_HISTORY = 1000;
    static final int MAX_INLINE = 2000;
    /** The share of acting answers that may be wrong, when the request names none. */
    static final double DEFAULT_ERROR_BUDGET = 0.1;

    static final Set<String> STORE = Set.of("full", "answers_only", "none");

    EvalRequest {
        targets = List.copyOf(targets);
        questions = List.copyOf(questions);
        warnings = List.copyOf(warnings);
    }

    /** One model and version to run the items on; each empty when the template's own is meant. */
    record Target(Optional<String> model, Optional<String> version, String param) {
        Target {
            requireNonNull(model, "model");
            requireNonNull(version, "version");
            requireNonNull(param, "param");
        }
    }

    /** Where the labelled items come from. */
    sealed interface DataSet permits Examples, History, Inline {
        /** The request field that names it, for errors about it. */
        String param();

        /** The data set as the eval shows it. */
        ObjectNode json();
    }

    /** The template's current test examples, kept by split, tags (any of them) and ids. */
    record Examples(Optional<String> split, List<String> tags, List<String> ids) implements DataSet {
        Examples {
            requireNonNull(split, "split");
            tags = List.copyOf(tags);
            ids = List.copyOf(ids);
        }

        @Override
        public String param() {
            return "examples";
        }

        @Override
        public ObjectNode json() {
            ObjectNode json = Json.object().put("kind", "examples");
            json.put("split", split.orElse(null));
            tags.forEach(json.putArray("tags")::add);
            ids.forEach(json.putArray("ids")::add);
            return json;
        }
    }

    /** Decisions in history with feedback labels, found by a history filter, newest first, at most {@code limit}. */
    record History(Map<String, String> filter, int limit) implements DataSet {
        History {
            filter = Map.copyOf(filter);
        }

        @Override
        public String param() {
            return "history";
        }

        @Override
        public ObjectNode json() {
            ObjectNode json = Json.object().put("kind", "history");
            ObjectNode shown = json.putObject("filter");
            filter.forEach(shown::put);
            json.put("limit", limit);
            json.put("labels", "feedback");
            return json;
        }
    }

    /** Items sent with the request: each an input and its labels. */
    record Inline(ArrayNode items) implements DataSet {
        Inline {
            items = items.deepCopy();
        }

        @Override
        public String param() {
            return "inline.items";
        }

        @Override
        public ObjectNode json() {
            return Json.object().put("kind", "inline").put("items", items.size());
        }
    }

    static EvalRequest parse(ObjectNode body) {
        var reader = BodyReader.of(body);
        Optional<String> template = reader.string("template", false, 300);
        Optional<ObjectNode> definition = reader.node("definition", false).flatMap(node -> {
            if (!node.isObject() || !node.path("questions").isObject()) {
                reader.reject("definition", ErrorCode.INVALID_FIELD, "must be an object with `questions`");
                return Optional.empty();
            }
            return Optional.of((ObjectNode) node);
        });
        if (template.isPresent() && body.has("definition")) {
            reader.reject("definition", ErrorCode.INVALID_FIELD, "cannot be sent with `template`; send one of them");
        } else if (template.isEmpty() && !body.has("definition") && !body.has("template")) {
            reader.reject(
                    "template",
                    ErrorCode.MISSING_FIELD,
                    "is required: a template reference (id, id@version or id@alias), or send `definition`");
        }
        List<Target> targets = targets(reader, body, body.has("definition") && !body.has("template"));
        DataSet dataSet = dataSet(reader, body).orElse(null);
        List<String> questions = reader.strings("questions", false, 128, 64).orElse(List.of());
        double budget = DEFAULT_ERROR_BUDGET;
        Optional<JsonNode> budgetNode = reader.node("error_budget", false);
        if (budgetNode.isPresent()) {
            double sent = budgetNode.get().asDouble();
            if (!budgetNode.get().isNumber() || !(sent > 0 && sent < 1)) {
                reader.reject("error_budget", ErrorCode.INVALID_FIELD, "must be a number between 0 and 1 (exclusive)");
            } else {
                budget = sent;
            }
        }
        String store = reader.string("store", false, 20).orElse("answers_only");
        if (!STORE.contains(store)) {
            reader.reject("store", ErrorCode.INVALID_FIELD, "must be full, answers_only or none");
        }
        List<Warning> warnings = reader.finish();
        return new EvalRequest(
                template, definition, targets, requireNonNull(dataSet), questions, budget, store, warnings);
    }

    private static List<Target> targets(BodyReader reader, ObjectNode body, boolean inline) {
        boolean explicit = body.has("targets");
        if (explicit && (body.has("models") || body.has("versions"))) {
            reader.reject("targets", ErrorCode.INVALID_FIELD, "cannot be sent with `models` or `versions`");
            return List.of();
        }
        if (explicit) {
            JsonNode sent = body.get("targets");
            reader.node("targets", false);
            if (!sent.isArray() || sent.isEmpty() || sent.size() > MAX_TARGETS) {
                reader.reject("targets", ErrorCode.INVALID_FIELD, "must be a list of 1 to " + MAX_TARGETS + " targets");
                return List.of();
            }
            var targets = new ArrayList<Target>();
            for (int i = 0; i < sent.size(); i++) {
                String param = ParamPath.index("targets", i);
                JsonNode target = sent.get(i);
                if (!target.isObject()) {
                    reader.rejectItem("targets", i, ErrorCode.INVALID_FIELD, "must be an object {model, version}");
                    continue;
                }
                Optional<String> model = text(target.get("model"));
                Optional<String> version = version(target.get("version"));
                if (target.has("model") && !target.get("model").isNull() && model.isEmpty()) {
                    reader.reject(param + ".model", ErrorCode.INVALID_FIELD, "must be a model id");
                }
                if (target.has("version") && !target.get("version").isNull() && version.isEmpty()) {
                    reader.reject(param + ".version", ErrorCode.INVALID_FIELD, "must be a version number or alias");
                }
                if (inline && version.isPresent()) {
                    reader.reject(
                            param + ".version", ErrorCode.INVALID_FIELD, "has no meaning for an inline definition");
                }
                targets.add(new Target(model, version, param));
            }
            return targets;
        }
        List<String> models = reader.strings("models", false, MAX_TARGETS, 200).orElse(List.of());
        var versions = new ArrayList<Optional<String>>();
        JsonNode sentVersions = body.get("versions");
        if (sentVersions != null) {
            reader.node("versions", false);
            if (inline) {
                reader.reject("versions", ErrorCode.INVALID_FIELD, "has no meaning for an inline definition");
            } else if (!sentVersions.isArray() || sentVersions.isEmpty() || sentVersions.size() > MAX_TARGETS) {
                reader.reject(
                        "versions",
                        ErrorCode.INVALID_FIELD,
                        "must be a list of 1 to " + MAX_TARGETS + " version numbers or aliases");
            } else {
                for (int i = 0; i < sentVersions.size(); i++) {
                    Optional<String> version = version(sentVersions.get(i));
                    if (version.isEmpty()) {
                        reader.rejectItem("versions", i, ErrorCode.INVALID_FIELD, "must be a version number or alias");
                    }
                    versions.add(version);
                }
            }
        }
        if (versions.isEmpty()) {
            versions.add(Optional.empty());
        }
        var modelChoices = new ArrayList<Optional<String>>();
        models.forEach(m -> modelChoices.add(Optional.of(m)));
        if (modelChoices.isEmpty()) {
            modelChoices.add(Optional.empty());
        }
        if (modelChoices.size() * versions.size() > MAX_TARGETS) {
            reader.reject(
                    "models",
                    ErrorCode.INVALID_FIELD,
                    "× `versions` makes " + modelChoices.size() * versions.size() + " targets; at most " + MAX_TARGETS
                            + " may run at once");
            return List.of();
        }
        var targets = new ArrayList<Target>();
        for (int m = 0; m < modelChoices.size(); m++) {
            for (Optional<String> version : versions) {
                targets.add(new Target(
                        modelChoices.get(m),
                        version,
                        modelChoices.get(m).isPresent() ? ParamPath.index("models", m) : "versions"));
            }
        }
        return targets;
    }

    private static Optional<String> text(JsonNode node) {
        return node != null
                        && node.isTextual()
                        && !node.textValue().isBlank()
                        && node.textValue().length() <= 200
                ? Optional.of(node.textValue())
                : Optional.empty();
    }

    private static Optional<String> version(JsonNode node) {
        if (node != null && node.isIntegralNumber() && node.asLong() >= 1 && node.asLong() <= Integer.MAX_VALUE) {
            return Optional.of(Long.toString(node.asLong()));
        }
        return text(node).filter(v -> v.length() <= 64);
    }

    private static Optional<DataSet> dataSet(BodyReader reader, ObjectNode body) {
        List<String> sent = List.of("examples", "history", "inline").stream()
                .filter(body::has)
                .toList();
        if (sent.isEmpty()) {
            reader.reject(
                    "examples",
                    ErrorCode.MISSING_FIELD,
                    "is required: name the data set as `examples` {tags, split, ids}, `history` {filter, limit, "
                            + "labels} or `inline` {items}");
            return Optional.empty();
        }
        if (sent.size() > 1) {
            reader.reject(
                    sent.get(1), ErrorCode.INVALID_FIELD, "cannot be sent with `" + sent.get(0) + "`: one data set");
            return Optional.empty();
        }
        return switch (sent.getFirst()) {
            case "examples" ->
                reader.object("examples", true).map(examples -> {
                    Optional<String> split = examples.string("split", false, 20);
                    split.filter(s -> !s.equals("test") && !s.equals("calibration"))
                            .ifPresent(s ->
                                    examples.reject("split", ErrorCode.INVALID_FIELD, "must be test or calibration"));
                    return new Examples(
                            split,
                            examples.strings("tags", false, 64, 64).orElse(List.of()),
                            examples.strings("ids", false, 5000, 64).orElse(List.of()));
                });
            case "history" ->
                reader.object("history", true).map(history -> {
                    var filter = new LinkedHashMap<String, String>();
                    history.node("filter", false).ifPresent(node -> {
                        if (!node.isObject()) {
                            history.reject("filter", ErrorCode.INVALID_FIELD, "must be an object of history filters");
                            return;
                        }
                        node.properties().forEach(e -> {
                            if (e.getValue().isValueNode() && !e.getValue().isNull()) {
                                filter.put(e.getKey(), e.getValue().asText());
                            } else {
                                history.reject(
                                        ParamPath.key("filter", e.getKey()),
                                        ErrorCode.INVALID_FIELD,
                                        "must be a text, number or boolean, as in the history's query string");
                            }
                        });
                    });
                    int limit = history.integer("limit", false, 1, MAX_HISTORY)
                            .map(Long::intValue)
                            .orElse(DEFAULT_HISTORY);
                    history.string("labels", false, 20)
                            .filter(labels -> !labels.equals("feedback"))
                            .ifPresent(labels -> history.reject(
                                    "labels", ErrorCode.INVALID_FIELD, "must be feedback (the labels history keeps)"));
                    return new History(filter, limit);
                });
            default ->
                reader.object("inline", true).flatMap(inline -> {
                    JsonNode items = inline.node("items", true).orElse(null);
                    if (items == null) {
                        return Optional.empty();
                    }
                    if (!items.isArray() || items.isEmpty() || items.size() > MAX_INLINE) {
                        inline.reject(
                                "items", ErrorCode.INVALID_FIELD, "must be a list of 1 to " + MAX_INLINE + " items");
                        return Optional.empty();
                    }
                    for (int i = 0; i < items.size(); i++) {
                        JsonNode item = items.get(i);
                        if (!item.isObject() || !item.path("expected").isObject()) {
                            inline.rejectItem(
                                    "items",
                                    i,
                                    ErrorCode.INVALID_FIELD,
                                    "must be an object with the input (`state` or `variables`) and `expected` labels");
                        } else if (item.has("split")
                                && !List.of("test", "calibration")
                                        .contains(item.path("split").asText())) {
                            inline.reject(
                                    ParamPath.index("items", i) + ".split",
                                    ErrorCode.INVALID_FIELD,
                                    "must be test or calibration");
                        }
                    }
                    return Optional.of(new Inline((ArrayNode) items));
                });
        };
    }
}
