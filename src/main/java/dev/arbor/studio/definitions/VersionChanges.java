package dev.arbor.studio.definitions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.json.Json;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What one version changed against the one before it: a change class, whether existing callers break, and how
 * each question compares — stored with the version, so that history and stats know which answers still compare.
 */
public final class VersionChanges {
    /** Change classes, most severe first: a version takes the first that applies. */
    enum ChangeClass {
        BREAKING,
        EXTENDED,
        WORDING,
        SETTINGS_ONLY,
        UNCHANGED
    }

    private final List<String> summary = new ArrayList<>();
    private boolean breaking;
    private boolean extended;
    private boolean wording;
    private boolean settingsOnly;
    private boolean breakingForCallers;

    private VersionChanges() {}

    public static ObjectNode first(TemplateDefinition definition) {
        ObjectNode changes = Json.object();
        changes.putNull("from");
        changes.put("class", "created");
        changes.put("breaking_for_callers", false);
        ObjectNode questions = changes.putObject("questions");
        definition.questions().keySet().forEach(key -> questions.putObject(key).put("comparability", "added"));
        changes.putArray("summary").add("First version");
        return changes;
    }

    public static ObjectNode between(int from, TemplateDefinition older, TemplateDefinition newer) {
        return new VersionChanges().compare(from, older, newer);
    }

    private ObjectNode compare(int from, TemplateDefinition older, TemplateDefinition newer) {
        ObjectNode questions = questions(older, newer);
        variables(older.variables(), newer.variables());
        modalities(older.modalities(), newer.modalities());
        if (!sameText(older.state(), newer.state())) {
            wording = true;
            summary.add("state template changed");
        }
        if (!older.model().equals(newer.model())) {
            settingsOnly = true;
            summary.add("model changed");
        }
        if (!sameText(older.settings(), newer.settings())) {
            settingsOnly = true;
            summary.add("settings changed");
        }
        extensions(older.extensions(), newer.extensions());

        ObjectNode changes = Json.object();
        changes.put("from", from);
        changes.put("class", changeClass().name().toLowerCase(java.util.Locale.ROOT));
        changes.put("breaking_for_callers", breakingForCallers);
        changes.set("questions", questions);
        ArrayNode lines = changes.putArray("summary");
        summary.forEach(lines::add);
        return changes;
    }

    private ChangeClass changeClass() {
        if (breaking) {
            return ChangeClass.BREAKING;
        }
        if (extended) {
            return ChangeClass.EXTENDED;
        }
        if (wording) {
            return ChangeClass.WORDING;
        }
        return settingsOnly ? ChangeClass.SETTINGS_ONLY : ChangeClass.UNCHANGED;
    }

    private ObjectNode questions(TemplateDefinition older, TemplateDefinition newer) {
        ObjectNode result = Json.object();
        Map<String, TemplateQuestion> before = older.questions();
        Map<String, TemplateQuestion> after = newer.questions();
        after.forEach((key, question) -> {
            TemplateQuestion previous = before.get(key);
            if (previous == null) {
                extended = true;
                summary.add("question " + key + " added");
                result.putObject(key).put("comparability", "added");
                return;
            }
            ObjectNode comparison = comparability(previous.normal(), question.normal());
            result.set(key, comparison);
            switch (comparison.path("comparability").asText()) {
                case "incomparable" -> {
                    breaking = true;
                    summary.add(
                            "question " + key + ": " + comparison.path("reason").asText());
                }
                case "options_changed" -> {
                    if (!comparison.path("removed_options").isEmpty()) {
                        breaking = true;
                        summary.add("question " + key + ": options removed " + join(comparison.get("removed_options")));
                    }
                    if (!comparison.path("added_options").isEmpty()) {
                        extended = true;
                        summary.add("question " + key + ": options added " + join(comparison.get("added_options")));
                    }
                }
                case "text_changed" -> {
                    wording = true;
                    summary.add("question " + key + ": wording changed");
                }
                default -> {}
            }
        });
        before.keySet().forEach(key -> {
            if (!after.containsKey(key)) {
                breaking = true;
                summary.add("question " + key + " removed");
                result.putObject(key).put("comparability", "removed");
                if (older.extensions().skip().allows(key)
                        || older.extensions().options().allows(key)) {
                    breakingForCallers = true;
                }
            }
        });
        return result;
    }

