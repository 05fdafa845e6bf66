package dev.arbor.events;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.events.SharedConnection.PreviousSecret;
import dev.arbor.events.providers.SigningSecret;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.db.Paging;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.secrets.SecretBox;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jdbi.v3.core.Handle;

/** The SQL of shared event connections and their share sets; secrets are sealed and opened here. */
final class SharedConnectionStore {
    private static final String COLUMNS = "id, name, provider, global, settings, secrets, previous_secret, "
            + "previous_secret_expires_at, created_at, updated_at";

    /** Which connections a list shows. */
    sealed interface Visible {
        /** Every connection: an admin naming no project. */
        record All() implements Visible {}

        /** The global ones and those shared with one of these projects. */
        record SharedWith(Set<String> projects) implements Visible {
            public SharedWith {
                projects = Set.copyOf(projects);
            }
        }
    }

    private final Database database;
    private final SecretBox box;

    SharedConnectionStore(Database database, SecretBox box) {
        this.database = requireNonNull(database, "database");
        this.box = requireNonNull(box, "box");
    }

    /** Stores a new connection with the SHA-256 of its webhook URL's token. */
    void create(SharedConnection connection, String hookTokenSha256) {
        database.update(handle -> {
            handle.createUpdate("INSERT INTO event_shared_connections (" + COLUMNS + ", hook_token_sha256) VALUES "
                            + "(:id, :name, :provider, :global, :settings, :secrets, :previous, :previous_expires, "
                            + ":created, :updated, :hook)")
                    .bindMap(values(connection))
                    .bind("hook", hookTokenSha256)
                    .execute();
            insertProjects(handle, connection);
        });
    }

    Optional<SharedConnection> find(String id) {
        return database.read(
                handle -> handle.createQuery("SELECT " + COLUMNS + " FROM event_shared_connections WHERE id = :id")
                        .bind("id", id)
                        .map((rs, ctx) -> row(rs, handle))
                        .findOne());
    }

    /** The connection whose webhook URL has the token of this SHA-256. */
    Optional<SharedConnection> findByHook(String hookTokenSha256) {
        return database.read(handle -> handle.createQuery(
                        "SELECT " + COLUMNS + " FROM event_shared_connections WHERE hook_token_sha256 = :hook")
                .bind("hook", hookTokenSha256)
                .map((rs, ctx) -> row(rs, handle))
                .findOne());
    }

    /** Connections newest first. */
    Paging.Result<SharedConnection> list(Page page, Visible visible) {
        String filter = switch (visible) {
            case Visible.All all -> "1 = 1";
            case Visible.SharedWith shared when shared.projects().isEmpty() -> "global = 1";
            case Visible.SharedWith shared ->
                "(global = 1 OR EXISTS (SELECT 1 FROM event_shared_connection_projects p "
                        + "WHERE p.connection_id = event_shared_connections.id AND p.project_id IN (<projects>)))";
        };
        return database.read(handle -> Paging.newestFirst(
                handle,
                COLUMNS,
                "event_shared_connections WHERE " + filter,
                page,
                (rs, ctx) -> row(rs, handle),
                cursor -> find(cursor).filter(c -> shows(visible, c)).isPresent(),
                query -> {
                    if (visible instanceof Visible.SharedWith shared
                            && !shared.projects().isEmpty()) {
                        query.bindList("projects", List.copyOf(shared.projects()));
                    }
                }));
    }

    private static boolean shows(Visible visible, SharedConnection connection) {
        return switch (visible) {
            case Visible.All all -> true;
            case Visible.SharedWith shared ->
                connection.global() || connection.projects().stream().anyMatch(shared.projects()::contains);
        };
    }

    /** Stores a connection's new name, share set and credentials, all or nothing, changed at {@code now}. */
    void update(SharedConnection connection, Instant now) {
        database.update(handle -> {
            handle.createUpdate("UPDATE event_shared_connections SET name = :name, global = :global, "
                            + "settings = :settings, secrets = :secrets, previous_secret = :previous, "
                            + "previous_secret_expires_at = :previous_expires, updated_at = :updated WHERE id = :id")
                    .bindMap(values(connection))
                    .bind("updated", now.toEpochMilli())
                    .execute();
            handle.createUpdate("DELETE FROM event_shared_connection_projects WHERE connection_id = :id")
                    .bind("id", connection.id())
                    .execute();
            insertProjects(handle, connection);
        });
    }

