package dev.arbor.studio.planning;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.models.Model;
import dev.arbor.models.ModelFacts;
import dev.arbor.models.Models;
import dev.arbor.models.engines.EngineKind;
import dev.arbor.models.engines.Scoring;
import dev.arbor.models.runtime.ModelRuntime;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.errors.Warning;
import dev.arbor.platform.errors.WarningCode;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.ExtensionPolicy;
import dev.arbor.studio.definitions.QuestionType;
import dev.arbor.studio.definitions.Substitution;
import dev.arbor.studio.definitions.TemplateDefinition;
import dev.arbor.studio.definitions.TemplateQuestion;
import dev.arbor.studio.files.StudioFile;
import dev.arbor.studio.files.StudioFiles;
import dev.arbor.studio.history.Extensions;
import dev.arbor.studio.history.StoreLevel;
import dev.arbor.studio.questions.Primitives;
import dev.arbor.studio.questions.Question;
import dev.arbor.studio.questions.UndescribedOptions;
import dev.arbor.studio.settings.StudioSettings;
import dev.arbor.studio.templates.Templates;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Steps one to eight of every decision, whatever route it came by: resolve the template, fill in the variables,
 * build the questions (skips, added options, extra questions), choose the model, settle the settings, and check
 * that the model can run it, all before any model is loaded. Every problem of the pass is reported at once.
 */
public final class Planner {
    /**
     * The model a decision runs on when it names none and none is loaded: bundled, so it needs no download; e5 for its
     * better answers on the public labelled sets (docs/models-and-deployments.md has the table).
     */
    static final String DEFAULT_MODEL = "e5-decider";

    static final int MAX_QUESTIONS = 128;

    private final Templates templates;
    private final Models models;
    private final ModelRuntime runtime;
    private final byte[] hmacKey;
    private final StudioSettings studio;
    private final StudioFiles files;

