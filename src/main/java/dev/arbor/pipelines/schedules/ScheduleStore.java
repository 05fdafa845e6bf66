package dev.arbor.pipelines.schedules;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.db.Paging;
import dev.arbor.platform.json.Json;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.UnaryOperator;
import org.jdbi.v3.core.statement.StatementContext;
import org.jspecify.annotations.Nullable;

/** The SQL of pipeline schedules. */
final class ScheduleStore {
    private static final String COLUMNS = "id, pipeline_id, name, cron, timezone, params, status, generation, "
            + "next_run_at, last_run_at, last_run_id, last_error, run_count, created_at, updated_at";

    enum Status {
        ACTIVE,
        PAUSED;

        String json() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    record Schedule(
            String id,
            String pipelineId,
            String name,
            String cron,
            String timezone,
            ObjectNode params,
            Status status,
            int generation,
            OptionalLong nextRunAt,
            OptionalLong lastRunAt,
            Optional<String> lastRunId,
            Optional<String> lastError,
            int runCount,
            long createdAt,
            long updatedAt) {
        Schedule {
            requireNonNull(id, "id");
            requireNonNull(params, "params");
        }

        Schedule with(
                String name, String cron, String timezone, ObjectNode params, Status status, OptionalLong nextRunAt) {
            return new Schedule(
                    id,
                    pipelineId,
                    name,
                    cron,
                    timezone,
                    params,
                    status,
                    generation,
                    nextRunAt,
                    lastRunAt,
                    lastRunId,
                    lastError,
                    runCount,
                    createdAt,
                    updatedAt);
        }
    }

    private final Database database;
    private final Clock clock;

    ScheduleStore(Database database, Clock clock) {
        this.database = requireNonNull(database, "database");
        this.clock = requireNonNull(clock, "clock");
    }

    void create(Schedule schedule) {
        database.update(handle -> handle.createUpdate("INSERT INTO pipeline_schedules (" + COLUMNS + ") VALUES "
                        + "(:id, :pipeline, :name, :cron, :zone, :params, :status, :generation, :next, NULL, NULL, "
                        + "NULL, 0, :now, :now)")
                .bind("id", schedule.id())
                .bind("pipeline", schedule.pipelineId())
                .bind("name", schedule.name())
                .bind("cron", schedule.cron())
                .bind("zone", schedule.timezone())
                .bind("params", Json.writeString(schedule.params()))
                .bind("status", schedule.status().json())
                .bind("generation", schedule.generation())
                .bind("next", millis(schedule.nextRunAt()))
                .bind("now", schedule.createdAt())
                .execute());
    }

    Optional<Schedule> find(String id) {
        return database.read(
                handle -> handle.createQuery("SELECT " + COLUMNS + " FROM pipeline_schedules " + "WHERE id = :id")
                        .bind("id", id)
                        .map(ScheduleStore::row)
                        .findOne());
    }

    Paging.Result<Schedule> list(String pipelineId, Page page) {
        return database.read(handle -> Paging.newestFirst(
                handle,
                COLUMNS,
                "pipeline_schedules WHERE pipeline_id = :pipeline",
                page,
                ScheduleStore::row,
                cursor -> handle.createQuery("SELECT count(*) FROM pipeline_schedules WHERE id = :id "
                                        + "AND pipeline_id = :p")
                                .bind("id", cursor)
                                .bind("p", pipelineId)
                                .mapTo(Integer.class)
                                .one()
                        > 0,
                query -> query.bind("pipeline", pipelineId)));
    }

    /** Changes a schedule at a new generation (firings armed before are stale); empty when there is none. */
    Optional<Schedule> change(String id, UnaryOperator<Schedule> change) {
        return database.write(handle -> {
            Optional<Schedule> current = handle.createQuery("SELECT " + COLUMNS + " FROM pipeline_schedules "
                            + "WHERE id = :id" + database.dialect().forUpdate())
                    .bind("id", id)
                    .map(ScheduleStore::row)
                    .findOne();
            if (current.isEmpty()) {
                return Optional.empty();
            }
            Schedule changed = change.apply(current.get());
            handle.createUpdate("UPDATE pipeline_schedules SET name = :name, cron = :cron, timezone = :zone, "
                            + "params = :params, status = :status, generation = generation + 1, next_run_at = :next, "
                            + "updated_at = :now WHERE id = :id")
                    .bind("name", changed.name())
                    .bind("cron", changed.cron())
                    .bind("zone", changed.timezone())
                    .bind("params", Json.writeString(changed.params()))
                    .bind("status", changed.status().json())
                    .bind("next", millis(changed.nextRunAt()))
                    .bind("now", clock.millis())
                    .bind("id", id)
                    .execute();
            return handle.createQuery("SELECT " + COLUMNS + " FROM pipeline_schedules WHERE id = :id")
                    .bind("id", id)
                    .map(ScheduleStore::row)
                    .findOne();
        });
    }

    boolean delete(String id) {
        return database.write(handle -> handle.createUpdate("DELETE FROM pipeline_schedules WHERE id = :id")
                        .bind("id", id)
                        .execute()
                == 1);
    }

    /**
     * Records a firing of the schedule's current generation: the run it started (or why none started) and the
     * next firing; false when the schedule has changed or gone since it was armed.
     */
    boolean fired(
            String id,
            int generation,
            long firedAt,
            Optional<String> runId,
            Optional<String> error,
            OptionalLong next) {
        return database.write(handle -> handle.createUpdate("UPDATE pipeline_schedules SET last_run_at = :at, "
                                + "last_run_id = COALESCE(:run, last_run_id), last_error = :error, "
                                + "run_count = run_count + :counted, next_run_at = :next, updated_at = :now "
                                + "WHERE id = :id AND generation = :generation")
                        .bind("at", firedAt)
                        .bind("run", runId.orElse(null))
                        .bind("error", error.orElse(null))
                        .bind("counted", runId.isPresent() ? 1 : 0)
                        .bind("next", millis(next))
                        .bind("now", clock.millis())
                        .bind("id", id)
                        .bind("generation", generation)
                        .execute()
                == 1);
    }

    private static @Nullable Long millis(OptionalLong value) {
        return value.isPresent() ? value.getAsLong() : null;
    }

    /** A nullable time column: a firing that has not come, or has not happened yet. */
    private static OptionalLong millis(ResultSet rs, String column) throws SQLException {
        long value = rs.getLong(column);
        return rs.wasNull() ? OptionalLong.empty() : OptionalLong.of(value);
    }

    private static Schedule row(ResultSet rs, StatementContext ctx) throws SQLException {
        return new Schedule(
                rs.getString("id"),
                rs.getString("pipeline_id"),
                rs.getString("name"),
                rs.getString("cron"),
                rs.getString("timezone"),
                (ObjectNode) Json.read(rs.getString("params")),
                Status.valueOf(rs.getString("status").toUpperCase(Locale.ROOT)),
                rs.getInt("generation"),
                millis(rs, "next_run_at"),
                millis(rs, "last_run_at"),
                Optional.ofNullable(rs.getString("last_run_id")),
                Optional.ofNullable(rs.getString("last_error")),
                rs.getInt("run_count"),
                rs.getLong("created_at"),
                rs.getLong("updated_at"));
    }
}
