package dev.arbor.studio.questions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.studio.definitions.QuestionType;
import java.util.List;
import java.util.Locale;

/**
 * One question of a decision as it is asked: its key, its definition (placeholders filled), and where it came from.
 *
 * @param dynamicOptions whether its options came from an options variable
 */
public record Question(String key, QuestionDefinition definition, Origin origin, boolean dynamicOptions) {
    /** Where a question of a decision came from. */
    public enum Origin {
        /** Asked as the template defines it. */
        TEMPLATE,
        /** A template question the caller added options to. */
        EXTENDED,
        /** A question the caller added to the template's. */
        EXTRA,
        /** A question of a decision without a template. */
        ADHOC;

        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public Question {
        requireNonNull(key, "key");
        requireNonNull(definition, "definition");
        requireNonNull(origin, "origin");
    }

    /** A question read from its definition in normal form, as a template or a request gives it. */
    public static Question of(String key, JsonNode normal, Origin origin, boolean dynamicOptions) {
        return new Question(key, QuestionDefinition.of(normal), origin, dynamicOptions);
    }

    public QuestionType type() {
        return definition.type();
    }

    /** Option names (choice, multi, rank), level keys {@code "0".."n-1"} (score), values (number), false/true. */
    public List<String> optionKeys() {
        return definition.optionKeys();
    }
}
