package dev.arbor.inference.usage;

import java.util.Locale;

/** How a routed request ended, as its usage row and metrics say. */
public enum Outcome {
    /** The endpoint answered 2xx, whole. */
    OK,
    /** The endpoint answered an error (4xx, 5xx), passed on to the caller. */
    UPSTREAM_ERROR,
    /** A deployment's own rate limit refused it (429) before it reached the deployment. */
    RATE_LIMITED,
    /** No answer in time. */
    TIMEOUT,
    /** The endpoint could not be reached (refused, reset, not resolved, not allowed by the outbound policy). */
    UNAVAILABLE,
    /** The endpoint's answer was not what the API promises (not JSON). */
    INVALID_RESPONSE,
    /** A stream of a deployment's replicas that broke off after its first byte reached the caller. */
    STREAM_BROKEN,
    /**
     * An endpoint's stream that failed after its first byte reached the caller (reset, idle past its timeout, a
     * malformed chunk, an error event, an end before the answer was complete): its last event is an error.
     */
    TRUNCATED,
    /** A router's output content rule refused a streamed answer part-way (its end is an error event). */
    BLOCKED,
    /** The caller went away before the answer was all sent. */
    CLIENT_CLOSED;

    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }
}