    /** How answers to one question compare between two versions of it. */
    public static ObjectNode comparability(JsonNode older, JsonNode newer) {
        ObjectNode result = Json.object();
        String oldType = older.path("type").asText();
        String newType = newer.path("type").asText();
        JsonNode oldCriteria = older.path("criteria");
        JsonNode newCriteria = newer.path("criteria");
        if (!oldType.equals(newType)) {
            return incomparable(result, "type changed from " + oldType + " to " + newType);
        }
        if (oldCriteria.isTextual() || newCriteria.isTextual()) {
            if (!oldCriteria.equals(newCriteria)) {
                return incomparable(
                        result,
                        "options now come from " + describeSource(newCriteria) + " instead of "
                                + describeSource(oldCriteria));
            }
        } else if (oldType.equals(QuestionType.SCORE.wire()) && oldCriteria.size() != newCriteria.size()) {
            return incomparable(
                    result, "score levels changed from " + oldCriteria.size() + " to " + newCriteria.size());
        } else if (QuestionType.parse(oldType).filter(QuestionType::extensible).isPresent()) {
            Set<String> before = names(oldCriteria);
            Set<String> after = names(newCriteria);
            if (!before.equals(after)) {
                result.put("comparability", "options_changed");
                ArrayNode added = result.putArray("added_options");
                after.stream().filter(name -> !before.contains(name)).forEach(added::add);
                ArrayNode removed = result.putArray("removed_options");
                before.stream().filter(name -> !after.contains(name)).forEach(removed::add);
                return result;
            }
        }
        result.put("comparability", sameText(older, newer) ? "identical" : "text_changed");
        return result;
    }

    /** Equal as written, key order included: Jackson's equals ignores the order, which matters to a model. */
    private static boolean sameText(JsonNode a, JsonNode b) {
        return Json.writeString(a).equals(Json.writeString(b));
    }

    private static ObjectNode incomparable(ObjectNode result, String reason) {
        result.put("comparability", "incomparable");
        result.put("reason", reason);
        return result;
    }

    private static String describeSource(JsonNode criteria) {
        return criteria.isTextual() ? "the variable " + criteria.textValue() : "fixed options";
    }

    private void variables(Map<String, Variable> before, Map<String, Variable> after) {
        after.forEach((name, variable) -> {
            Variable old = before.get(name);
            if (old == null) {
                if (variable.required()) {
                    breaking = true;
                    breakingForCallers = true;
                    summary.add("variable " + name + " added, required");
                } else {
                    extended = true;
                    summary.add("variable " + name + " added, optional");
                }
                return;
            }
            ObjectNode oldSpec = old.spec();
            ObjectNode spec = variable.spec();
            if (sameText(oldSpec, spec)) {
                return;
            }
            if (old.type() != variable.type()) {
                breaking = true;
                breakingForCallers = true;
                summary.add(
                        "variable " + name + ": type changed from " + old.typeName() + " to " + variable.typeName());
            } else if (!old.required() && variable.required()) {
                breaking = true;
                breakingForCallers = true;
                summary.add("variable " + name + ": now required");
            } else if (narrowed(oldSpec.get("enum"), spec.get("enum"))) {
                breaking = true;
                breakingForCallers = true;
                summary.add("variable " + name + ": now limited to " + join(spec.get("enum")));
            } else {
                wording = true;
                summary.add("variable " + name + ": settings changed");
            }
        });
        before.keySet().forEach(name -> {
            if (!after.containsKey(name)) {
                breaking = true;
                breakingForCallers = true;
                summary.add("variable " + name + " removed");
            }
        });
    }

    /** Whether a new enum refuses a value the old spec accepted. */
    private static boolean narrowed(@Nullable JsonNode oldEnum, @Nullable JsonNode newEnum) {
        if (newEnum == null) {
            return false;
        }
        if (oldEnum == null) {
            return true;
        }
        for (JsonNode value : oldEnum) {
            boolean kept = false;
            for (JsonNode candidate : newEnum) {
                kept |= candidate.equals(value);
            }
            if (!kept) {
                return true;
            }
        }
        return false;
    }

    private void modalities(List<String> old, List<String> now) {
        for (String modality : old) {
            if (!now.contains(modality)) {
                breaking = true;
                breakingForCallers = true;
                summary.add("modality " + modality + " removed");
            }
        }
        for (String modality : now) {
            if (!old.contains(modality)) {
                extended = true;
                summary.add("modality " + modality + " added");
            }
        }
    }

    private void extensions(ExtensionPolicy before, ExtensionPolicy after) {
        if (before.equals(after)) {
            return;
        }
        settingsOnly = true;
        summary.add("extensions changed");
        if ((before.questions() && !after.questions())
                || after.maxQuestions() < before.maxQuestions()
                || before.options().narrowedIn(after.options())
                || before.skip().narrowedIn(after.skip())) {
            breakingForCallers = true;
        }
    }

    /** Option names of an object, or the strings of a list. */
    private static Set<String> names(JsonNode node) {
        var names = new LinkedHashSet<String>();
        if (node.isObject()) {
            node.fieldNames().forEachRemaining(names::add);
        } else if (node.isArray()) {
            node.forEach(item -> names.add(item.asText()));
        }
        return names;
    }

    private static String join(JsonNode values) {
        var parts = new ArrayList<String>();
        values.forEach(v -> parts.add(v.asText()));
        return String.join(", ", parts);
    }
}
