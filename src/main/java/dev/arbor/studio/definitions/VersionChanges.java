package dev.arbor.studio.definitions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.json.Json;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

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

    public static ObjectNode first(ObjectNode definition) {
        ObjectNode changes = Json.object();
        changes.putNull("from");
        changes.put("class", "created");
        changes.put("breaking_for_callers", false);
        ObjectNode questions = changes.putObject("questions");
        definition
                .path("questions")
                .fieldNames()
                .forEachRemaining(key -> questions.putObject(key).put("comparability", "added"));
        changes.putArray("summary").add("First version");
        return changes;
    }

    public static ObjectNode between(int from, JsonNode older, JsonNode newer) {
        return new VersionChanges().compare(from, older, newer);
    }

    private ObjectNode compare(int from, JsonNode older, JsonNode newer) {
        ObjectNode questions = questions(older, newer);
        variables(older.path("variables"), newer.path("variables"));
        modalities(older.path("modalities"), newer.path("modalities"));
        if (!sameText(older.path("state"), newer.path("state"))) {
            wording = true;
            summary.add("state template changed");
        }
        for (String field : List.of("model", "settings")) {
            if (!sameText(older.path(field), newer.path(field))) {
                settingsOnly = true;
                summary.add(field + " changed");
            }
        }
        extensions(older.path("extensions"), newer.path("extensions"));

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

    private ObjectNode questions(JsonNode older, JsonNode newer) {
        ObjectNode result = Json.object();
        JsonNode before = older.path("questions");
        JsonNode after = newer.path("questions");
        for (var keys = after.fieldNames(); keys.hasNext(); ) {
            String key = keys.next();
            if (!before.has(key)) {
                extended = true;
                summary.add("question " + key + " added");
                result.putObject(key).put("comparability", "added");
                continue;
            }
            ObjectNode comparison = comparability(before.get(key), after.get(key));
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
        }
        for (var keys = before.fieldNames(); keys.hasNext(); ) {
            String key = keys.next();
            if (!after.has(key)) {
                breaking = true;
                summary.add("question " + key + " removed");
                result.putObject(key).put("comparability", "removed");
                if (listed(older.path("extensions").path("skip"), key)
                        || listed(older.path("extensions").path("options"), key)) {
                    breakingForCallers = true;
                }
            }
        }
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

    private void variables(JsonNode before, JsonNode after) {
        for (var names = after.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            JsonNode spec = after.get(name);
            if (!before.has(name)) {
                if (spec.path("required").asBoolean()) {
                    breaking = true;
                    breakingForCallers = true;
                    summary.add("variable " + name + " added, required");
                } else {
                    extended = true;
                    summary.add("variable " + name + " added, optional");
                }
                continue;
            }
            JsonNode old = before.get(name);
            if (sameText(old, spec)) {
                continue;
            }
            if (!old.path("type").equals(spec.path("type"))) {
                breaking = true;
                breakingForCallers = true;
                summary.add("variable " + name + ": type changed from "
                        + old.path("type").asText() + " to " + spec.path("type").asText());
            } else if (!old.path("required").asBoolean()
                    && spec.path("required").asBoolean()) {
                breaking = true;
                breakingForCallers = true;
                summary.add("variable " + name + ": now required");
            } else if (narrowed(old.path("enum"), spec.path("enum"))) {
                breaking = true;
                breakingForCallers = true;
                summary.add("variable " + name + ": now limited to " + join(spec.get("enum")));
            } else {
                wording = true;
                summary.add("variable " + name + ": settings changed");
            }
        }
        for (var names = before.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!after.has(name)) {
                breaking = true;
                breakingForCallers = true;
                summary.add("variable " + name + " removed");
            }
        }
    }

    /** Whether a new enum refuses a value the old spec accepted. */
    private static boolean narrowed(JsonNode oldEnum, JsonNode newEnum) {
        if (newEnum.isMissingNode()) {
            return false;
        }
        if (oldEnum.isMissingNode()) {
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

    private void modalities(JsonNode before, JsonNode after) {
        Set<String> old = names(before);
        Set<String> now = names(after);
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

    private void extensions(JsonNode before, JsonNode after) {
        if (before.equals(after)) {
            return;
        }
        settingsOnly = true;
        summary.add("extensions changed");
        boolean questionsDisabled =
                before.path("questions").asBoolean() && !after.path("questions").asBoolean();
        boolean maxLowered = after.path("max_questions").asInt()
                < before.path("max_questions").asInt();
        if (questionsDisabled
                || maxLowered
                || narrowedList(before.path("options"), after.path("options"))
                || narrowedList(before.path("skip"), after.path("skip"))) {
            breakingForCallers = true;
        }
    }

    private static boolean narrowedList(JsonNode before, JsonNode after) {
        if (before.isBoolean() && before.booleanValue()) {
            return !(after.isBoolean() && after.booleanValue());
        }
        if (after.isBoolean()) {
            return false;
        }
        return !names(after).containsAll(names(before));
    }

    private static boolean listed(JsonNode list, String key) {
        return (list.isBoolean() && list.booleanValue()) || names(list).contains(key);
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
