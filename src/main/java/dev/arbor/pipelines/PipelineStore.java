package dev.arbor.pipelines;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.pipelines.definitions.PipelineDefinition;
import dev.arbor.pipelines.runs.RunnablePipelines;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.db.Paging;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.json.Json;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Optional;
import java.util.OptionalLong;
import org.jdbi.v3.core.Handle;

/** The SQL of pipeline definitions. */
final class PipelineStore implements RunnablePipelines {
    private static final String COLUMNS =
            "id, name, definition, step_count, version, created_at, updated_at, paused_at";

    /** A stored pipeline: its definition as checked, at a version; paused since {@code pausedAtMillis}, if it is. */
    record Stored(
            String id,
            ObjectNode definition,
            int stepCount,
            int version,
            long createdAtMillis,
            long updatedAtMillis,
            OptionalLong pausedAtMillis)
            implements RunnablePipelines.Pipeline {
        @Override
        public boolean paused() {
            return pausedAtMillis.isPresent();
        }
    }

    private final Database database;
    private final Clock clock;

    PipelineStore(Database database, Clock clock) {
        this.database = requireNonNull(database, "database");
        this.clock = requireNonNull(clock, "clock");
    }

    Stored create(PipelineDefinition definition) {
        return database.write(handle -> {
            requireFreeName(handle, definition.name(), Optional.empty());
            long now = clock.millis();
            var stored = new Stored(
                    Ids.next("pl"), definition.toJson(), definition.steps().size(), 1, now, now, OptionalLong.empty());
            handle.createUpdate("""
                            INSERT INTO pipelines (id, name, definition, step_count, version, created_at, updated_at)
                            VALUES (:id, :name, :definition, :steps, 1, :now, :now)""")
                    .bind("id", stored.id())
                    .bind("name", definition.name())
                    .bind("definition", Json.writeString(stored.definition()))
                    .bind("steps", stored.stepCount())
                    .bind("now", now)
                    .execute();
            saveVersion(handle, stored);
            return stored;
        });
    }

    Optional<Stored> find(String id) {
        return database.read(handle -> handle.createQuery("SELECT " + COLUMNS + " FROM pipelines WHERE id = :id")
                .bind("id", id)
                .map(PipelineStore::row)
                .findOne());
    }

    @Override
    public Stored require(String id) {
        return find(id).orElseThrow(() -> notFound(id));
    }

    static ApiException notFound(String id) {
        return ApiException.of(ErrorCode.PIPELINE_NOT_FOUND, "pipeline_id", "There is no pipeline '" + id + "'.");
    }

    Paging.Result<Stored> list(Page page) {
        return database.read(handle -> Paging.newestFirst(
                handle,
                COLUMNS,
                "pipelines WHERE 1 = 1",
                page,
                PipelineStore::row,
                cursor -> handle.createQuery("SELECT count(*) FROM pipelines WHERE id = :id")
                                .bind("id", cursor)
                                .mapTo(Integer.class)
                                .one()
                        > 0,
                query -> {}));
    }

    /** Replaces a pipeline's definition with a new version; empty when there is no such pipeline. */
    Optional<Stored> replace(String id, PipelineDefinition definition) {
        return database.write(handle -> {
            Optional<Stored> current = handle.createQuery("SELECT " + COLUMNS + " FROM pipelines WHERE id = :id"
                            + database.dialect().forUpdate())
                    .bind("id", id)
                    .map(PipelineStore::row)
                    .findOne();
            if (current.isEmpty()) {
                return Optional.empty();
            }
            requireFreeName(handle, definition.name(), Optional.of(id));
            var stored = new Stored(
                    id,
                    definition.toJson(),
                    definition.steps().size(),
                    current.get().version() + 1,
                    current.get().createdAtMillis(),
                    clock.millis(),
                    current.get().pausedAtMillis());
            handle.createUpdate("""
                            UPDATE pipelines SET name = :name, definition = :definition, step_count = :steps,
                                version = :version, updated_at = :now
                            WHERE id = :id""")
                    .bind("name", definition.name())
                    .bind("definition", Json.writeString(stored.definition()))
                    .bind("steps", stored.stepCount())
                    .bind("version", stored.version())
                    .bind("now", stored.updatedAtMillis())
                    .bind("id", id)
                    .execute();
            saveVersion(handle, stored);
            return Optional.of(stored);
        });
    }

