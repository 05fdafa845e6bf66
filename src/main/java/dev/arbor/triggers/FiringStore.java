package dev.arbor.triggers;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.events.EventSubscribers.Firing.Status;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.db.Paging;
import dev.arbor.platform.json.Json;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import org.jdbi.v3.core.Handle;

/**
 * The SQL of firings, their attempts at a URL, and debounce windows. A firing is unique per delivery, trigger and
 * round, so that a dispatch repeated after a crash records nothing new.
 */
final class FiringStore {
    private static final String COLUMNS = "id, trigger_id, project_id, delivery_id, round, status, event, window_id, "
            + "correlation_value, event_count, merged_into, run_id, error, fired_at, updated_at";

    /**
     * One firing.
     *
     * @param event the envelope's JSON, kept until the firing ends
     * @param eventCount how many events its debounce window merged into it (1 without debouncing)
     * @param mergedInto the later firing of its window that this one was merged into
     */
    record Firing(
            String id,
            String triggerId,
            String projectId,
            String deliveryId,
            int round,
            Status status,
            Optional<ObjectNode> event,
            Optional<String> windowId,
            Optional<String> correlationValue,
            int eventCount,
            Optional<String> mergedInto,
            Optional<String> runId,
            Optional<String> error,
            Instant firedAt,
            Instant updatedAt) {
        Firing {
            requireNonNull(id, "id");
            requireNonNull(status, "status");
            requireNonNull(event, "event");
            requireNonNull(windowId, "windowId");
            requireNonNull(correlationValue, "correlationValue");
            requireNonNull(mergedInto, "mergedInto");
            requireNonNull(runId, "runId");
            requireNonNull(error, "error");
        }
    }

    /** One try at delivering a firing to its URL: the status the URL answered, or why it could not be reached. */
    record Attempt(int attempt, Instant at, OptionalInt statusCode, Optional<String> error) {}

    /** A debounce window that is open: its firing starts the target when it is due. */
    record Window(String id, Instant dueAt) {}

    /** A window as it is while a firing joins it: with every event it has had, this one's included. */
    private record OpenWindow(Window window, int events) {}

    private final Database database;

    FiringStore(Database database) {
        this.database = requireNonNull(database, "database");
    }

    /** Records a firing unless its delivery, trigger and round have one already; the one stored either way. */
    Firing record(Firing firing) {
        return database.write(handle -> {
            insert(handle, firing);
            return stored(handle, firing);
        });
    }

    /**
     * Records a debounced firing in its trigger's open window for the correlation value, opening one due at
     * {@code dueAt} when there is none: the window's earlier firing is merged into this one, which counts every
     * event of the window. Answers the window the firing is waiting in (none once it has closed).
     *
     * @param correlation the correlation value as JSON text, or empty text when the event has none
     */
    Optional<Window> recordInWindow(Firing firing, String correlation, String newWindowId, Instant dueAt) {
        return database.write(handle -> {
            boolean recorded = insert(handle, firing);
            Firing stored = stored(handle, firing);
            if (!recorded) {
                return stored.windowId().flatMap(id -> window(handle, id));
            }
            handle.createUpdate("INSERT INTO trigger_windows (trigger_id, correlation_value, window_id, opened_at, "
                            + "due_at, event_count) VALUES (:trigger, :value, :window, :now, :due, 0) "
                            + "ON CONFLICT (trigger_id, correlation_value) DO NOTHING")
                    .bind("trigger", firing.triggerId())
                    .bind("value", correlation)
                    .bind("window", newWindowId)
                    .bind("now", firing.firedAt().toEpochMilli())
                    .bind("due", dueAt.toEpochMilli())
                    .execute();
            // the update locks the window's row first, so that events of one window join it one at a time
            handle.createUpdate("UPDATE trigger_windows SET event_count = event_count + 1 "
                            + "WHERE trigger_id = :trigger AND correlation_value = :value")
                    .bind("trigger", firing.triggerId())
                    .bind("value", correlation)
                    .execute();
            OpenWindow window = handle.createQuery("SELECT window_id, due_at, event_count FROM trigger_windows "
                            + "WHERE trigger_id = :trigger AND correlation_value = :value")
                    .bind("trigger", firing.triggerId())
                    .bind("value", correlation)
                    .map((rs, ctx) -> new OpenWindow(
                            new Window(rs.getString("window_id"), Instant.ofEpochMilli(rs.getLong("due_at"))),
                            rs.getInt("event_count")))
                    .one();
            String windowId = window.window().id();
            handle.createUpdate("UPDATE trigger_firings SET status = :merged, merged_into = :id, event = NULL, "
                            + "updated_at = :now WHERE window_id = :window AND status = :waiting")
                    .bind("merged", wire(Status.MERGED))
                    .bind("waiting", wire(Status.WAITING))
                    .bind("id", stored.id())
                    .bind("window", windowId)
                    .bind("now", firing.firedAt().toEpochMilli())
                    .execute();
            handle.createUpdate("UPDATE trigger_firings SET window_id = :window, correlation_value = :value, "
                            + "event_count = :count WHERE id = :id")
                    .bind("window", windowId)
                    .bind("value", correlation.isEmpty() ? null : correlation)
                    .bind("count", window.events())
                    .bind("id", stored.id())
                    .execute();
            return Optional.of(window.window());
        });
    }

