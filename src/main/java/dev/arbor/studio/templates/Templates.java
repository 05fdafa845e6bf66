package dev.arbor.studio.templates;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.models.Models;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.http.Routes;
import dev.arbor.studio.definitions.Placeholders;
import dev.arbor.studio.definitions.QuestionType;
import dev.arbor.studio.definitions.SettingRange;
import dev.arbor.studio.definitions.TemplateDefinition;
import dev.arbor.studio.definitions.TemplateDefinitionCodec;
import dev.arbor.studio.definitions.VersionChanges;
import dev.arbor.studio.definitions.checks.DefinitionValidator;
import dev.arbor.studio.templates.versions.StarterTemplates;
import dev.arbor.studio.templates.versions.TemplateStore;
import java.time.Clock;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;

/** The studio's templates: versioned decision definitions. Other features use this, never the template tables. */
public final class Templates {
    private final TemplateStore store;
    private final TemplateService service;
    private final Models models;

    /**
     * Opens the templates and seeds the starter templates.
     *
     * @param history the decisions that name templates, consulted when one is deleted
     */
    public Templates(Database database, Clock clock, Models models, TemplateHistory history) {
        this.store = new TemplateStore(database);
        this.service = new TemplateService(store, clock, history);
        this.models = models;
        StarterTemplates.seed(store, clock);
    }

    public void addRoutes(Routes routes) {
        new TemplateRoutes(service, store, models).addTo(routes);
    }

    /**
     * Two versions of a template and how each question of the second compares with the first
     * ({@code identical}, {@code text_changed}, {@code options_changed}, {@code incomparable}, {@code added},
     * {@code removed}).
     */
    public record Comparison(
            String id,
            int from,
            int to,
            TemplateDefinition fromDefinition,
            TemplateDefinition toDefinition,
            ObjectNode questions) {}

    /** Compares two versions named by number or alias; 404s as for any reference. */
    public Comparison compare(String id, String from, String to) {
        var older = service.load(id, Optional.of(from));
        var newer = service.load(id, Optional.of(to));
        ObjectNode changes = VersionChanges.between(
                older.version().version(),
                older.version().definition(),
                newer.version().definition());
        return new Comparison(
                older.head().id(),
                older.version().version(),
                newer.version().version(),
                older.version().definition(),
                newer.version().definition(),
                (ObjectNode) changes.get("questions"));
    }

    /** The number of a template's latest version. */
    public int latestVersion(String id) {
        return service.load(id, Optional.empty()).head().latestVersion();
    }

    /**
     * The heads among {@code headIds} that some version of template {@code id} names in its settings (a fitted head,
     * {@code settings.models.*.questions.*.head}); none once the template is deleted.
     */
    public Set<String> headsInUse(String id, Collection<String> headIds) {
        requireNonNull(id, "id");
        Set<String> wanted = Set.copyOf(headIds);
        var used = new HashSet<String>();
        store.database().read(handle -> {
            for (int number : store.versionNumbers(handle, id)) {
                store.version(handle, id, number)
                        .ifPresent(version -> version.definition().heads().stream()
                                .filter(wanted::contains)
                                .forEach(used::add));
            }
            return used;
        });
        return Set.copyOf(used);
    }

    /** A version written for another part of the studio, and whether it is new (an identical one is not). */
    public record Written(int version, boolean created) {}

    /**
     * Writes per-model, per-question settings into a new latest version, made from the latest version's definition
     * (under {@code settings.models.<model>.questions.<question>}), with its source saying who wrote it; nothing new
     * when the latest version holds these values already.
     *
     * @param settings by question, the settings to set (act_threshold, temperature), each in its range
     */
    public Written writeModelSettings(
            String id, String model, Map<String, Map<String, Double>> settings, String note, String source) {
        return writeQuestionSettings(
                id,
                model,
                settings,
                (own, values) -> values.forEach((key, value) -> {
                    if (!SettingRange.of(key).orElseThrow().contains(value)) {
                        throw new IllegalArgumentException(key + " " + value + " is out of its range");
                    }
                    own.put(key, value);
                }),
                note,
                source);
    }

