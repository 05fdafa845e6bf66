package dev.arbor.audit;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.db.Paging;
import dev.arbor.platform.json.Json;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.Query;

/** The audit log's rows ({@code audit_log}): written only here, never changed or removed but by the retention. */
final class AuditStore {
    private static final String COLUMNS = "id, created_at, actor_id, actor_name, action, route, resource_type, "
            + "resource_id, project_id, request_id, before_state, after_state, diff, request_fields, status";

    /** How much of a resource's state is read: complete, the after state not read yet, or no state at all. */
    enum Diff {
        COMPLETE,
        AFTER_UNKNOWN,
        UNREADABLE;

        String wire() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        static Diff of(String wire) {
            return valueOf(wire.toUpperCase(java.util.Locale.ROOT));
        }
    }

    /** One change, as audited; its states already redacted. */
    record Entry(
            String id,
            long createdAtMillis,
            String actorId,
            String actorName,
            String action,
            String route,
            String resourceType,
            Optional<String> resourceId,
            Optional<String> projectId,
            String requestId,
            Optional<JsonNode> before,
            Optional<JsonNode> after,
            Diff diff,
            List<String> requestFields,
            OptionalInt status) {
        Entry {
            requireNonNull(id, "id");
            requireNonNull(resourceId, "resourceId");
            requireNonNull(projectId, "projectId");
            requireNonNull(before, "before");
            requireNonNull(after, "after");
            requestFields = List.copyOf(requestFields);
        }
    }

    /**
     * Which rows a list shows: {@code projects} empty means every row (an admin's list), else the rows of these
     * projects only; each other filter, when given, must match.
     */
    record Filter(
            Optional<Set<String>> projects,
            Optional<String> resourceType,
            Optional<String> resourceId,
            Optional<String> actor,
            Optional<String> action,
            Optional<String> requestId,
            Optional<Long> sinceMillis,
            Optional<Long> untilMillis) {}

    private final Database database;

    AuditStore(Database database) {
        this.database = requireNonNull(database, "database");
    }

    /**
     * Inside a write transaction of the change it records: inserts its row, unless an earlier transaction of the
     * same request did.
     */
    void insert(Handle handle, Entry entry) {
        handle.createUpdate("INSERT INTO audit_log (" + COLUMNS + ") VALUES (:id, :at, :actor_id, :actor_name, "
                        + ":action, :route, :type, :resource_id, :project, :request, :before, :after, :diff, "
                        + ":fields, :status) ON CONFLICT (id) DO NOTHING")
                .bind("id", entry.id())
                .bind("at", entry.createdAtMillis())
                .bind("actor_id", entry.actorId())
                .bind("actor_name", entry.actorName())
                .bind("action", entry.action())
                .bind("route", entry.route())
                .bind("type", entry.resourceType())
                .bind("resource_id", entry.resourceId().orElse(null))
                .bind("project", entry.projectId().orElse(null))
                .bind("request", entry.requestId())
                .bind("before", entry.before().map(Json::writeString).orElse(null))
                .bind("after", entry.after().map(Json::writeString).orElse(null))
                .bind("diff", entry.diff().wire())
                .bind("fields", Json.writeString(entry.requestFields()))
                .bind("status", entry.status().isPresent() ? entry.status().getAsInt() : null)
                .execute();
    }

    /** Completes a committed row once its request is answered: the resource's id and project, its state after. */
    void complete(
            String id,
            Optional<String> resourceId,
            Optional<String> projectId,
            Optional<JsonNode> after,
            Diff diff,
            List<String> requestFields,
            int status) {
        database.update(handle -> handle.createUpdate("""
                        UPDATE audit_log SET resource_id = COALESCE(:resource_id, resource_id),
                            project_id = COALESCE(:project, project_id), after_state = :after, diff = :diff,
                            request_fields = :fields, status = :status
                        WHERE id = :id""")
                .bind("resource_id", resourceId.orElse(null))
                .bind("project", projectId.orElse(null))
                .bind("after", after.map(Json::writeString).orElse(null))
                .bind("diff", diff.wire())
                .bind("fields", Json.writeString(requestFields))
                .bind("status", status)
                .bind("id", id)
                .execute());
    }

    Optional<Entry> find(String id) {
        return database.read(handle -> handle.createQuery("SELECT " + COLUMNS + " FROM audit_log WHERE id = :id")
                .bind("id", id)
                .map((rs, ctx) -> row(rs))
                .findOne());
    }

    Paging.Result<Entry> list(Page page, Filter filter) {
        if (filter.projects().filter(Set::isEmpty).isPresent()) {
            return new Paging.Result<>(List.of(), false);
        }
        String from = "audit_log WHERE "
                + (filter.projects().isPresent() ? "project_id IN (<projects>)" : "1 = 1")
                + filter.resourceType().map(t -> " AND resource_type = :type").orElse("")
                + filter.resourceId()
                        .map(r -> " AND resource_id = :resource_id")
                        .orElse("")
                + filter.actor().map(a -> " AND actor_id = :actor").orElse("")
                + filter.action().map(a -> " AND action = :action").orElse("")
                + filter.requestId().map(r -> " AND request_id = :request").orElse("")
                + filter.sinceMillis().map(s -> " AND created_at >= :since").orElse("")
                + filter.untilMillis().map(u -> " AND created_at < :until").orElse("");
        return database.read(handle ->
                Paging.newestFirst(handle, COLUMNS, from, page, (rs, ctx) -> row(rs), query -> bind(query, filter)));
    }

    /** Deletes the rows of changes made before {@code millis}; how many. */
    int deleteBefore(long millis) {
        return database.write(handle -> handle.createUpdate("DELETE FROM audit_log WHERE created_at < :t")
                .bind("t", millis)
                .execute());
    }

    private static void bind(Query query, Filter filter) {
        filter.projects().ifPresent(p -> query.bindList("projects", List.copyOf(p)));
        filter.resourceType().ifPresent(t -> query.bind("type", t));
        filter.resourceId().ifPresent(r -> query.bind("resource_id", r));
        filter.actor().ifPresent(a -> query.bind("actor", a));
        filter.action().ifPresent(a -> query.bind("action", a));
        filter.requestId().ifPresent(r -> query.bind("request", r));
        filter.sinceMillis().ifPresent(s -> query.bind("since", s));
        filter.untilMillis().ifPresent(u -> query.bind("until", u));
    }

    private static Entry row(ResultSet rs) throws SQLException {
        int status = rs.getInt("status");
        boolean noStatus = rs.wasNull();
        return new Entry(
                rs.getString("id"),
                rs.getLong("created_at"),
                rs.getString("actor_id"),
                rs.getString("actor_name"),
                rs.getString("action"),
                rs.getString("route"),
                rs.getString("resource_type"),
                Optional.ofNullable(rs.getString("resource_id")),
                Optional.ofNullable(rs.getString("project_id")),
                rs.getString("request_id"),
                Optional.ofNullable(rs.getString("before_state")).map(AuditStore::parse),
                Optional.ofNullable(rs.getString("after_state")).map(AuditStore::parse),
                Diff.of(rs.getString("diff")),
                readFields(rs.getString("request_fields")),
                noStatus ? OptionalInt.empty() : OptionalInt.of(status));
    }

    private static JsonNode parse(String json) {
        return Json.read(json);
    }

    private static List<String> readFields(String json) {
        var fields = new java.util.ArrayList<String>();
        parse(json).forEach(field -> fields.add(field.asText()));
        return fields;
    }
}