    /**
     * Closes a window: later events open a new one. Answers its firing that is still waiting to start the target,
     * also when the window was closed before (a repeated close after a crash).
     */
    Optional<Firing> closeWindow(String windowId) {
        return database.write(handle -> {
            handle.createUpdate("DELETE FROM trigger_windows WHERE window_id = :window")
                    .bind("window", windowId)
                    .execute();
            return handle.createQuery("SELECT " + COLUMNS + " FROM trigger_firings WHERE window_id = :window "
                            + "AND status = :waiting")
                    .bind("window", windowId)
                    .bind("waiting", wire(Status.WAITING))
                    .map((rs, ctx) -> row(rs))
                    .findOne();
        });
    }

    Optional<Firing> find(String id) {
        return database.read(handle -> handle.createQuery("SELECT " + COLUMNS + " FROM trigger_firings WHERE id = :id")
                .bind("id", id)
                .map((rs, ctx) -> row(rs))
                .findOne());
    }

    /** A waiting firing's end: its run started, its URL answered, or it failed; its event is no longer kept. */
    void finish(String id, Status status, Optional<String> runId, Optional<String> error, Instant now) {
        database.update(handle -> handle.createUpdate("UPDATE trigger_firings SET status = :status, run_id = :run, "
                        + "error = :error, event = NULL, updated_at = :now WHERE id = :id AND status = :waiting")
                .bind("status", wire(status))
                .bind("run", runId.orElse(null))
                .bind("error", error.orElse(null))
                .bind("now", now.toEpochMilli())
                .bind("id", id)
                .bind("waiting", wire(Status.WAITING))
                .execute());
    }

    /** Records an attempt at a URL, and the error it leaves the firing with while it waits for the next. */
    void attempted(String firingId, Attempt attempt) {
        database.update(handle -> {
            handle.createUpdate("INSERT INTO trigger_firing_attempts (firing_id, attempt, attempted_at, status_code, "
                            + "error) VALUES (:firing, :attempt, :at, :status, :error) "
                            + "ON CONFLICT (firing_id, attempt) DO NOTHING")
                    .bind("firing", firingId)
                    .bind("attempt", attempt.attempt())
                    .bind("at", attempt.at().toEpochMilli())
                    .bind(
                            "status",
                            attempt.statusCode().isPresent()
                                    ? attempt.statusCode().getAsInt()
                                    : null)
                    .bind("error", attempt.error().orElse(null))
                    .execute();
            handle.createUpdate("UPDATE trigger_firings SET error = :error, updated_at = :at WHERE id = :id")
                    .bind("error", attempt.error().orElse(null))
                    .bind("at", attempt.at().toEpochMilli())
                    .bind("id", firingId)
                    .execute();
        });
    }

