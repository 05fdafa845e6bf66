package dev.arbor.studio;

import static java.util.Objects.requireNonNull;

import java.util.Optional;

/**
 * What a decision a router asked for came to: the answer to the template's first question, its probability, whether
 * the studio would act on it, and the decision's id in history (none when the template stores nothing).
 */
public record RoutedDecision(String answer, double probability, boolean act, Optional<String> decisionId) {
    public RoutedDecision {
        requireNonNull(answer, "answer");
        requireNonNull(decisionId, "decisionId");
    }
}
