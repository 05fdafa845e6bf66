package dev.arbor.studio.definitions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.json.Json;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * Fills a template's state from the variables of one decision. Pure: the same definition and values always give
 * the same state.
 *
 * <p>A string that is exactly one placeholder takes the typed value (numbers stay numbers, objects stay objects), and
 * its key or list element disappears when an optional value is absent; placeholders inside text take the value's
 * text form ("" when absent). One pass: a value that itself looks like a placeholder stays as it is. {@code \{{}
 * writes a literal {@code {{}.
 */
public final class Substitution {
    private static final Pattern TOKEN = Pattern.compile("\\\\\\{\\{|\\{\\{\\s*([^{}\\s]+)\\s*}}");
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** A media variable's value, attached to the decision rather than written into text. */
    public record Media(String type, String variable, String reference) {}

    /**
     * @param state what the model reads
     * @param questions the definition's questions with their placeholders filled, options from options variables
     *     as objects of name to description
     * @param media media variables in declaration order
     * @param storedState the state as history keeps it: each sensitive value replaced by {@code [redacted:<name>]}
     * @param stored the variables as history keeps them: sensitive values replaced by an HMAC
     * @param secrets the HMAC of each sensitive value present, by variable name
     */
    public record Result(
            JsonNode state,
            ObjectNode questions,
            List<Media> media,
            JsonNode storedState,
            ObjectNode stored,
            Map<String, String> secrets) {}

    private final Map<String, Variable> variables = new LinkedHashMap<>();
    private final Map<String, JsonNode> values = new LinkedHashMap<>();

    private Substitution(TemplateDefinition definition) {
        variables.putAll(definition.variables());
    }

    /**
     * Checks the sent variables against the definition and renders the state; every problem of the pass ends the
     * request: {@code missing_variable}, {@code unknown_variable}, {@code invalid_variable}, {@code empty_state}.
     *
     * @param hmacKey the key for the HMACs that stand in for sensitive values in history
     */
    public static Result apply(TemplateDefinition definition, JsonNode sent, byte[] hmacKey) {
        var problems = new Problems();
        Optional<Result> result = check(definition, sent, hmacKey, problems);
        problems.throwIfAny();
        return result.orElseThrow();
    }

    /** {@link #apply}, adding its problems to the caller's instead of throwing; empty when there were some. */
    public static Optional<Result> check(
            TemplateDefinition definition, @Nullable JsonNode sent, byte[] hmacKey, Problems problems) {
        requireNonNull(definition, "definition");
        requireNonNull(hmacKey, "hmacKey");
        var substitution = new Substitution(definition);
        var found = new Problems();
        substitution.collect(sent == null || sent.isNull() ? Json.object() : sent, found);
        if (!found.isEmpty()) {
            found.list().forEach(p -> problems.add(p.code(), p.param(), p.message()));
            return Optional.empty();
        }
        JsonNode state = substitution.render(definition.state());
        if (isEmpty(state)) {
            problems.add(
                    ErrorCode.EMPTY_STATE,
                    "variables",
                    "The situation is empty once the variables are filled in; send at least one value.");
            return Optional.empty();
        }
        ObjectNode questions = substitution.questions(definition.questions());
        List<Media> media = substitution.media();
        Map<String, String> secrets = substitution.secrets(hmacKey);
        ObjectNode stored = substitution.stored(secrets);
        secrets.keySet().forEach(name -> substitution.values.put(name, NODES.textNode("[redacted:" + name + "]")));
        JsonNode storedState = secrets.isEmpty() ? state : substitution.render(definition.state());
        return Optional.of(new Result(state, questions, media, storedState, stored, secrets));
    }

    private Map<String, String> secrets(byte[] hmacKey) {
        var secrets = new LinkedHashMap<String, String>();
        values.forEach((name, value) -> {
            if (requireNonNull(variables.get(name), "a filled-in value is a declared variable")
                    .sensitive()) {
                secrets.put(name, sensitiveHash(hmacKey, value));
            }
        });
        return Map.copyOf(secrets);
    }

    private ObjectNode questions(Map<String, TemplateQuestion> questions) {
        ObjectNode filled = Json.object();
        questions.forEach((key, template) -> {
            ObjectNode question = (ObjectNode) fill(template.normal()).orElseThrow();
            JsonNode criteria = question.get("criteria");
            if (criteria != null
                    && criteria.isArray()
                    && template.optionsVariable().isPresent()) {
                ObjectNode options = Json.object();
                criteria.forEach(name -> options.putNull(name.asText()));
                question.set("criteria", options);
            }
            filled.set(key, question);
        });
        return filled;
    }

    private void collect(JsonNode sent, Problems problems) {
        if (!sent.isObject()) {
            problems.add(ErrorCode.INVALID_FIELD, "variables", "`variables` must be an object of name to value.");
            return;
        }
        for (var names = sent.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!variables.containsKey(name)) {
                String param = ParamPath.key("variables", name);
                problems.add(
                        ErrorCode.UNKNOWN_VARIABLE,
                        param,
                        "This template declares no variable `" + name + "`."
                                + Placeholders.didYouMean(name, variables.keySet()));
            }
        }
        for (Variable variable : variables.values()) {
            String param = ParamPath.key("variables", variable.name());
            JsonNode value = sent.get(variable.name());
            if (value == null || value.isNull()) {
                Optional<JsonNode> fallback = variable.defaultValue();
                if (fallback.isPresent()) {
                    values.put(variable.name(), fallback.get());
                } else if (variable.required() || variable.type() == VariableType.OPTIONS) {
                    problems.add(
                            ErrorCode.MISSING_VARIABLE,
                            param,
                            "`" + variable.name() + "` is required"
                                    + variable.description()
                                            .filter(d -> !d.isEmpty())
                                            .map(d -> " (" + d + ")")
                                            .orElse("")
                                    + ".");
                }
                continue;
            }
            Optional<String> problem = variable.problemWith(value);
            if (problem.isPresent()) {
                problems.add(ErrorCode.INVALID_VARIABLE, param, "`" + variable.name() + "` " + problem.get() + ".");
            } else {
                values.put(variable.name(), value);
            }
        }
    }

    private JsonNode render(JsonNode template) {
        if (template.isNull() || template.isMissingNode()) {
            ObjectNode state = Json.object();
            for (Variable variable : variables.values()) {
                JsonNode value = values.get(variable.name());
                if (value != null && !variable.type().isMedia() && variable.type() != VariableType.OPTIONS) {
                    state.set(variable.name(), value);
                }
            }
            return state;
        }
        return fill(template).orElse(NODES.textNode(""));
    }

    /** The filled value, or nothing when it was one placeholder for an absent optional value. */
    private Optional<JsonNode> fill(JsonNode node) {
        if (node.isTextual()) {
            Optional<String> whole = Placeholders.whole(node.textValue());
            if (whole.isPresent() && variables.containsKey(whole.get())) {
                return Optional.ofNullable(values.get(whole.get()));
            }
            return Optional.of(NODES.textNode(text(node.textValue())));
        }
        if (node.isArray()) {
            ArrayNode array = NODES.arrayNode();
            node.forEach(item -> fill(item).ifPresent(array::add));
            return Optional.of(array);
        }
        if (node.isObject()) {
            ObjectNode object = Json.object();
            node.properties().forEach(e -> fill(e.getValue()).ifPresent(v -> object.set(e.getKey(), v)));
            return Optional.of(object);
        }
        return Optional.of(node);
    }

    private String text(String template) {
        Matcher matcher = TOKEN.matcher(template);
        var out = new StringBuilder();
        int last = 0;
        while (matcher.find()) {
            out.append(template, last, matcher.start());
            if (matcher.group(1) == null) {
                out.append("{{");
            } else {
                JsonNode value = values.get(matcher.group(1));
                out.append(value == null ? "" : asText(value));
            }
            last = matcher.end();
        }
        return out.append(template.substring(last)).toString();
    }

    /** The text form of a value: strings as they are, scalars as JSON, structures as indented lines. */
    public static String asText(JsonNode value) {
        if (value.isTextual()) {
            return value.textValue();
        }
        if (value.isNull()) {
            return "";
        }
        if (value.isValueNode()) {
            return value.toString();
        }
        var lines = new ArrayList<String>();
        lines(value, 0, lines);
        return String.join("\n", lines);
    }

    private static void lines(JsonNode value, int depth, List<String> out) {
        String indent = "  ".repeat(depth);
        if (value.isObject()) {
            value.properties().forEach(e -> {
                if (e.getValue().isContainerNode() && !e.getValue().isEmpty()) {
                    out.add(indent + e.getKey() + ":");
                    lines(e.getValue(), depth + 1, out);
                } else {
                    out.add(indent + e.getKey() + ": " + asText(e.getValue()));
                }
            });
        } else if (value.isArray()) {
            value.forEach(item -> {
                if (item.isContainerNode() && !item.isEmpty()) {
                    out.add(indent + "-");
                    lines(item, depth + 1, out);
                } else {
                    out.add(indent + "- " + asText(item));
                }
            });
        } else {
            out.add(indent + asText(value));
        }
    }

    private List<Media> media() {
        var media = new ArrayList<Media>();
        for (Variable variable : variables.values()) {
            JsonNode value = values.get(variable.name());
            if (variable.type().isMedia() && value != null) {
                media.add(new Media(variable.type().wire(), variable.name(), value.textValue()));
            }
        }
        return List.copyOf(media);
    }

    private ObjectNode stored(Map<String, String> secrets) {
        ObjectNode stored = Json.object();
        values.forEach((name, value) -> {
            if (secrets.containsKey(name)) {
                stored.putObject(name).put("$redacted", secrets.get(name));
            } else {
                stored.set(name, value);
            }
        });
        return stored;
    }

    /** The HMAC that stands in for a sensitive value in history; the same value always gives the same one. */
    public static String sensitiveHash(byte[] hmacKey, JsonNode value) {
        return "hmac-sha256:" + hmac(hmacKey, Json.writeString(value));
    }

    static String hmac(byte[] key, String text) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(text.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean isEmpty(JsonNode state) {
        return state == null
                || state.isNull()
                || (state.isTextual() && state.textValue().isBlank())
                || (state.isContainerNode() && state.isEmpty());
    }
}