    /**
     * Takes one of the connection's refused deliveries to record in the clock hour of {@code now}, in one
     * transaction: the row's lock makes servers sharing a database count one limit. A delivery beyond the limit is
     * counted in {@code refused_not_recorded} instead.
     */
    boolean admitRefused(String id, Instant now, int perHour) {
        long hour = now.truncatedTo(ChronoUnit.HOURS).toEpochMilli();
        return database.write(handle -> {
            handle.createUpdate("UPDATE event_shared_connections SET refused_window_start = :hour, "
                            + "refused_window_recorded = 0 WHERE id = :id AND refused_window_start < :hour")
                    .bind("hour", hour)
                    .bind("id", id)
                    .execute();
            int taken = handle.createUpdate("UPDATE event_shared_connections SET refused_window_recorded = "
                            + "refused_window_recorded + 1 WHERE id = :id AND refused_window_recorded < :limit")
                    .bind("id", id)
                    .bind("limit", perHour)
                    .execute();
            if (taken == 1) {
                return true;
            }
            handle.createUpdate("UPDATE event_shared_connections SET refused_not_recorded = refused_not_recorded + 1 "
                            + "WHERE id = :id")
                    .bind("id", id)
                    .execute();
            return false;
        });
    }

    /** How many refused deliveries to the connection were counted instead of recorded. */
    long refusedNotRecorded(String id) {
        return database.read(
                handle -> handle.createQuery("SELECT refused_not_recorded FROM event_shared_connections WHERE id = :id")
                        .bind("id", id)
                        .mapTo(Long.class)
                        .findOne()
                        .orElse(0L));
    }

    boolean delete(String id) {
        return database.write(handle -> {
            handle.createUpdate("DELETE FROM event_shared_connection_projects WHERE connection_id = :id")
                    .bind("id", id)
                    .execute();
            return handle.createUpdate("DELETE FROM event_shared_connections WHERE id = :id")
                            .bind("id", id)
                            .execute()
                    == 1;
        });
    }

    private java.util.Map<String, Object> values(SharedConnection connection) {
        var values = new java.util.HashMap<String, Object>();
        values.put("id", connection.id());
        values.put("name", connection.name());
        values.put("provider", connection.provider());
        values.put("global", connection.global() ? 1 : 0);
        values.put("settings", Json.writeString(connection.settings()));
        values.put("secrets", box.seal(Json.writeString(connection.secrets()), context(connection.id(), "secrets")));
        values.put(
                "previous",
                connection
                        .previous()
                        .map(p -> box.seal(p.secret().value(), context(connection.id(), "previous")))
                        .orElse(null));
        values.put(
                "previous_expires",
                connection.previous().map(p -> p.expiresAt().toEpochMilli()).orElse(null));
        values.put("created", connection.createdAt().toEpochMilli());
        values.put("updated", connection.updatedAt().toEpochMilli());
        return values;
    }

    private static void insertProjects(Handle handle, SharedConnection connection) {
        for (String project : connection.projects()) {
            handle.createUpdate("INSERT INTO event_shared_connection_projects (connection_id, project_id) "
                            + "VALUES (:connection, :project)")
                    .bind("connection", connection.id())
                    .bind("project", project)
                    .execute();
        }
    }

    /** Binds sealed values to their connection and column: copied to another row, they do not open. */
    private static String context(String id, String part) {
        return "event-connection:" + id + ":" + part;
    }

    private SharedConnection row(ResultSet rs, Handle handle) throws SQLException {
        String id = rs.getString("id");
        List<String> projects = handle.createQuery("SELECT project_id FROM event_shared_connection_projects "
                        + "WHERE connection_id = :id ORDER BY project_id")
                .bind("id", id)
                .mapTo(String.class)
                .list();
        String previous = rs.getString("previous_secret");
        long previousExpires = rs.getLong("previous_secret_expires_at");
        return new SharedConnection(
                id,
                rs.getString("name"),
                rs.getString("provider"),
                rs.getInt("global") == 1,
                projects,
                (ObjectNode) Json.read(rs.getString("settings")),
                (ObjectNode) Json.read(box.open(rs.getString("secrets"), context(id, "secrets"))),
                Optional.ofNullable(previous)
                        .map(text -> new PreviousSecret(
                                new SigningSecret(box.open(text, context(id, "previous"))),
                                Instant.ofEpochMilli(previousExpires))),
                Instant.ofEpochMilli(rs.getLong("created_at")),
                Instant.ofEpochMilli(rs.getLong("updated_at")));
    }
}
