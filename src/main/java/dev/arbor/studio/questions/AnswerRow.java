package dev.arbor.studio.questions;

import dev.arbor.studio.definitions.QuestionType;
import org.jspecify.annotations.Nullable;

/**
 * One answer in the form history indexes it.
 *
 * @param answer the canonical answer: option, level key, yes/no, a selected option of a multi question, number
 * @param value the number behind it: P(yes), expected level, estimate, P(option) for multi, else the top
 *     probability
 */
public record AnswerRow(
        String questionKey,
        int ordinal,
        int position,
        QuestionType type,
        @Nullable String answer,
        double value,
        double certainty,
        boolean act,
        Question.Origin origin) {}
