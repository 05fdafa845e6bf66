package dev.arbor.studio.decisions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.models.Model;
import dev.arbor.models.ModelFacts;
import dev.arbor.models.ModelRuntime;
import dev.arbor.models.Models;
import dev.arbor.models.Scoring;
import dev.arbor.platform.http.ApiException;
import dev.arbor.platform.http.ErrorCode;
import dev.arbor.platform.http.Json;
import dev.arbor.platform.http.ParamPath;
import dev.arbor.platform.http.Problems;
import dev.arbor.platform.http.Warning;
import dev.arbor.platform.http.WarningCode;
import dev.arbor.studio.files.StudioFile;
import dev.arbor.studio.files.StudioFiles;
import dev.arbor.studio.history.StoreLevel;
import dev.arbor.studio.questions.Primitives;
import dev.arbor.studio.questions.Question;
import dev.arbor.studio.settings.StudioSettings;
import dev.arbor.studio.templates.Substitution;
import dev.arbor.studio.templates.Templates;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Steps one to eight of every decision, whatever route it came by: resolve the template, fill in the variables,
 * build the questions (skips, added options, extra questions), choose the model, settle the settings, and check
 * that the model can run it, all before any model is loaded. Every problem of the pass is reported at once.
 */
final class Planner {
    /** The model a decision runs on when it names none and none is loaded: bundled, so it needs no download. */
    static final String DEFAULT_MODEL = "minilm-decider";

    static final int MAX_QUESTIONS = 128;

    private final Templates templates;
    private final Models models;
    private final ModelRuntime runtime;
    private final byte[] hmacKey;
    private final StudioSettings studio;
    private final StudioFiles files;

    Planner(
            Templates templates,
            Models models,
            ModelRuntime runtime,
            byte[] hmacKey,
            StudioSettings studio,
            StudioFiles files) {
        this.templates = requireNonNull(templates, "templates");
        this.models = requireNonNull(models, "models");
        this.runtime = requireNonNull(runtime, "runtime");
        this.hmacKey = requireNonNull(hmacKey, "hmacKey").clone();
        this.studio = requireNonNull(studio, "studio");
        this.files = requireNonNull(files, "files");
    }

    /** @param preview whether a missing model is a warning (preview) rather than an error found later (run) */
    Plan plan(DecisionRequest request, boolean preview) {
        StudioSettings.Values defaults = studio.current();
        var problems = new Problems().addAll(request.problems());
        if (request.rejected("template")) {
            problems.throwIfAny(); // what else to check depends on the template
        }
        var warnings = new ArrayList<>(request.warnings());
        Optional<Templates.Resolved> template;
        try {
            template = request.template().map(templates::resolve);
        } catch (ApiException e) {
            problems.throwIfAny(); // the body's own problems come before a template that cannot be found
            throw e;
        }
        template.filter(Templates.Resolved::archived)
                .ifPresent(t -> warnings.add(new Warning(
                        WarningCode.TEMPLATE_ARCHIVED,
                        "Template '" + t.id() + "' is archived; it still works, but "
                                + "consider moving callers to another template.",
                        "template")));

        var building = template.isPresent() ? templated(template.get(), request, problems) : adHoc(request, problems);
        ObjectNode requestSettings = requestSettings(request, building.questions(), problems);
        problems.throwIfAny();

        Optional<String> model = model(request, template);
        if (model.isEmpty() && preview) {
            warnings.add(new Warning(
                    WarningCode.NO_MODEL_LOADED,
                    "No model is loaded and none is named, so the "
                            + "preview could not check the questions against one.",
                    "model"));
        }
        List<Question> questions = building.questions();
        var settings = SettingsLadder.resolve(
                template.map(t -> (ObjectNode) t.definition().path("settings")).orElse(Json.object()),
                requestSettings,
                model.orElse(""),
                questions,
                defaults.defaultActThreshold());
        List<Scoring.Question> primitives = Primitives.of(questions);
        List<MediaInput> media = withFiles(building.media());
        checkModalities(template, media);
        String rendered = Substitution.asText(building.state());
        int tokens = (rendered.length() + Json.write(questionsJson(questions)).length) / 4;
        if (model.isPresent()) {
            Model found = models.require(model.get(), "model");
            checkModel(found, primitives, media);
            if (tokens > found.facts().contextTokens()) {
                warnings.add(new Warning(
                        WarningCode.STATE_MAY_BE_TRUNCATED,
                        "The input is about " + tokens
                                + " tokens; " + found.id() + " reads "
                                + found.facts().contextTokens()
                                + ", so the end may be cut.",
                        template.isPresent() ? "variables" : "state"));
            }
        }

        StoreLevel asked = request.store().orElse(StoreLevel.FULL);
        StoreLevel store = template.map(t -> asked.mostPrivate(StoreLevel.of(t.storage())))
                .orElse(asked)
                .mostPrivate(defaults.store());
        if (request.store().isPresent() && store != asked) {
            warnings.add(new Warning(
                    WarningCode.STORE_DOWNGRADED,
                    (store == defaults.store()
                                    ? "The studio"
                                    : "Template '" + template.orElseThrow().id() + "'") + " keeps at most "
                            + store.wire()
                            + "; this decision is stored as " + store.wire() + ".",
                    "store"));
        }
        if (request.background() && store == StoreLevel.NONE) {
            throw ApiException.of(
                    ErrorCode.BACKGROUND_REQUIRES_STORE,
                    "background",
                    "A background decision is "
                            + "read back from history, so its store level must be at least answers_only (it is none).");
        }
        return new Plan(
                template,
                building.state(),
                building.storedState(),
                building.storedVariables(),
                building.secrets(),
                questions,
                primitives,
                media,
                model,
                request.model(),
                settings,
                building.extensions(),
                store,
                store == StoreLevel.FULL && defaults.storeMedia(),
                request.failOnStoreError().orElse(defaults.failOnStoreError()),
                request.background(),
                request.metadata(),
                request.include(),
                tokens,
                dedupe(warnings));
    }

