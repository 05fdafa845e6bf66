package dev.arbor.triggers;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.events.providers.PayloadPath;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A project's subscription to a shared connection's events: which events (types, filter) start what (target).
 *
 * @param debounceSeconds 0: every event starts its target; more: events of one correlation value within this long of
 *     the first start one, the last of them
 * @param correlationKey what groups events for debouncing (none: all the trigger's events are one group)
 */
record Trigger(
        String id,
        String projectId,
        String connectionId,
        String name,
        List<String> eventTypes,
        EventFilter filter,
        Target target,
        boolean enabled,
        int debounceSeconds,
        Optional<PayloadPath> correlationKey,
        Instant createdAt,
        Instant updatedAt) {
    Trigger {
        requireNonNull(id, "id");
        requireNonNull(projectId, "projectId");
        requireNonNull(connectionId, "connectionId");
        requireNonNull(name, "name");
        eventTypes = List.copyOf(eventTypes);
        requireNonNull(filter, "filter");
        requireNonNull(target, "target");
        requireNonNull(correlationKey, "correlationKey");
        requireNonNull(createdAt, "createdAt");
        requireNonNull(updatedAt, "updatedAt");
    }

    /** What a trigger starts. */
    sealed interface Target {
        /** A run of a pipeline with these params; the event is the run's {@code event}. */
        record Pipeline(String pipelineId, ObjectNode params) implements Target {
            public Pipeline {
                requireNonNull(pipelineId, "pipelineId");
                params = params.deepCopy();
            }

            @Override
            public ObjectNode params() {
                return params.deepCopy();
            }
        }

        /**
         * The event POSTed to a URL, signed with Standard Webhooks.
         *
         * @param previous the secret a rotation replaced: deliveries carry its signature too until it expires, so
         *     that the receiver can switch without refusing one
         */
        record Url(String url, String secret, Optional<PreviousSecret> previous) implements Target {
            public Url {
                requireNonNull(url, "url");
                requireNonNull(secret, "secret");
                requireNonNull(previous, "previous");
            }

            @Override
            public String toString() {
                return "Url[" + url + "]";
            }
        }
    }

    record PreviousSecret(String secret, Instant expiresAt) {
        PreviousSecret {
            requireNonNull(secret, "secret");
            requireNonNull(expiresAt, "expiresAt");
        }

        @Override
        public String toString() {
            return "PreviousSecret[expiresAt=" + expiresAt + "]";
        }
    }
}