    List<Attempt> attempts(String firingId) {
        return database.read(handle -> handle.createQuery("SELECT attempt, attempted_at, status_code, error "
                        + "FROM trigger_firing_attempts WHERE firing_id = :id ORDER BY attempt")
                .bind("id", firingId)
                .map((rs, ctx) -> {
                    int status = rs.getInt("status_code");
                    return new Attempt(
                            rs.getInt("attempt"),
                            Instant.ofEpochMilli(rs.getLong("attempted_at")),
                            rs.wasNull() ? OptionalInt.empty() : OptionalInt.of(status),
                            Optional.ofNullable(rs.getString("error")));
                })
                .list());
    }

    /** What a delivery fired, in every round, oldest first. */
    List<Firing> ofDelivery(String deliveryId) {
        return database.read(handle -> handle.createQuery("SELECT " + COLUMNS + " FROM trigger_firings "
                        + "WHERE delivery_id = :delivery ORDER BY round, id")
                .bind("delivery", deliveryId)
                .map((rs, ctx) -> row(rs))
                .list());
    }

    /** A trigger's firings, newest first. */
    Paging.Result<Firing> ofTrigger(String triggerId, Page page) {
        return database.read(handle -> Paging.newestFirst(
                handle,
                COLUMNS,
                "trigger_firings WHERE trigger_id = :trigger",
                page,
                (rs, ctx) -> row(rs),
                cursor -> find(cursor)
                        .filter(f -> f.triggerId().equals(triggerId))
                        .isPresent(),
                query -> query.bind("trigger", triggerId)));
    }

    /** Whether the firing was new. */
    private static boolean insert(Handle handle, Firing firing) {
        return handle.createUpdate("INSERT INTO trigger_firings (" + COLUMNS + ") VALUES (:id, :trigger, :project, "
                                + ":delivery, :round, :status, :event, NULL, NULL, 1, NULL, NULL, NULL, :at, :at) "
                                + "ON CONFLICT (delivery_id, trigger_id, round) DO NOTHING")
                        .bind("id", firing.id())
                        .bind("trigger", firing.triggerId())
                        .bind("project", firing.projectId())
                        .bind("delivery", firing.deliveryId())
                        .bind("round", firing.round())
                        .bind("status", wire(firing.status()))
                        .bind("event", firing.event().map(Json::writeString).orElse(null))
                        .bind("at", firing.firedAt().toEpochMilli())
                        .execute()
                == 1;
    }

    private static Firing stored(Handle handle, Firing firing) {
        return handle.createQuery("SELECT " + COLUMNS + " FROM trigger_firings WHERE delivery_id = :delivery "
                        + "AND trigger_id = :trigger AND round = :round")
                .bind("delivery", firing.deliveryId())
                .bind("trigger", firing.triggerId())
                .bind("round", firing.round())
                .map((rs, ctx) -> row(rs))
                .one();
    }

    private static Optional<Window> window(Handle handle, String windowId) {
        return handle.createQuery("SELECT window_id, due_at FROM trigger_windows WHERE window_id = :window")
                .bind("window", windowId)
                .map((rs, ctx) -> new Window(rs.getString("window_id"), Instant.ofEpochMilli(rs.getLong("due_at"))))
                .findOne();
    }

    static String wire(Status status) {
        return status.name().toLowerCase(Locale.ROOT);
    }

    private static Firing row(ResultSet rs) throws SQLException {
        return new Firing(
                rs.getString("id"),
                rs.getString("trigger_id"),
                rs.getString("project_id"),
                rs.getString("delivery_id"),
                rs.getInt("round"),
                Status.valueOf(rs.getString("status").toUpperCase(Locale.ROOT)),
                Optional.ofNullable(rs.getString("event")).map(text -> (ObjectNode) Json.read(text)),
                Optional.ofNullable(rs.getString("window_id")),
                Optional.ofNullable(rs.getString("correlation_value")),
                rs.getInt("event_count"),
                Optional.ofNullable(rs.getString("merged_into")),
                Optional.ofNullable(rs.getString("run_id")),
                Optional.ofNullable(rs.getString("error")),
                Instant.ofEpochMilli(rs.getLong("fired_at")),
                Instant.ofEpochMilli(rs.getLong("updated_at")));
    }
}