    /** What the template or the request contributes before settings and model: state, questions, media. */
    private record Building(
            JsonNode state,
            JsonNode storedState,
            Optional<ObjectNode> storedVariables,
            ObjectNode secrets,
            List<Question> questions,
            List<MediaInput> media,
            ObjectNode extensions) {}

    private Building adHoc(DecisionRequest request, Problems problems) {
        request.variables()
                .ifPresent(v -> problems.add(
                        ErrorCode.VARIABLES_NEED_TEMPLATE,
                        "variables",
                        "`variables` fill a template's state; send `template`, or put the situation in `state`."));
        request.skip()
                .ifPresent(
                        f -> problems.add(
                                ErrorCode.REQUIRES_TEMPLATE,
                                f.param(),
                                "`" + f.param()
                                        + "` skips template questions; a decision without a template asks exactly its `questions`."));
        request.addOptions()
                .filter(f -> !f.value().isEmpty())
                .ifPresent(f -> problems.add(
                        ErrorCode.REQUIRES_TEMPLATE,
                        f.param(),
                        "`" + f.param() + "` extends template questions; put the "
                                + "options in `questions` instead."));
        JsonNode state = requireState(request, problems);
        var questions = new ArrayList<Question>();
        if (request.extras().isEmpty()) {
            if (!request.rejected("extensions") && !request.rejected("extensions.questions")) {
                problems.add(ErrorCode.MISSING_FIELD, "questions", "`questions` is required without a template.");
            }
        } else {
            var field = request.extras().get();
            Templates.checkQuestions(field.value(), field.param(), Optional.empty(), problems)
                    .properties()
                    .forEach(e -> questions.add(new Question(e.getKey(), (ObjectNode) e.getValue(), "adhoc", false)));
        }
        ObjectNode extensions = emptyExtensions();
        return new Building(state, state, Optional.empty(), Json.object(), questions, request.media(), extensions);
    }

    private static JsonNode requireState(DecisionRequest request, Problems problems) {
        if (request.state().isEmpty()) {
            if (!request.rejected("state")) {
                problems.add(
                        ErrorCode.STATE_REQUIRED, "state", "`state` is required: the situation to decide " + "about.");
            }
            return NullNode.getInstance();
        }
        JsonNode state = request.state().get();
        if ((state.isTextual() && state.textValue().isBlank()) || (state.isContainerNode() && state.isEmpty())) {
            problems.add(ErrorCode.EMPTY_STATE, "state", "`state` is empty; describe the situation.");
        }
        return state;
    }

