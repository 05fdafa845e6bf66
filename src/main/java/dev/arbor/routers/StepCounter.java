package dev.arbor.routers;

/**
 * Counts what a router's steps did to requests, for the router's stats and {@code /metrics}: a cache step's
 * {@code hit}, {@code semantic_hit}, {@code miss} and {@code saved_tokens}; a guardrail's findings
 * ({@code pii:<kind>}, ...) and its {@code blocked} requests.
 */
@FunctionalInterface
public interface StepCounter {
    void count(String routerId, String stepId, String name, long amount);
}
