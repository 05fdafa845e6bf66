package dev.arbor.studio.questions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.QuestionType;
import dev.arbor.studio.definitions.Substitution;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A question as defined, one record per question type, read from the templates' normal form (placeholders filled)
 * and written back to it only where it leaves: history's input and the decision's shape. Instructions and
 * descriptions stay JSON values, because a template may give them as any JSON, which the model reads as text.
 */
public sealed interface QuestionDefinition
        permits QuestionDefinition.Choice,
                QuestionDefinition.Rank,
                QuestionDefinition.Multi,
                QuestionDefinition.Score,
                QuestionDefinition.NumberScale,
                QuestionDefinition.YesNo {

    /** What the model reads as the question (text, or any JSON); missing where a definition gave none. */
    JsonNode instructions();

    default QuestionType type() {
        return switch (this) {
            case Choice _ -> QuestionType.CHOICE;
            case Rank _ -> QuestionType.RANK;
            case Multi _ -> QuestionType.MULTI;
            case Score _ -> QuestionType.SCORE;
            case NumberScale _ -> QuestionType.NUMBER;
            case YesNo _ -> QuestionType.NOUL;
        };
    }

    /** Option names (choice, multi, rank), level keys {@code "0".."n-1"} (score), values (number), false/true. */
    default List<String> optionKeys() {
        return switch (this) {
            case Choice choice -> names(choice.options());
            case Rank rank -> names(rank.options());
            case Multi multi -> names(multi.options());
            case Score score -> score.levelKeys();
            case NumberScale scale -> names(scale.values());
            case YesNo _ -> List.of("false", "true");
        };
    }

    /** The definition in the templates' normal form. */
    default ObjectNode json() {
        return switch (this) {
            case Choice choice -> normal(this, named(choice.options()));
            case Rank rank -> normal(this, named(rank.options()));
            case Multi multi -> normal(this, named(multi.options())).put("threshold", multi.threshold());
            case Score score -> normal(this, score.criteria());
            case NumberScale scale -> {
                ObjectNode json = normal(this, named(scale.values()));
                scale.unit().ifPresent(u -> json.put("unit", u));
                yield json;
            }
            case YesNo yesNo -> normal(this, named(yesNo.sides()));
        };
    }

    /** A named option and its description ({@code null} node when it has none). */
    record Option(String name, JsonNode description) {
        public Option {
            requireNonNull(name, "name");
            description = description == null || description.isMissingNode()
                    ? NullNode.getInstance()
                    : description.deepCopy();
        }

        @Override
        public JsonNode description() {
            return description.deepCopy();
        }
    }

    record Choice(JsonNode instructions, List<Option> options) implements QuestionDefinition {
        public Choice {
            instructions = copy(instructions);
            options = List.copyOf(options);
        }
    }

    record Rank(JsonNode instructions, List<Option> options) implements QuestionDefinition {
        public Rank {
            instructions = copy(instructions);
            options = List.copyOf(options);
        }
    }

    /** @param threshold the probability from which an option counts as selected, unless settings say otherwise */
    record Multi(JsonNode instructions, List<Option> options, double threshold) implements QuestionDefinition {
        public Multi {
            instructions = copy(instructions);
            options = List.copyOf(options);
        }
    }

    /** @param levels the levels' descriptions, lowest first */
    record Score(JsonNode instructions, List<JsonNode> levels) implements QuestionDefinition {
        public Score {
            instructions = copy(instructions);
            levels = levels.stream().<JsonNode>map(JsonNode::deepCopy).toList();
        }

        /** The levels' keys, {@code "0".."n-1"}. */
        List<String> levelKeys() {
            var keys = new ArrayList<String>();
            for (int i = 0; i < levels.size(); i++) {
                keys.add(Integer.toString(i));
            }
            return List.copyOf(keys);
        }

        /** The levels by key, as an answer's legend shows them. */
        public ObjectNode legend() {
            ObjectNode legend = Json.object();
            for (int i = 0; i < levels.size(); i++) {
                legend.set(Integer.toString(i), levels.get(i).deepCopy());
            }
            return legend;
        }

        /** The levels as the normal form's criteria. */
        ArrayNode criteria() {
            ArrayNode criteria = Json.mapper().createArrayNode();
            levels.forEach(level -> criteria.add(level.deepCopy()));
            return criteria;
        }
    }

    /** @param values the values in ascending order, as their normal-form keys, with their descriptions */
    record NumberScale(JsonNode instructions, List<Option> values, Optional<String> unit)
            implements QuestionDefinition {
        public NumberScale {
            instructions = copy(instructions);
            values = List.copyOf(values);
            requireNonNull(unit, "unit");
        }
    }

    /** @param sides the descriptions of {@code true} and {@code false} given, in the order given */
    record YesNo(JsonNode instructions, List<Option> sides) implements QuestionDefinition {
        public YesNo {
            instructions = copy(instructions);
            sides = List.copyOf(sides);
        }

        /** The description of one side, if the definition gives one. */
        public Optional<JsonNode> side(boolean yes) {
            String name = Boolean.toString(yes);
            return sides.stream()
                    .filter(s -> s.name().equals(name))
                    .map(Option::description)
                    .findFirst();
        }
    }

    /**
     * Reads a question in normal form; what does not fit its type reads as no options (the problems of such a
     * definition are reported by the checks that made it).
     */
    static QuestionDefinition of(JsonNode normal) {
        String typeName = normal.path("type").asText();
        QuestionType type = QuestionType.parse(typeName)
                .orElseThrow(() -> new IllegalArgumentException("unknown question type " + typeName));
        JsonNode instructions = normal.path("instructions");
        JsonNode criteria = normal.path("criteria");
        return switch (type) {
            case CHOICE -> new Choice(instructions, options(criteria));
            case RANK -> new Rank(instructions, options(criteria));
            case MULTI ->
                new Multi(
                        instructions,
                        options(criteria),
                        normal.path("threshold").asDouble(0.5));
            case SCORE -> {
                var levels = new ArrayList<JsonNode>();
                if (criteria.isArray()) {
                    criteria.forEach(levels::add);
                }
                yield new Score(instructions, levels);
            }
            case NUMBER ->
                new NumberScale(
                        instructions,
                        options(criteria),
                        normal.path("unit").isTextual()
                                ? Optional.of(normal.path("unit").textValue())
                                : Optional.empty());
            case NOUL -> new YesNo(instructions, options(criteria));
        };
    }

    /** The text the model reads for a value given as any JSON. */
    static String text(JsonNode value) {
        return value.isMissingNode() ? "" : Substitution.asText(value);
    }

    /** A description as the model reads it, or {@code null} when there is none. */
    static @Nullable String description(JsonNode value) {
        return value.isNull() || value.isMissingNode() ? null : Substitution.asText(value);
    }

    private static List<Option> options(JsonNode criteria) {
        var options = new ArrayList<Option>();
        if (criteria.isObject()) {
            criteria.properties().forEach(e -> options.add(new Option(e.getKey(), e.getValue())));
        }
        return options;
    }

    private static List<String> names(List<Option> options) {
        return options.stream().map(Option::name).toList();
    }

    private static ObjectNode named(List<Option> options) {
        ObjectNode criteria = Json.object();
        options.forEach(option -> criteria.set(option.name(), option.description()));
        return criteria;
    }

    private static ObjectNode normal(QuestionDefinition question, JsonNode criteria) {
        ObjectNode json = Json.object();
        json.put("type", question.type().wire());
        if (!question.instructions().isMissingNode()) {
            json.set("instructions", question.instructions().deepCopy());
        }
        json.set("criteria", criteria);
        return json;
    }

    private static JsonNode copy(JsonNode value) {
        return value == null ? MissingNode.getInstance() : value.deepCopy();
    }
}