    public Planner(
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

    /** What a plan is for: a preview warns of a missing model that a run finds later as an error. */
    public enum Purpose {
        RUN,
        PREVIEW
    }

    public Plan plan(DecisionRequest request, Purpose purpose) {
        requireNonNull(purpose, "purpose");
        boolean preview = purpose == Purpose.PREVIEW;
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
                template.map(t -> t.definition().settings()).orElse(Json.object()),
                requestSettings,
                model.orElse(""),
                questions,
                defaults.defaultActThreshold());
        List<Scoring.Question> primitives = Primitives.of(questions);
        List<MediaInput> media = withFiles(building.media());
        checkModalities(template, media);
        String rendered = Substitution.asText(building.state());
        Optional<Model> found = model.map(id -> models.require(id, "model"));
        int tokens = estimatedTokens(rendered, questions, found);
        if (found.isPresent()) {
            checkModel(found.get(), primitives, media);
            if (tokens > found.get().facts().contextTokens()) {
                warnings.add(new Warning(
                        WarningCode.STATE_MAY_BE_TRUNCATED,
                        "The input is about " + tokens
                                + " tokens; " + found.get().id() + " reads "
                                + found.get().facts().contextTokens()
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
        warnings.addAll(UndescribedOptions.warnings(questions)); // last: advice on the definition, not on this call
        return new Plan(
                template,
                rendered,
                building.storedState(),
                building.storedState() == building.state() ? rendered : Substitution.asText(building.storedState()),
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
            Extensions extensions) {}

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
                    .forEach(e -> questions.add(Question.of(e.getKey(), e.getValue(), Question.Origin.ADHOC, false)));
        }
        return new Building(state, state, Optional.empty(), Json.object(), questions, request.media(), Extensions.NONE);
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
        TemplateDefinition definition = template.definition();
        ExtensionPolicy extensionRules = definition.extensions();
        boolean declaresVariables = definition.declaresVariables();

        // extra questions join the template's before the variables fill them, so they may use the same values
        ObjectNode extras = Json.object();
        request.extras().ifPresent(field -> extras.setAll(ExtensionRules.extraQuestions(template, field, problems)));
        TemplateDefinition combined = definition.withExtraQuestions(extras);

        JsonNode state = NullNode.getInstance();
        JsonNode storedState = state;
        Optional<ObjectNode> storedVariables = Optional.empty();
        ObjectNode secrets = Json.object();
        ObjectNode questionDefinitions = normalQuestions(combined);
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

        Set<String> templateKeys = new LinkedHashSet<>(definition.questions().keySet());
        Set<String> skipped = ExtensionRules.skipped(request, templateKeys, extensionRules, problems);
        var extraKeys = new ArrayList<String>();
        extras.fieldNames().forEachRemaining(extraKeys::add);
        var addedNames = new LinkedHashMap<String, List<String>>();
        Map<String, ObjectNode> added =
                ExtensionRules.addedOptions(request, definition, skipped, extensionRules, problems);

        var questions = new ArrayList<Question>();
        for (String key : templateKeys) {
            if (skipped.contains(key)) {
                continue;
            }
            ObjectNode question = ((ObjectNode) questionDefinitions.get(key)).deepCopy();
            TemplateQuestion asDefined = requireNonNull(definition.questions().get(key), "a template key");
            boolean dynamic = asDefined.optionsVariable().isPresent();
            ObjectNode newOptions = added.get(key);
            if (newOptions != null) {
                ObjectNode criteria = (ObjectNode) question.get("criteria");
                if (asDefined.type() == QuestionType.NUMBER) {
                    question.set("criteria", ExtensionRules.sortedNumbers(criteria, newOptions));
                } else {
                    criteria.setAll(newOptions);
                }
                var names = new ArrayList<String>();
                newOptions.fieldNames().forEachRemaining(names::add);
                addedNames.put(key, names);
            }
            questions.add(Question.of(
                    key, question, newOptions != null ? Question.Origin.EXTENDED : Question.Origin.TEMPLATE, dynamic));
        }
        if (questions.isEmpty() && !templateKeys.isEmpty() && extras.isEmpty()) {
            problems.add(
                    ErrorCode.NO_QUESTIONS,
                    request.skip().map(DecisionRequest.Field::param).orElse("skip"),
                    "Skipping these leaves no question to ask.");
        }
        for (var keys = extras.fieldNames(); keys.hasNext(); ) {
            String key = keys.next();
            questions.add(Question.of(key, questionDefinitions.get(key), Question.Origin.EXTRA, false));
        }
        if (questions.size() > MAX_QUESTIONS) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    "questions",
                    "This decision asks " + questions.size() + " questions; at most " + MAX_QUESTIONS
                            + " are allowed.");
        }
        var extensions = new Extensions(extraKeys, addedNames, List.copyOf(skipped));
        return new Building(state, storedState, storedVariables, secrets, questions, media, extensions);
    }

    /** A definition's questions in normal form, placeholders unfilled. */
    private static ObjectNode normalQuestions(TemplateDefinition definition) {
        ObjectNode questions = Json.object();
        definition.questions().forEach((key, question) -> questions.set(key, question.normal()));
        return questions;
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
        Optional<String> fromTemplate = template.flatMap(t -> t.definition().model())
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
        var allowed = new HashSet<>(template.get().definition().modalities());
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

    /**
     * The tokens the model will read, at four characters a token, so that a preview and a queued decision show about
     * what the model counts once it answers: the situation alone for engines that keep their options' embeddings,
     * the situation and the questions for the others (and when no model is known yet).
     */
    private static int estimatedTokens(String rendered, List<Question> questions, Optional<Model> model) {
        boolean situationOnly = model.flatMap(m -> EngineKind.of(m.engine()))
                .filter(EngineKind::readsOnlyTheSituation)
                .isPresent();
        int characters = rendered.length() + (situationOnly ? 0 : Json.write(questionsJson(questions)).length);
        return characters / 4;
    }

    public static ObjectNode questionsJson(List<Question> questions) {
        ObjectNode json = Json.object();
        questions.forEach(q -> json.set(q.key(), q.definition().json()));
        return json;
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
