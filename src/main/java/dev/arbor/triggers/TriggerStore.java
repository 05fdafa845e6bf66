package dev.arbor.triggers;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.events.providers.PayloadPath;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.db.Paging;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.secrets.SecretBox;
import dev.arbor.triggers.Trigger.PreviousSecret;
import dev.arbor.triggers.Trigger.Target;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jdbi.v3.core.Handle;

/** The SQL of triggers; a URL target's signing secrets are sealed and opened here. */
final class TriggerStore {
    private static final String COLUMNS = "id, project_id, connection_id, name, event_types, filter, target, secret, "
            + "previous_secret, previous_secret_expires_at, enabled, debounce_seconds, correlation_key, created_at, "
            + "updated_at";

    private final Database database;
    private final SecretBox box;

    TriggerStore(Database database, SecretBox box) {
        this.database = requireNonNull(database, "database");
        this.box = requireNonNull(box, "box");
    }

    void create(Trigger trigger) {
        database.update(handle -> handle.createUpdate("INSERT INTO triggers (" + COLUMNS + ") VALUES (:id, :project, "
                        + ":connection, :name, :types, :filter, :target, :secret, :previous, :previous_expires, "
                        + ":enabled, :debounce, :correlation, :created, :updated)")
                .bindMap(values(trigger))
                .execute());
    }

    /** Stores a trigger's new settings, changed at its {@code updatedAt}. */
    void update(Trigger trigger) {
        database.update(handle -> handle.createUpdate("UPDATE triggers SET connection_id = :connection, name = :name, "
                        + "event_types = :types, filter = :filter, target = :target, secret = :secret, "
                        + "previous_secret = :previous, previous_secret_expires_at = :previous_expires, "
                        + "enabled = :enabled, debounce_seconds = :debounce, correlation_key = :correlation, "
                        + "updated_at = :updated WHERE id = :id")
                .bindMap(values(trigger))
                .execute());
    }

    Optional<Trigger> find(String id) {
        return database.read(handle -> handle.createQuery("SELECT " + COLUMNS + " FROM triggers WHERE id = :id")
                .bind("id", id)
                .map((rs, ctx) -> row(rs))
                .findOne());
    }

    /**
     * The triggers of these projects (empty: of every project), newest first; of one connection's events when one
     * is named.
     */
    Paging.Result<Trigger> list(Page page, Optional<Set<String>> projects, Optional<String> connectionId) {
        if (projects.filter(Set::isEmpty).isPresent()) {
            return new Paging.Result<>(List.of(), false);
        }
        String from = "triggers WHERE " + (projects.isPresent() ? "project_id IN (<projects>)" : "1 = 1")
                + (connectionId.isPresent() ? " AND connection_id = :connection" : "");
        return database.read(handle -> Paging.newestFirst(
                handle,
                COLUMNS,
                from,
                page,
                (rs, ctx) -> row(rs),
                cursor -> find(cursor)
                        .filter(t -> projects.map(p -> p.contains(t.projectId()))
                                        .orElse(true)
                                && connectionId.map(t.connectionId()::equals).orElse(true))
                        .isPresent(),
                query -> {
                    projects.ifPresent(p -> query.bindList("projects", List.copyOf(p)));
                    connectionId.ifPresent(id -> query.bind("connection", id));
                }));
    }

    /** The enabled triggers of a connection's events. */
    List<Trigger> enabledOf(String connectionId) {
        return database.read(handle -> handle.createQuery("SELECT " + COLUMNS
                        + " FROM triggers WHERE connection_id = :connection AND enabled = 1 " + "ORDER BY id")
                .bind("connection", connectionId)
                .map((rs, ctx) -> row(rs))
                .list());
    }

    boolean delete(String id) {
        return database.write(handle -> deleteTriggers(handle, List.of(id))) == 1;
    }

    /** Deletes a connection's triggers in projects other than {@code kept}; how many. */
    int deleteOutside(String connectionId, Set<String> kept) {
        return database.write(handle -> {
            List<String> ids = handle
                    .createQuery("SELECT id, project_id FROM triggers WHERE connection_id = :c")
                    .bind("c", connectionId)
                    .map((rs, ctx) -> kept.contains(rs.getString("project_id")) ? "" : rs.getString("id"))
                    .list()
                    .stream()
                    .filter(id -> !id.isEmpty())
                    .toList();
            return ids.isEmpty() ? 0 : deleteTriggers(handle, ids);
        });
    }