    private Building templated(Templates.Resolved template, DecisionRequest request, Problems problems) {
        ObjectNode definition = template.definition();
        JsonNode extensionRules = definition.path("extensions");
        boolean declaresVariables = !definition.path("variables").isEmpty();

        // extra questions join the template's before the variables fill them, so they may use the same values
        ObjectNode extras = Json.object();
        request.extras().ifPresent(field -> extras.setAll(extraQuestions(template, field, problems)));
        ObjectNode combined = definition.deepCopy();
        ((ObjectNode) combined.path("questions")).setAll(extras);

        JsonNode state = NullNode.getInstance();
        JsonNode storedState = state;
        Optional<ObjectNode> storedVariables = Optional.empty();
        ObjectNode secrets = Json.object();
        ObjectNode questionDefinitions = (ObjectNode) combined.path("questions");
        var media = new ArrayList<MediaInput>();
        if (declaresVariables) {
            request.state()
                    .ifPresent(s -> problems.add(
                            ErrorCode.STATE_NOT_ALLOWED,
                            "state",
                            "Template '" + template.id()
                                    + "' builds the situation from its variables; send `variables`, not `state`."));
            Optional<Substitution.Result> filled =
                    Substitution.check(combined, request.variables().orElse(null), hmacKey, problems);
            if (filled.isPresent()) {
                state = filled.get().state();
                storedState = filled.get().storedState();
                storedVariables = Optional.of(filled.get().stored());
                filled.get().secrets().forEach(secrets::put);
                questionDefinitions = filled.get().questions();
                for (Substitution.Media item : filled.get().media()) {
                    MediaInput.fromVariable(item, problems).ifPresent(media::add);
                }
            }
        } else {
            request.variables()
                    .ifPresent(v -> problems.add(
                            ErrorCode.VARIABLES_NEED_TEMPLATE,
                            "variables",
                            "Template '" + template.id() + "' declares no variables; send the situation as `state`."));
            state = requireState(request, problems);
            storedState = state;
        }
        media.addAll(request.media());

        Set<String> templateKeys = new LinkedHashSet<>();
        definition.path("questions").fieldNames().forEachRemaining(templateKeys::add);
        Set<String> skipped = skipped(request, templateKeys, extensionRules, problems);
        ObjectNode extensions = emptyExtensions();
        skipped.forEach(((ArrayNode) extensions.get("skipped"))::add);
        extras.fieldNames().forEachRemaining(((ArrayNode) extensions.get("questions"))::add);
        Map<String, ObjectNode> added = addedOptions(request, definition, skipped, extensionRules, problems);

        var questions = new ArrayList<Question>();
        for (String key : templateKeys) {
            if (skipped.contains(key)) {
                continue;
            }
            ObjectNode question = ((ObjectNode) questionDefinitions.path(key)).deepCopy();
            boolean dynamic =
                    definition.path("questions").path(key).path("criteria").isTextual();
            ObjectNode newOptions = added.get(key);
            if (newOptions != null) {
                ObjectNode criteria = (ObjectNode) question.get("criteria");
                if (question.path("type").asText().equals("number")) {
                    question.set("criteria", sortedNumbers(criteria, newOptions));
                } else {
                    criteria.setAll(newOptions);
                }
                ArrayNode names = ((ObjectNode) extensions.get("options")).putArray(key);
                newOptions.fieldNames().forEachRemaining(names::add);
            }
            questions.add(new Question(key, question, newOptions != null ? "extended" : "template", dynamic));
        }
        if (questions.isEmpty() && !templateKeys.isEmpty() && extras.isEmpty()) {
            problems.add(
                    ErrorCode.NO_QUESTIONS,
                    request.skip().map(DecisionRequest.Field::param).orElse("skip"),
                    "Skipping these leaves no question to ask.");
        }
        for (var keys = extras.fieldNames(); keys.hasNext(); ) {
            String key = keys.next();
            questions.add(new Question(key, (ObjectNode) questionDefinitions.path(key), "extra", false));
        }
        if (questions.size() > MAX_QUESTIONS) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    "questions",
                    "This decision asks " + questions.size() + " questions; at most " + MAX_QUESTIONS
                            + " are allowed.");
        }
        return new Building(state, storedState, storedVariables, secrets, questions, media, extensions);
    }

    private static ObjectNode extraQuestions(
            Templates.Resolved template, DecisionRequest.Field field, Problems problems) {
        JsonNode rules = template.definition().path("extensions");
        if (!rules.path("questions").asBoolean(true)) {
            problems.add(
                    ErrorCode.EXTENSION_NOT_ALLOWED,
                    field.param(),
                    "Template '" + template.id() + "' does " + "not take extra questions.");
            return Json.object();
        }
        ObjectNode checked =
                Templates.checkQuestions(field.value(), field.param(), Optional.of(template.definition()), problems);
        ObjectNode kept = Json.object();
        checked.properties().forEach(e -> {
            if (template.definition().path("questions").has(e.getKey())) {
                problems.add(
                        ErrorCode.QUESTION_CONFLICT,
                        ParamPath.key(field.param(), e.getKey()),
                        "`" + e.getKey()
                                + "` is a question of template '" + template.id()
                                + "'; an extra question needs a new key "
                                + "(to change a template question, save a new version).");
            } else {
                kept.set(e.getKey(), e.getValue());
            }
        });
        int max = rules.path("max_questions").asInt(16);
        if (kept.size() > max) {
            problems.add(
                    ErrorCode.TOO_MANY_EXTRA_QUESTIONS,
                    field.param(),
                    "Template '" + template.id() + "' takes at most " + max + " extra questions; this decision sends "
                            + kept.size() + ".");
        }
        return kept;
    }

    private static Set<String> skipped(
            DecisionRequest request, Set<String> templateKeys, JsonNode rules, Problems problems) {
        var skipped = new LinkedHashSet<String>();
        if (request.skip().isEmpty() || !request.skip().get().value().isArray()) {
            return skipped;
        }
        var field = request.skip().get();
        JsonNode allowed = rules.path("skip");
        for (int i = 0; i < field.value().size(); i++) {
            JsonNode item = field.value().get(i);
            String param = ParamPath.index(field.param(), i);
            if (!item.isTextual()) {
                problems.add(ErrorCode.INVALID_FIELD, param, "`" + param + "` must be a question key.");
            } else if (!templateKeys.contains(item.textValue())) {
                problems.add(
                        ErrorCode.UNKNOWN_QUESTION,
                        param,
                        "`" + item.textValue() + "` is not a question of " + "this template."
                                + didYouMean(item.textValue(), templateKeys));
            } else if (!listed(allowed, item.textValue())) {
                problems.add(
                        ErrorCode.SKIP_NOT_ALLOWED,
                        param,
                        "The template does not let callers skip `" + item.textValue()
                                + "` (it needs `extensions.skip`).");
            } else {
                skipped.add(item.textValue());
            }
        }
        return skipped;
    }

    private static Map<String, ObjectNode> addedOptions(
            DecisionRequest request, ObjectNode definition, Set<String> skipped, JsonNode rules, Problems problems) {
        var added = new LinkedHashMap<String, ObjectNode>();
        if (request.addOptions().isEmpty()
                || !request.addOptions().get().value().isObject()) {
            return added;
        }
        var field = request.addOptions().get();
        JsonNode questions = definition.path("questions");
        field.value().properties().forEach(entry -> {
            String key = entry.getKey();
            String param = ParamPath.key(field.param(), key);
            JsonNode question = questions.get(key);
            if (question == null) {
                var keys = new LinkedHashSet<String>();
                questions.fieldNames().forEachRemaining(keys::add);
                problems.add(
                        ErrorCode.UNKNOWN_QUESTION,
                        param,
                        "`" + key + "` is not a question of this template." + didYouMean(key, keys));
                return;
            }
            String type = question.path("type").asText();
            if (skipped.contains(key)) {
                problems.add(ErrorCode.INVALID_FIELD, param, "`" + key + "` is skipped; it takes no options.");
            } else if (!Templates.takesNewOptions(type)) {
                problems.add(
                        ErrorCode.OPTIONS_NOT_EXTENSIBLE,
                        param,
                        "`" + key + "` is a " + type + " question: its "
                                + (type.equals("score") ? "levels" : "sides")
                                + " are fixed; save a new template version "
                                + "to change them.");
            } else if (!listed(rules.path("options"), key)) {
                problems.add(
                        ErrorCode.EXTENSION_NOT_ALLOWED,
                        param,
                        "The template does not let callers add options " + "to `" + key
                                + "` (it needs `extensions.options`).");
            } else {
                newOptions(type, question.path("criteria"), entry.getValue(), param, problems)
                        .ifPresent(options -> added.put(key, options));
            }
        });
        return added;
    }

    /** The new options of one question as name (or value) to description, or the problems with them. */
    private static Optional<ObjectNode> newOptions(
            String type, JsonNode existing, JsonNode sent, String param, Problems problems) {
        ObjectNode options = Json.object();
        int before = problemCount(problems);
        if (type.equals("number")) {
            if (!sent.isArray() || sent.isEmpty()) {
                problems.add(ErrorCode.INVALID_FIELD, param, "`" + param + "` must be a list of numbers.");
                return Optional.empty();
            }
            var values = new HashSet<BigDecimal>();
            existing.fieldNames().forEachRemaining(k -> values.add(new BigDecimal(k).stripTrailingZeros()));
            for (int i = 0; i < sent.size(); i++) {
                JsonNode item = sent.get(i);
                String itemParam = ParamPath.index(param, i);
                if (!item.isNumber() || !Double.isFinite(item.doubleValue())) {
                    problems.add(ErrorCode.INVALID_FIELD, itemParam, "`" + itemParam + "` must be a finite number.");
                } else if (!values.add(item.decimalValue().stripTrailingZeros())) {
                    problems.add(
                            ErrorCode.OPTION_CONFLICT,
                            itemParam,
                            "The value " + item.asText() + " is already an option.");
                } else {
                    options.putNull(item.decimalValue().stripTrailingZeros().toPlainString());
                }
            }
        } else if (sent.isArray() || sent.isObject()) {
            var names = new ArrayList<Map.Entry<String, JsonNode>>();
            if (sent.isArray()) {
                for (int i = 0; i < sent.size(); i++) {
                    JsonNode item = sent.get(i);
                    if (!item.isTextual()
                            || item.textValue().isBlank()
                            || item.textValue().length() > 200) {
                        String itemParam = ParamPath.index(param, i);
                        problems.add(
                                ErrorCode.INVALID_FIELD,
                                itemParam,
                                "`" + itemParam + "` must be an option " + "name of 1 to 200 characters.");
                    } else {
                        names.add(Map.entry(item.textValue(), NullNode.getInstance()));
                    }
                }
            } else {
                sent.properties().forEach(e -> names.add(Map.entry(e.getKey(), e.getValue())));
            }
            for (var name : names) {
                String nameParam = ParamPath.key(param, name.getKey());
                if (name.getKey().isBlank() || name.getKey().length() > 200) {
                    problems.add(ErrorCode.INVALID_FIELD, nameParam, "Option names are 1 to 200 characters.");
                } else if (existing.has(name.getKey()) || options.has(name.getKey())) {
                    problems.add(
                            ErrorCode.OPTION_CONFLICT,
                            nameParam,
                            "\"" + name.getKey() + "\" is already an " + "option.");
                } else {
                    options.set(name.getKey(), name.getValue());
                }
            }
        } else {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    param,
                    "`" + param + "` must be a list of option names or an " + "object of name to description.");
        }
        if (options.isEmpty() && problemCount(problems) == before) {
            problems.add(ErrorCode.INVALID_FIELD, param, "`" + param + "` adds no option.");
        }
        return problemCount(problems) == before ? Optional.of(options) : Optional.empty();
    }

    private static int problemCount(Problems problems) {
        return problems.list().size();
    }

    private static ObjectNode sortedNumbers(ObjectNode existing, ObjectNode added) {
        var sorted = new TreeMap<BigDecimal, Map.Entry<String, JsonNode>>();
        existing.properties().forEach(e -> sorted.put(new BigDecimal(e.getKey()), e));
        added.properties().forEach(e -> sorted.put(new BigDecimal(e.getKey()), e));
        ObjectNode criteria = Json.object();
        sorted.values().forEach(e -> criteria.set(e.getKey(), e.getValue()));
        return criteria;
    }

    private static ObjectNode requestSettings(DecisionRequest request, List<Question> questions, Problems problems) {
        ObjectNode settings = request.settings().isPresent()
                ? SettingsLadder.check(request.settings().get(), questions, problems)
                : Json.object();
        request.actThreshold().ifPresent(value -> settings.put("act_threshold", value));
        return settings;
    }

    /** The named model, the template's, the last one loaded, or the bundled default when decisions may load. */
    private Optional<String> model(DecisionRequest request, Optional<Templates.Resolved> template) {
        if (request.model().isPresent()) {
            return Optional.of(models.require(request.model().get(), "model").id());
        }
        Optional<String> fromTemplate = template.map(t -> t.definition().path("model"))
                .filter(JsonNode::isTextual)
                .map(JsonNode::textValue)
                .filter(id -> models.find(id).isPresent());
        if (fromTemplate.isPresent()) {
            return fromTemplate;
        }
        Optional<String> loaded = runtime.lastLoaded();
        if (loaded.isPresent()) {
            return loaded;
        }
        return runtime.autoLoad() ? models.find(DEFAULT_MODEL).map(Model::id) : Optional.empty();
    }

    private static void checkModalities(Optional<Templates.Resolved> template, List<MediaInput> media) {
        if (template.isEmpty()) {
            return;
        }
        var allowed = new HashSet<String>();
        template.get().definition().path("modalities").forEach(m -> allowed.add(m.asText()));
        var problems = new Problems();
        for (MediaInput item : media) {
            if (!allowed.contains(item.type())) {
                problems.add(
                        ErrorCode.MODALITY_NOT_ALLOWED,
                        item.param(),
                        "Template '" + template.get().id() + "' takes " + String.join(", ", allowed) + "; not "
                                + item.type() + ".");
            }
        }
        problems.throwIfAny();
    }

    /**
     * Media by file id with the files they name: an unknown id, or one whose bytes are gone, is 404
     * {@code file_not_found}. Files found are held another day, so that none expires before this decision keeps it.
     */
    private List<MediaInput> withFiles(List<MediaInput> media) {
        var problems = new Problems();
        var resolved = new ArrayList<MediaInput>();
        for (MediaInput item : media) {
            if (item.inline()) {
                resolved.add(item);
                continue;
            }
            Optional<StudioFile> file = files.find(item.reference());
            if (file.isEmpty() || !files.available(file.get())) {
                problems.add(
                        ErrorCode.FILE_NOT_FOUND,
                        item.param(),
                        file.isEmpty()
                                ? "There is no file " + item.reference()
                                        + "; upload it (POST /v1/studio/files) or send the bytes as a data URL."
                                : "The bytes of file " + item.reference() + " are gone; upload it again.");
                continue;
            }
            item.withFile(file.get(), problems).ifPresent(resolved::add);
        }
        problems.throwIfAny();
        files.hold(resolved.stream()
                .flatMap(item -> item.file().stream())
                .map(StudioFile::id)
                .toList());
        return List.copyOf(resolved);
    }

    private static void checkModel(Model model, List<Scoring.Question> primitives, List<MediaInput> media) {
        var modalities = new HashSet<String>();
        media.forEach(item -> modalities.add(item.type()));
        ModelFacts.Needs needs = Primitives.needs(primitives, modalities, 0);
        List<ModelFacts.Problem> found = model.facts().problems(needs);
        if (found.isEmpty()) {
            return;
        }
        // The contract names the reasons as the detail codes of one model_incompatible error, so they replace the
        // usual details (which would repeat the top-level code).
        throw ApiException.of(
                        ErrorCode.MODEL_INCOMPATIBLE,
                        "model",
                        "Model " + model.id() + " cannot run this " + "decision: "
                                + String.join(
                                        " ",
                                        found.stream()
                                                .map(ModelFacts.Problem::message)
                                                .toList()))
                .withField(
                        "details",
                        found.stream()
                                .map(p -> {
                                    var detail = new LinkedHashMap<String, Object>();
                                    detail.put("code", p.code());
                                    detail.put(
                                            "param", p.code().equals("modality_not_supported") ? "media" : "questions");
                                    detail.put("message", p.message());
                                    return detail;
                                })
                                .toList());
    }

    static ObjectNode questionsJson(List<Question> questions) {
        ObjectNode json = Json.object();
        questions.forEach(q -> json.set(q.key(), q.definition()));
        return json;
    }

    private static ObjectNode emptyExtensions() {
        ObjectNode extensions = Json.object();
        extensions.putArray("questions");
        extensions.putObject("options");
        extensions.putArray("skipped");
        return extensions;
    }

    private static boolean listed(JsonNode rule, String key) {
        if (rule.isBoolean()) {
            return rule.booleanValue();
        }
        for (JsonNode item : rule) {
            if (item.asText().equals(key)) {
                return true;
            }
        }
        return false;
    }

    private static String didYouMean(String name, Set<String> known) {
        return Templates.didYouMean(name, known);
    }

    private static List<Warning> dedupe(List<Warning> warnings) {
        var seen = new HashSet<String>();
        var kept = new ArrayList<Warning>();
        for (Warning warning : warnings) {
            if (seen.add(warning.code() + "|" + warning.param())) {
                kept.add(warning);
            }
        }
        return List.copyOf(kept);
    }
}
