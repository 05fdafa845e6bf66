package dev.arbor.events;

import static java.util.Objects.requireNonNull;

import dev.arbor.access.CurrentProject;
import dev.arbor.access.Principal;
import dev.arbor.events.providers.EventCatalog;
import dev.arbor.events.providers.HookReader;
import dev.arbor.events.providers.HookReading;
import dev.arbor.events.providers.ProviderDescriptor;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.secrets.Digests;
import dev.arbor.platform.secrets.SecretBox;
import java.net.URI;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The provider catalog and the shared connections, built before the features that subscribe to connections' events
 * (the triggers) so that {@link Events} can be handed those subscribers: other features see a connection only as a
 * {@link Subscribable}, without its credentials.
 */
public final class EventConnections {
    private static final String CONNECTION_ID = "connection_id";

    private final EventCatalog catalog = EventCatalog.load();
    private final SharedConnectionStore store;

    public EventConnections(Database database, SecretBox secrets) {
        this.store =
                new SharedConnectionStore(requireNonNull(database, "database"), requireNonNull(secrets, "secrets"));
    }

    /** The connection as its subscribers need it; empty when there is no such connection. */
    public Optional<Subscribable> find(String connectionId) {
        return store.find(connectionId)
                .map(connection -> new Subscribable(
                        connection.id(),
                        connection.name(),
                        connection.provider(),
                        connection.global(),
                        connection.projects(),
                        catalog.find(connection.provider()).orElseThrow().eventTypes().stream()
                                .map(ProviderDescriptor.EventType::type)
                                .toList()));
    }

    /**
     * Reads a request to a webhook URL with its connection's secrets: a handshake, a refused delivery or an event.
     * Empty when no connection has the URL's token.
     *
     * @param url the URL the provider called (the public one, query included): some providers sign it
     * @param refusedBodyChars the most of a refused delivery's body to keep
     */
    public Optional<HookReading> readHook(
            String hookToken,
            byte[] body,
            Map<String, List<String>> headers,
            URI url,
            Clock clock,
            int refusedBodyChars) {
        requireNonNull(hookToken, "hookToken");
        return store.findByHook(Digests.sha256Hex(hookToken)).map(connection -> {
            var hidden = new ArrayList<String>();
            connection
                    .secrets()
                    .properties()
                    .forEach(field -> hidden.add(field.getValue().asText()));
            connection
                    .previous()
                    .ifPresent(previous -> hidden.add(previous.secret().value()));
            var target = new HookReader.HookTarget(
                    connection.id(),
                    connection.provider(),
                    field -> connection.signingSecrets(field, clock.instant()),
                    hidden);
            return new HookReader(catalog, clock, refusedBodyChars).read(target, body, headers, url);
        });
    }

    /**
     * Counts a refused delivery against its connection's limit of {@code perHour} recorded in each clock hour: true
     * when it may be recorded, false when the hour's are spent and it was counted as not recorded instead.
     */
    public boolean admitRefused(String connectionId, Instant now, int perHour) {
        return store.admitRefused(requireNonNull(connectionId, "connectionId"), now, perHour);
    }

    /**
     * The path's connection as a caller may see it: an admin any, a member one that is global or shared with one of
     * its projects; 404 {@code event_connection_not_found} or 403 {@code project_forbidden} otherwise.
     */
    public Subscribable visibleTo(Principal principal, String connectionId) {
        Subscribable connection = find(connectionId).orElseThrow(() -> notFound(connectionId));
        requireVisible(principal, connection.id(), connection.global(), connection.projects());
        return connection;
    }

    static ApiException notFound(String connectionId) {
        return ApiException.of(
                ErrorCode.EVENT_CONNECTION_NOT_FOUND,
                CONNECTION_ID,
                "There is no shared event connection '" + connectionId + "'.");
    }

    static void requireVisible(Principal principal, String connectionId, boolean global, List<String> projects) {
        if (!principal.isAdmin() && !global && projects.stream().noneMatch(principal::mayActIn)) {
            throw CurrentProject.forbidden(
                    CONNECTION_ID, "This token may not use connection '" + connectionId + "' (`connection_id`).");
        }
    }

    EventCatalog catalog() {
        return catalog;
    }

    SharedConnectionStore store() {
        return store;
    }

    /**
     * A shared connection without its credentials.
     *
     * @param global shared with every project
     * @param projects the share set when not global
     * @param eventTypes the event types its provider's descriptor lists, the vocabulary subscriptions choose from
     */
    public record Subscribable(
            String id, String name, String provider, boolean global, List<String> projects, List<String> eventTypes) {
        public Subscribable {
            requireNonNull(id, "id");
            requireNonNull(name, "name");
            requireNonNull(provider, "provider");
            projects = List.copyOf(projects);
            eventTypes = List.copyOf(eventTypes);
        }

        /** Whether a project may use the connection. */
        public boolean usableBy(String projectId) {
            return global || projects.contains(projectId);
        }
    }
}