    /** Deletes triggers with their open debounce windows; their firings stay, the log of what happened. */
    private static int deleteTriggers(Handle handle, List<String> ids) {
        handle.createUpdate("DELETE FROM trigger_windows WHERE trigger_id IN (<ids>)")
                .bindList("ids", ids)
                .execute();
        return handle.createUpdate("DELETE FROM triggers WHERE id IN (<ids>)")
                .bindList("ids", ids)
                .execute();
    }

    private Map<String, Object> values(Trigger trigger) {
        var values = new HashMap<String, Object>();
        values.put("id", trigger.id());
        values.put("project", trigger.projectId());
        values.put("connection", trigger.connectionId());
        values.put("name", trigger.name());
        values.put("types", Json.writeString(trigger.eventTypes()));
        values.put("filter", Json.writeString(trigger.filter().toJson()));
        ObjectNode target = Json.object();
        Optional<Target.Url> url = Optional.empty();
        switch (trigger.target()) {
            case Target.Pipeline pipeline -> {
                target.put("pipeline_id", pipeline.pipelineId());
                target.set("params", pipeline.params());
            }
            case Target.Url to -> {
                target.put("url", to.url());
                url = Optional.of(to);
            }
        }
        values.put("target", Json.writeString(target));
        values.put(
                "secret",
                url.map(u -> box.seal(u.secret(), context(trigger.id(), "secret")))
                        .orElse(null));
        Optional<PreviousSecret> previous = url.flatMap(Target.Url::previous);
        values.put(
                "previous",
                previous.map(p -> box.seal(p.secret(), context(trigger.id(), "previous")))
                        .orElse(null));
        values.put(
                "previous_expires",
                previous.map(p -> p.expiresAt().toEpochMilli()).orElse(null));
        values.put("enabled", trigger.enabled() ? 1 : 0);
        values.put("debounce", trigger.debounceSeconds());
        values.put(
                "correlation", trigger.correlationKey().map(PayloadPath::text).orElse(null));
        values.put("created", trigger.createdAt().toEpochMilli());
        values.put("updated", trigger.updatedAt().toEpochMilli());
        return values;
    }

    /** Binds sealed values to their trigger and column: copied to another row, they do not open. */
    private static String context(String id, String part) {
        return "trigger:" + id + ":" + part;
    }

    private Trigger row(ResultSet rs) throws SQLException {
        String id = rs.getString("id");
        JsonNode target = Json.read(rs.getString("target"));
        Target parsed;
        if (target.has("url")) {
            String previous = rs.getString("previous_secret");
            long previousExpires = rs.getLong("previous_secret_expires_at");
            parsed = new Target.Url(
                    target.path("url").asText(),
                    box.open(rs.getString("secret"), context(id, "secret")),
                    Optional.ofNullable(previous)
                            .map(text -> new PreviousSecret(
                                    box.open(text, context(id, "previous")), Instant.ofEpochMilli(previousExpires))));
        } else {
            parsed = new Target.Pipeline(target.path("pipeline_id").asText(), (ObjectNode) target.path("params"));
        }
        var types = new ArrayList<String>();
        Json.read(rs.getString("event_types")).forEach(type -> types.add(type.asText()));
        var conditions = new ArrayList<EventFilter.Condition>();
        Json.read(rs.getString("filter"))
                .properties()
                .forEach(entry -> conditions.add(new EventFilter.Condition(
                        PayloadPath.parse(entry.getKey()).orElseThrow(), entry.getValue())));
        return new Trigger(
                id,
                rs.getString("project_id"),
                rs.getString("connection_id"),
                rs.getString("name"),
                types,
                new EventFilter(conditions),
                parsed,
                rs.getInt("enabled") == 1,
                rs.getInt("debounce_seconds"),
                Optional.ofNullable(rs.getString("correlation_key"))
                        .map(k -> PayloadPath.parse(k).orElseThrow()),
                Instant.ofEpochMilli(rs.getLong("created_at")),
                Instant.ofEpochMilli(rs.getLong("updated_at")));
    }
}