    /**
     * Writes fitted heads into a new version of the latest: per question, for the model, the head's id and a
     * temperature of 1, since a head's probabilities are calibrated already.
     *
     * @param heads head id by question key
     */
    public Written writeHeads(String id, String model, Map<String, String> heads, String note, String source) {
        return writeQuestionSettings(
                id, model, heads, (own, head) -> own.put("head", head).put("temperature", 1.0), note, source);
    }

    private <T> Written writeQuestionSettings(
            String id,
            String model,
            Map<String, T> perQuestionValues,
            BiConsumer<ObjectNode, T> write,
            String note,
            String source) {
        requireNonNull(model, "model");
        var latest = service.load(requireNonNull(id, "id"), Optional.empty());
        ObjectNode definition = latest.version().definitionJson();
        ObjectNode perQuestion = child(child(child(child(definition, "settings"), "models"), model), "questions");
        perQuestionValues.forEach((question, values) -> write.accept(child(perQuestion, question), values));
        var input =
                TemplateInput.definitionOnly(TemplateDefinitionCodec.read(definition), requireNonNull(note, "note"));
        var saved = service.save(id, input, Optional.empty(), requireNonNull(source, "source"));
        return new Written(saved.version().version(), saved.change().equals("new_version"));
    }

    private static ObjectNode child(ObjectNode parent, String key) {
        if (!(parent.get(key) instanceof ObjectNode)) {
            parent.putObject(key);
        }
        return (ObjectNode) parent.get(key);
    }

    /** The templates whose decisions history keeps for their own number of days (0: for ever), by id. */
    public Map<String, Integer> retentionDays() {
        return store.retentionDays();
    }

    /**
     * One version of a template, as a decision runs it.
     *
     * @param reference the reference as the caller wrote it
     * @param resolvedFrom how the version was chosen: {@code latest}, {@code pinned} (a number) or {@code alias}
     * @param storage the most the template lets history keep: {@code full}, {@code answers_only} or {@code none}
     * @param definition the version's definition in normal form
     */
    public record Resolved(
            String id,
            int version,
            String reference,
            String resolvedFrom,
            boolean archived,
            String storage,
            TemplateDefinition definition) {
        public Resolved {
            requireNonNull(id, "id");
            requireNonNull(reference, "reference");
            requireNonNull(resolvedFrom, "resolvedFrom");
            requireNonNull(storage, "storage");
            requireNonNull(definition, "definition");
        }
    }

    /**
     * The version a reference names: {@code id}, {@code id@3}, {@code id@alias} or {@code id@latest}; 404
     * {@code template_not_found}, {@code template_version_not_found} or {@code alias_not_found} (param
     * {@code template}) otherwise.
     */
    public Resolved resolve(String reference) {
        var loaded = service.reference(requireNonNull(reference, "reference"));
        int at = reference.lastIndexOf('@');
        String after = at < 0 ? "latest" : reference.substring(at + 1);
        String resolvedFrom =
                after.equals("latest") ? "latest" : after.chars().allMatch(Character::isDigit) ? "pinned" : "alias";
        return new Resolved(
                loaded.head().id(),
                loaded.version().version(),
                reference,
                resolvedFrom,
                loaded.head().archived(),
                loaded.head().storage(),
                loaded.version().definition());
    }

    /**
     * Checks questions a decision sends and returns them in the normal form of template questions. Extra
     * questions of a templated decision may use the template's variables by its rules; questions of a decision
     * without a template are taken literally.
     *
     * @param root the field that holds them, for params ({@code questions})
     */
    public static ObjectNode checkQuestions(
            JsonNode questions, String root, Optional<TemplateDefinition> template, Problems problems) {
        return DefinitionValidator.decisionQuestions(questions, root, template, problems);
    }

    /** Checks a decision's {@code settings} by the template rules (no per-model settings on a decision). */
    public static ObjectNode checkSettings(
            JsonNode settings, Map<String, QuestionType> questionTypes, Problems problems) {
        return DefinitionValidator.decisionSettings(settings, questionTypes, problems);
    }

    /** " Did you mean `x`?" for the closest known name, or nothing: the hint the template errors give. */
    public static String didYouMean(String name, java.util.Collection<String> known) {
        return Placeholders.didYouMean(name, known);
    }
}
