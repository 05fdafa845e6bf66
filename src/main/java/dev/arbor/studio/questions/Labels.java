package dev.arbor.studio.questions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.QuestionType;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;

/**
 * The label vocabulary of each question type, read from a stored answer: what a caller may send as the expected
 * answer, its canonical form, and whether the decision got it right. A choice or rank label is an option name (a
 * rank takes a list too, its first element); yes/no takes yes/no, true/false; a score its level index, index
 * string or level text; multi a list of option names; number a number, right when it lies in the answer's range.
 */
public final class Labels {
    private Labels() {}

    /** A label in canonical form, or why it does not fit the question. */
    public sealed interface Checked permits Canonical, Unfit {}

    public record Canonical(JsonNode value) implements Checked {}

    public record Unfit(String why) implements Checked {}

    public static Checked check(Answer answer, JsonNode label) {
        List<JsonNode> levels = answer instanceof Answer.Score score ? score.legend() : List.of();
        return check(answer.type(), List.copyOf(answer.probabilities().keySet()), levels, label);
    }

    /**
     * A label checked against a question's definition rather than an answer to it (for test examples, which have
     * no answer): the question's options and levels stand in for the answer's.
     */
    public static Checked checkAgainst(Question question, JsonNode label) {
        List<JsonNode> levels =
                question.definition() instanceof QuestionDefinition.Score score ? score.levels() : List.of();
        return check(question.type(), question.optionKeys(), levels, label);
    }

    private static Checked check(QuestionType type, List<String> options, List<JsonNode> levels, JsonNode label) {
        return switch (type) {
            case CHOICE -> option(options, label);
            case RANK -> option(options, label.isArray() && !label.isEmpty() ? label.get(0) : label);
            case NOUL -> yesNo(label);
            case SCORE -> level(levels, label);
            case MULTI -> selection(options, label);
            case NUMBER -> number(label);
        };
    }

    /** Whether the answer matches the canonical label. */
    public static boolean correct(Answer answer, JsonNode canonical) {
        return switch (answer) {
            case Answer.Multi multi -> new HashSet<>(multi.selected()).equals(new HashSet<>(strings(canonical)));
            case Answer.Estimate estimate -> {
                double value = canonical.asDouble();
                yield value >= estimate.low().doubleValue()
                        && value <= estimate.high().doubleValue();
            }
            default -> answer.word().equals(canonical.asText());
        };
    }

    private static Checked option(List<String> options, JsonNode label) {
        if (label.isTextual() && options.contains(label.textValue())) {
            return new Canonical(label);
        }
        return new Unfit("must be one of the options: " + String.join(", ", options));
    }

    private static Checked yesNo(JsonNode label) {
        String text =
                label.isBoolean() ? String.valueOf(label.booleanValue()) : label.isTextual() ? label.textValue() : "";
        return switch (text) {
            case "yes", "true", "True" -> new Canonical(Json.mapper().valueToTree("yes"));
            case "no", "false", "False" -> new Canonical(Json.mapper().valueToTree("no"));
            default -> new Unfit("must be yes or no (or true or false)");
        };
    }

    private static Checked level(List<JsonNode> legend, JsonNode label) {
        int levels = legend.size();
        if (label.isIntegralNumber() && label.asInt() >= 0 && label.asInt() < levels) {
            return new Canonical(Json.mapper().valueToTree(Integer.toString(label.asInt())));
        }
        if (label.isTextual()) {
            for (int i = 0; i < levels; i++) {
                if (label.textValue().equals(Integer.toString(i))) {
                    return new Canonical(label);
                }
            }
            for (int i = 0; i < levels; i++) {
                JsonNode level = legend.get(i);
                String text = level.isTextual() ? level.textValue() : level.toString();
                if (text.equals(label.textValue())) {
                    return new Canonical(Json.mapper().valueToTree(Integer.toString(i)));
                }
            }
        }
        return new Unfit("must be a level from 0 to " + (levels - 1) + ", or a level's text");
    }

    private static Checked selection(List<String> options, JsonNode label) {
        if (!label.isArray()) {
            return new Unfit("must be a list of the options that apply");
        }
        var chosen = new HashSet<String>();
        for (JsonNode item : label) {
            if (!item.isTextual() || !options.contains(item.textValue())) {
                return new Unfit("may hold only the options: " + String.join(", ", options));
            }
            chosen.add(item.textValue());
        }
        ArrayNode canonical = Json.mapper().createArrayNode();
        options.stream().filter(chosen::contains).forEach(canonical::add); // definition order, once each
        return new Canonical(canonical);
    }

    private static Checked number(JsonNode label) {
        Optional<BigDecimal> value = Optional.empty();
        if (label.isNumber() && Double.isFinite(label.doubleValue())) {
            value = Optional.of(label.decimalValue());
        } else if (label.isTextual()) {
            try {
                value = Optional.of(new BigDecimal(label.textValue().trim()));
            } catch (NumberFormatException e) {
                value = Optional.empty();
            }
        }
        return value.<Checked>map(v -> new Canonical(Json.mapper()
                        .valueToTree(Primitives.value(v.stripTrailingZeros().toPlainString()))))
                .orElse(new Unfit("must be a number"));
    }

    private static List<String> strings(JsonNode array) {
        var values = new ArrayList<String>();
        array.forEach(item -> values.add(item.asText()));
        return values;
    }
}
