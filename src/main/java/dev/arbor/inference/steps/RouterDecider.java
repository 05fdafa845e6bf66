package dev.arbor.inference.steps;

import dev.arbor.studio.RoutedDecision;

/** Where a router's decide step asks its question: the studio, recording the decision in history. */
@FunctionalInterface
public interface RouterDecider {
    /**
     * The answer to {@code template}'s first question about {@code situation}; throws the studio's
     * {@link dev.arbor.platform.errors.ApiException} when the decision cannot run.
     */
    RoutedDecision decide(String template, String situation, String requestId);
}