    /** Pauses a pipeline: no new run of it starts. One paused already stays as it was. Empty when there is none. */
    Optional<Stored> pause(String id) {
        return changePause(
                id,
                handle -> handle.createUpdate(
                                "UPDATE pipelines SET paused_at = :now WHERE id = :id AND paused_at IS NULL")
                        .bind("now", clock.millis())
                        .bind("id", id)
                        .execute());
    }

    /** Resumes a paused pipeline; one not paused stays as it is. Empty when there is no such pipeline. */
    Optional<Stored> resume(String id) {
        return changePause(
                id,
                handle -> handle.createUpdate("UPDATE pipelines SET paused_at = NULL WHERE id = :id")
                        .bind("id", id)
                        .execute());
    }

    private Optional<Stored> changePause(String id, java.util.function.Consumer<Handle> update) {
        return database.write(handle -> {
            update.accept(handle);
            return handle.createQuery("SELECT " + COLUMNS + " FROM pipelines WHERE id = :id")
                    .bind("id", id)
                    .map(PipelineStore::row)
                    .findOne();
        });
    }

    /** A saved definition of a pipeline. */
    record Version(String pipelineId, int version, ObjectNode definition, long createdAtMillis) {}

    private static void saveVersion(Handle handle, Stored stored) {
        handle.createUpdate("INSERT INTO pipeline_versions (pipeline_id, version, definition, created_at) "
                        + "VALUES (:id, :version, :definition, :at)")
                .bind("id", stored.id())
                .bind("version", stored.version())
                .bind("definition", Json.writeString(stored.definition()))
                .bind("at", stored.updatedAtMillis())
                .execute();
    }

    /** Every saved definition of a pipeline, newest first. */
    java.util.List<Version> versions(String id) {
        return database.read(handle -> handle.createQuery("SELECT pipeline_id, version, definition, created_at "
                        + "FROM pipeline_versions WHERE pipeline_id = :id ORDER BY version DESC")
                .bind("id", id)
                .map((rs, ctx) -> new Version(
                        rs.getString("pipeline_id"),
                        rs.getInt("version"),
                        (ObjectNode) Json.read(rs.getString("definition")),
                        rs.getLong("created_at")))
                .list());
    }

    /** One saved definition of a pipeline. */
    Optional<Version> version(String id, int version) {
        return database.read(handle -> handle.createQuery("SELECT pipeline_id, version, definition, created_at "
                        + "FROM pipeline_versions WHERE pipeline_id = :id AND version = :version")
                .bind("id", id)
                .bind("version", version)
                .map((rs, ctx) -> new Version(
                        rs.getString("pipeline_id"),
                        rs.getInt("version"),
                        (ObjectNode) Json.read(rs.getString("definition")),
                        rs.getLong("created_at")))
                .findOne());
    }

    boolean delete(String id) {
        return database.write(handle -> handle.createUpdate("DELETE FROM pipelines WHERE id = :id")
                        .bind("id", id)
                        .execute()
                == 1);
    }

    private static void requireFreeName(Handle handle, String name, Optional<String> except) {
        Optional<String> holder = handle.createQuery("SELECT id FROM pipelines WHERE name = :name")
                .bind("name", name)
                .mapTo(String.class)
                .findOne()
                .filter(id -> except.map(e -> !e.equals(id)).orElse(true));
        if (holder.isPresent()) {
            throw ApiException.of(
                    ErrorCode.PIPELINE_EXISTS,
                    "name",
                    "Pipeline " + holder.get() + " is named '" + name + "' already; pipeline names are unique.");
        }
    }

    private static Stored row(ResultSet rs, org.jdbi.v3.core.statement.StatementContext ctx) throws SQLException {
        return new Stored(
                rs.getString("id"),
                (ObjectNode) Json.read(rs.getString("definition")),
                rs.getInt("step_count"),
                rs.getInt("version"),
                rs.getLong("created_at"),
                rs.getLong("updated_at"),
                pausedAt(rs));
    }

    private static OptionalLong pausedAt(ResultSet rs) throws SQLException {
        long value = rs.getLong("paused_at");
        return rs.wasNull() ? OptionalLong.empty() : OptionalLong.of(value);
    }
}
