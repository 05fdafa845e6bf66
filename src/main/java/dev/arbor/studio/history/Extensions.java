package dev.arbor.studio.history;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.json.Json;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a caller changed of a template's questions on one decision (see {@link ExtensionRules} for what it may).
 *
 * @param questions the keys of the extra questions, in order
 * @param options the names (or values) of the options added, by question key, in order
 * @param skipped the keys of the template questions skipped
 */
public record Extensions(List<String> questions, Map<String, List<String>> options, List<String> skipped) {
    /** No change: a decision without a template, or one that asks the template's questions as they are. */
    public static final Extensions NONE = new Extensions(List.of(), Map.of(), List.of());

    public Extensions {
        questions = List.copyOf(questions);
        var copy = new LinkedHashMap<String, List<String>>();
        requireNonNull(options, "options").forEach((key, names) -> copy.put(key, List.copyOf(names)));
        options = Collections.unmodifiableMap(copy);
        skipped = List.copyOf(skipped);
    }

    /** As the decision shows it: {@code {questions, options, skipped}}. */
    public ObjectNode json() {
        ObjectNode json = Json.object();
        questions.forEach(json.putArray("questions")::add);
        ObjectNode added = json.putObject("options");
        options.forEach((key, names) -> names.forEach(added.putArray(key)::add));
        skipped.forEach(json.putArray("skipped")::add);
        return json;
    }

    /** Reads extensions as {@link #json} wrote them. */
    public static Extensions read(JsonNode json) {
        var options = new LinkedHashMap<String, List<String>>();
        json.path("options").properties().forEach(e -> options.put(e.getKey(), texts(e.getValue())));
        return new Extensions(texts(json.path("questions")), options, texts(json.path("skipped")));
    }

    private static List<String> texts(JsonNode values) {
        var texts = new ArrayList<String>();
        values.forEach(value -> texts.add(value.asText()));
        return texts;
    }
}
