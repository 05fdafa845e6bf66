package dev.arbor.studio.planning;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problem;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.errors.Warning;
import dev.arbor.platform.http.InlineMedia;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodyReader;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.Metadata;
import dev.arbor.studio.definitions.SettingRange;
import dev.arbor.studio.history.StoreLevel;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The body of {@code POST /v1/studio/decisions}, read field by field with every problem of the pass collected.
 * What depends on the template (variables, questions, skips, added options, settings) is checked later, once the
 * template is known; the problems found here are reported then, with those ({@code problems}), so that one response
 * lists them all.
 *
 * @param extras extra questions (with a template) or the whole question set (without one), with the field that
 *     held them
 * @param actThreshold the top-level {@code act_threshold}, a shorthand for {@code settings.act_threshold}
 * @param problems what was wrong with the fields read here; a field at fault is absent from the record
 */
public record DecisionRequest(
        Optional<String> template,
        Optional<JsonNode> variables,
        Optional<JsonNode> state,
        Optional<Field> extras,
        Optional<Field> skip,
        Optional<Field> addOptions,
        Optional<JsonNode> settings,
        List<MediaInput> media,
        ObjectNode metadata,
        Optional<StoreLevel> store,
        boolean background,
        Optional<String> model,
        Optional<Double> actThreshold,
        Optional<Boolean> failOnStoreError,
        Set<String> include,
        List<Warning> warnings,
        List<Problem> problems) {
    public static final Set<String> INCLUDES = Set.of("input", "input.rendered_state", "answers.raw_probabilities");
    /** The most a string variable may hold, and more than any model reads; a situation is kept whole in history. */
    public static final int MAX_STATE_CHARACTERS = 200_000;
    /** Room for several variables at their longest; media sent inline as data URLs do not count. */
    static final int MAX_VARIABLES_CHARACTERS = 1_000_000;

    private static final BodyField.Flag BACKGROUND = BodyField.flag(OPTIONAL, "background");
    private static final BodyField.Text MODEL = BodyField.text(OPTIONAL, "model", 200);
    private static final BodyField.Worded<Double> ACT_THRESHOLD = SettingRange.ACT_THRESHOLD.field("act_threshold");

    /** A request field and the path it was sent under (top level, or inside {@code extensions}). */
    public record Field(String param, JsonNode value) {}

    public DecisionRequest {
        requireNonNull(template, "template");
        media = List.copyOf(media);
        requireNonNull(metadata, "metadata");
        include = Set.copyOf(include);
        warnings = List.copyOf(warnings);
        problems = List.copyOf(problems);
    }

    /** The same request, run now rather than in the background (what another part of the server asks). */
    public DecisionRequest inForeground() {
        return new DecisionRequest(
                template,
                variables,
                state,
                extras,
                skip,
                addOptions,
                settings,
                media,
                metadata,
                store,
                false,
                model,
                actThreshold,
                failOnStoreError,
                include,
                warnings,
                problems);
    }

    /** Whether the field at {@code param} was sent but refused here (so later checks do not call it missing). */
    boolean rejected(String param) {
        return problems.stream().anyMatch(p -> param.equals(p.param()));
    }

    public static DecisionRequest parse(ObjectNode body) {
        BodyReader reader = BodyReader.of(body);
        Problems problems = reader.problems();
        Optional<String> template = reader.node("template", false).flatMap(node -> {
            if (!node.isTextual() || node.textValue().isBlank()) {
                problems.add(
                        ErrorCode.INVALID_REFERENCE,
                        "template",
                        "`template` must be a reference string: " + "\"id\", \"id@3\" or \"id@alias\".");
                return Optional.empty();
            }
            return Optional.of(node.textValue());
        });
        Optional<JsonNode> variables = reader.node("variables", false).filter(node -> {
            boolean ok = characters(node, text -> text.startsWith("data:")) <= MAX_VARIABLES_CHARACTERS;
            if (!ok) {
                reader.reject(
                        "variables",
                        ErrorCode.INVALID_FIELD,
                        "may hold at most " + MAX_VARIABLES_CHARACTERS
                                + " characters of text in all (inline media aside)");
            }
            return ok;
        });
        Optional<JsonNode> state = reader.node("state", false).filter(node -> {
            if (!(node.isTextual() || node.isObject() || node.isArray())) {
                reader.reject("state", ErrorCode.INVALID_FIELD, "must be text, an object or a list");
                return false;
            }
            Optional<String> tooLarge = stateTooLarge(node);
            tooLarge.ifPresent(why -> reader.reject("state", ErrorCode.INVALID_FIELD, why));
            return tooLarge.isEmpty();
        });
        Optional<BodyReader> extensions = reader.object("extensions", false);
        Optional<Field> extras = field(reader, extensions, "questions", "questions", problems);
        Optional<Field> skip = field(reader, extensions, "skip", "skip", problems);
        Optional<Field> addOptions = field(reader, extensions, "add_options", "add_options", problems);
        skip.ifPresent(f -> {
            if (!f.value().isArray()) {
                problems.add(
                        ErrorCode.INVALID_FIELD, f.param(), "`" + f.param() + "` must be a list of question keys.");
            }
        });
        addOptions.ifPresent(f -> {
            if (!f.value().isObject()) {
                problems.add(
                        ErrorCode.INVALID_FIELD,
                        f.param(),
                        "`" + f.param() + "` must be an object of question " + "key to new options.");
            }
        });
        Optional<JsonNode> settings = reader.node("settings", false);
        List<MediaInput> media = reader.node("media", false)
                .map(node -> MediaInput.parse(node, problems))
                .orElse(List.of());
        ObjectNode metadata = reader.node("metadata", false)
                .flatMap(node -> Metadata.check(node, "metadata", problems))
                .orElse(Json.object());
        Optional<StoreLevel> store = reader.node("store", false).flatMap(node -> {
            Optional<StoreLevel> level = StoreLevel.parse(node);
            if (level.isEmpty()) {
                reader.reject(
                        "store",
                        ErrorCode.INVALID_FIELD,
                        "must be \"full\", \"answers_only\", \"none\", " + "true or false");
            }
            return level;
        });
        boolean background = BACKGROUND.read(reader).orElse(false);
        reader.node("stream", false)
                .filter(node -> !(node.isBoolean() && !node.booleanValue()))
                .ifPresent(node -> reader.reject(
                        "stream",
                        ErrorCode.INVALID_FIELD,
                        "is not supported: streaming answers is not built; send \"background\": true and read "
                                + "GET /v1/studio/decisions/{id}?wait=30 instead"));
        Optional<String> model = MODEL.read(reader);
        Optional<Double> actThreshold = ACT_THRESHOLD.read(reader);
        Optional<Boolean> failOnStoreError = StoreLevel.ON_STORE_ERROR.read(reader);
        Set<String> include = reader.node("include", false)
                .map(node -> include(node, "include", problems))
                .orElse(Set.of());
        if (actThreshold.isPresent()
                && settings.map(s -> s.has("act_threshold")).orElse(false)) {
            reader.reject("act_threshold", ErrorCode.INVALID_FIELD, "is also set in `settings`; send one of them");
        }
        return new DecisionRequest(
                template,
                variables,
                state,
                extras,
                skip,
                addOptions,
                settings,
                media,
                metadata,
                store,
                background,
                model,
                actThreshold,
                failOnStoreError,
                include,
                reader.unknownFields(),
                problems.list());
    }

    /** {@code include}, as a list or a comma-separated string of the allowed values. */
    public static Set<String> include(JsonNode node, String param, Problems problems) {
        var values = new ArrayList<String>();
        if (node.isTextual()) {
            for (String part : node.textValue().split(",")) {
                if (!part.isBlank()) {
                    values.add(part.trim());
                }
            }
        } else if (node.isArray()) {
            node.forEach(item -> values.add(item.isTextual() ? item.textValue() : item.toString()));
        } else {
            problems.add(ErrorCode.INVALID_FIELD, param, "`" + param + "` must be a list or a comma-separated string.");
            return Set.of();
        }
        var kept = new LinkedHashSet<String>();
        for (String value : values) {
            if (INCLUDES.contains(value)) {
                kept.add(value);
            } else {
                problems.add(
                        ErrorCode.INVALID_FIELD,
                        param,
                        "`" + param + "` may hold "
                                + String.join(", ", INCLUDES.stream().sorted().toList()) + "; not \"" + value + "\".");
            }
        }
        return kept;
    }

    /**
     * Why a state cannot be taken, when it cannot: too large (the one limit wherever a state is sent: decisions, test
     * examples), or holding a long data: URL.
     */
    public static Optional<String> stateTooLarge(JsonNode state) {
        if (characters(state, text -> false) > MAX_STATE_CHARACTERS) {
            return Optional.of("may hold at most " + MAX_STATE_CHARACTERS + " characters (of text, or of an object's "
                    + "or a list's keys and values)");
        }
        // such a URL was decoded to a file as the body was read: its text is not there to read as the state's
        return InlineMedia.within(state)
                ? Optional.of("may not hold a data: URL of 64 KiB or more; send media in `media`")
                : Optional.empty();
    }

    /** The characters of a value's keys and scalar values, but for the strings {@code skipped}. */
    private static long characters(JsonNode node, Predicate<String> skipped) {
        if (node.isTextual()) {
            return skipped.test(node.textValue()) ? 0 : InlineMedia.sentLength(node.textValue());
        }
        if (!node.isContainerNode()) {
            return node.asText().length();
        }
        long total = 0;
        for (var entries = node.properties().iterator(); entries.hasNext(); ) {
            total += entries.next().getKey().length();
        }
        for (JsonNode child : node) {
            total += characters(child, skipped);
        }
        return total;
    }

    /** A field sent at the top level or inside {@code extensions}, never both. */
    private static Optional<Field> field(
            BodyReader reader, Optional<BodyReader> extensions, String name, String extensionName, Problems problems) {
        Optional<JsonNode> top = reader.node(name, false);
        Optional<JsonNode> nested = extensions.flatMap(e -> e.node(extensionName, false));
        if (top.isPresent() && nested.isPresent()) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    "extensions." + extensionName,
                    "`" + name + "` is sent both at the " + "top level and in `extensions`; send it once.");
            return Optional.empty();
        }
        return top.map(value -> new Field(name, value))
                .or(() -> nested.map(value -> new Field(ParamPath.key("extensions", extensionName), value)));
    }
}
