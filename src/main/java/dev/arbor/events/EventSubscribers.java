package dev.arbor.events;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What verified events go to once their delivery is durably recorded: the triggers that subscribe to a connection's
 * events. Events calls it from the durable job engine; it never sees a delivery whose signature failed.
 */
public interface EventSubscribers {
    /**
     * Matches the event against the subscriptions to its connection and starts what matches, recording each firing.
     * The job engine may call it again for a round it had begun (after a crash): a round fires each trigger at most
     * once.
     *
     * @param round 0 for the delivery itself, 1, 2, ... for each replay of it
     * @param audience whose triggers the round may fire
     */
    void dispatch(EventEnvelope event, int round, Audience audience);

    /**
     * Whose triggers a round fires: every project's (the delivery itself, an admin's replay), or only those of the
     * projects of the member who replayed it, which must not start other projects' work.
     */
    sealed interface Audience {
        boolean includes(String projectId);

        /**
         * Whose triggers a round fires once {@code other} joins it (a replay asked while the round still waits): both
         * audiences' projects, every project's when either is everyone's.
         */
        default Audience joinedWith(Audience other) {
            return switch (this) {
                case Everyone everyone -> everyone;
                case Projects mine ->
                    switch (other) {
                        case Everyone everyone -> everyone;
                        case Projects theirs -> {
                            var ids = new HashSet<>(mine.ids());
                            ids.addAll(theirs.ids());
                            yield new Projects(ids);
                        }
                    };
            };
        }

        static Audience everyone() {
            return new Everyone();
        }

        record Everyone() implements Audience {
            @Override
            public boolean includes(String projectId) {
                return true;
            }
        }

        record Projects(Set<String> ids) implements Audience {
            public Projects {
                ids = Set.copyOf(ids);
            }

            @Override
            public boolean includes(String projectId) {
                return ids.contains(projectId);
            }
        }
    }

    /** What the delivery fired, in every round, oldest first. */
    List<Firing> firings(String deliveryId);

    /**
     * Removes the subscriptions to a connection from projects outside {@code keptProjects}: all of them when the
     * connection is deleted (an empty set), those of the projects a narrowed share set leaves out.
     *
     * @return how many were removed
     */
    int unsubscribe(String connectionId, Set<String> keptProjects);

    /**
     * One trigger fired by one delivery in one round.
     *
     * @param projectId the trigger's project: a delivery log shows a caller only its own projects' firings
     */
    record Firing(
            String triggerId,
            String projectId,
            int round,
            Status status,
            Optional<String> runId,
            Optional<String> error,
            Instant firedAt) {
        public Firing {
            requireNonNull(triggerId, "triggerId");
            requireNonNull(projectId, "projectId");
            requireNonNull(status, "status");
            requireNonNull(runId, "runId");
            requireNonNull(error, "error");
            requireNonNull(firedAt, "firedAt");
        }

        public enum Status {
            /** Held in its debounce window, or its target's delivery is being retried. */
            WAITING,
            /** Its run started, or its target answered. */
            DONE,
            /** Debounced into a later event of the same correlation value, which started the one run. */
            MERGED,
            /** Its target refused it or could not be reached, after every retry. */
            FAILED
        }
    }
}
