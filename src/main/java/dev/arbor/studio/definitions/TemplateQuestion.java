package dev.arbor.studio.definitions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Optional;

/**
 * A template's question as stored: its type and its normal form, placeholders still in it. It becomes a
 * {@code QuestionDefinition} only once a decision fills the placeholders (and an options variable its criteria).
 *
 * @param normal the question in the templates' normal form ({@code type}, {@code instructions}, {@code criteria},
 *     and {@code threshold} or {@code unit} where its type has one)
 */
public record TemplateQuestion(QuestionType type, ObjectNode normal) {
    public TemplateQuestion {
        requireNonNull(type, "type");
        normal = normal.deepCopy();
    }

    @Override
    public ObjectNode normal() {
        return normal.deepCopy();
    }

    /** The criteria as written: an object of options, a list of levels, or the name of an options variable. */
    public JsonNode criteria() {
        JsonNode criteria = normal.get("criteria");
        return criteria == null ? com.fasterxml.jackson.databind.node.MissingNode.getInstance() : criteria.deepCopy();
    }

    /** The options variable that gives this question its options per decision, if one does. */
    public Optional<String> optionsVariable() {
        JsonNode criteria = normal.get("criteria");
        return criteria != null && criteria.isTextual() ? Optional.of(criteria.textValue()) : Optional.empty();
    }

    /** The number of options or levels the definition fixes (none when an options variable gives them). */
    public int fixedOptionCount() {
        JsonNode criteria = normal.get("criteria");
        return criteria == null || criteria.isTextual() ? 0 : criteria.size();
    }

    /** Reads a question in normal form; empty when its type is none the studio knows. */
    static Optional<TemplateQuestion> read(JsonNode normal) {
        if (!normal.isObject() || !(normal.get("type") instanceof JsonNode type) || !type.isTextual()) {
            return Optional.empty();
        }
        return QuestionType.parse(type.textValue()).map(t -> new TemplateQuestion(t, (ObjectNode) normal));
    }
}
