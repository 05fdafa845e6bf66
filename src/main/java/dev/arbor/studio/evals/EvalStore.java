package dev.arbor.studio.evals;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.db.Columns;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.db.Paging;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.work.WorkRows;
import dev.arbor.studio.work.WorkStatus;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/** The evals' tables: one row per eval, one per item per target. Nothing else reads or writes them. */
final class EvalStore {
    private static final String COLUMNS =
            "id, status, template_id, request, done, total, failed_items, results, error, "
                    + "created_at, started_at, completed_at";

    /** One eval as stored; {@code request} is the request in normal form, as the eval shows it. */
    record Stored(
            String id,
            WorkStatus status,
            Optional<String> templateId,
            ObjectNode request,
            int done,
            int total,
            int failedItems,
            Optional<ObjectNode> results,
            Optional<ObjectNode> error,
            long createdAtMillis,
            Optional<Long> startedAtMillis,
            Optional<Long> completedAtMillis) {}

    /** What one item answered on one target; {@code answers} is empty when its decision failed. */
    record Item(
            int target,
            int position,
            String source,
            Optional<String> split,
            Optional<String> decisionId,
            ObjectNode expected,
            Optional<ObjectNode> answers,
            Optional<ObjectNode> error) {
        /** The item's id in the items list: its target and position. */
        String id() {
            return target + "." + position;
        }
    }

    private final Database database;
    private final WorkRows rows;

    EvalStore(Database database) {
        this.database = requireNonNull(database, "database");
        this.rows = new WorkRows(database, "studio_evals");
    }

    void insert(
            String id, String serverInstance, Optional<String> templateId, ObjectNode request, int total, long now) {
        database.update(handle -> handle.createUpdate("INSERT INTO studio_evals (id, status, server_instance, "
                        + "template_id, request, total, created_at) VALUES (:id, 'queued', :server, :template, "
                        + ":request, :total, :now)")
                .bind("id", id)
                .bind("server", serverInstance)
                .bind("template", templateId.orElse(null))
                .bind("request", Json.writeString(request))
                .bind("total", total)
                .bind("now", now)
                .execute());
    }

    Optional<Stored> find(String id) {
        return database.read(handle -> handle.createQuery("SELECT " + COLUMNS + " FROM studio_evals WHERE id = :id")
                .bind("id", id)
                .map((rs, ctx) -> stored(rs))
                .findOne());
    }

    Paging.Result<Stored> list(Page page) {
        return database.read(handle -> Paging.newestFirst(
                handle,
                COLUMNS,
                "studio_evals WHERE 1 = 1",
                page,
                (rs, ctx) -> stored(rs),
                cursor -> find(cursor).isPresent(),
                q -> {}));
    }

    /** Queued to in progress; false when it was cancelled first. */
    boolean start(String id, long now) {
        return rows.start(id, now);
    }

    /**
     * Records the items of one step and the progress they make, while the eval is in progress; nothing once it was
     * cancelled or deleted meanwhile.
     */
    void record(String id, List<Item> items, int done, int failed) {
        database.update(handle -> {
            int running = handle.createUpdate("UPDATE studio_evals SET done = :done, failed_items = :failed WHERE id "
                            + "= :id AND status = 'in_progress'")
                    .bind("done", done)
                    .bind("failed", failed)
                    .bind("id", id)
                    .execute();
            if (running == 0) {
                return;
            }
            var batch = handle.prepareBatch("INSERT INTO studio_eval_items (eval_id, target, position, source, split, "
                    + "decision_id, expected, answers, error) VALUES (:eval, :target, :position, :source, :split, "
                    + ":decision, :expected, :answers, :error)");
            for (Item item : items) {
                batch.bind("eval", id)
                        .bind("target", item.target())
                        .bind("position", item.position())
                        .bind("source", item.source())
                        .bind("split", item.split().orElse(null))
                        .bind("decision", item.decisionId().orElse(null))
                        .bind("expected", Json.writeString(item.expected()))
                        .bind("answers", item.answers().map(Json::writeString).orElse(null))
                        .bind("error", item.error().map(Json::writeString).orElse(null))
                        .add();
            }
            if (!items.isEmpty()) {
                batch.execute();
            }
        });
    }

    /** Every item of an eval, by target and position. */
    List<Item> items(String id) {
        return database.read(handle -> handle.createQuery(
                        "SELECT * FROM studio_eval_items WHERE eval_id = :id ORDER BY target, position")
                .bind("id", id)
                .map((rs, ctx) -> item(rs))
                .list());
    }

    /** A page of items after {@code after} (target, position), at most {@code limit} + 1 to tell if more follow. */
    List<Item> items(String id, Optional<int[]> after, int limit) {
        String from = after.isPresent() ? " AND (target > :t OR (target = :t AND position > :p))" : "";
        return database.read(handle -> {
            var query = handle.createQuery("SELECT * FROM studio_eval_items WHERE eval_id = :id" + from
                            + " ORDER BY target, position LIMIT :fetch")
                    .bind("id", id)
                    .bind("fetch", limit + 1);
            after.ifPresent(cursor -> query.bind("t", cursor[0]).bind("p", cursor[1]));
            return query.map((rs, ctx) -> item(rs)).list();
        });
    }

    /** Finishes an unfinished eval; false when it had finished already (a cancel came first). */
    boolean finish(String id, WorkStatus status, Optional<ObjectNode> results, Optional<ObjectNode> error, long now) {
        return rows.finish(
                id,
                status,
                "results = :results, ",
                update -> update.bind("results", results.map(Json::writeString).orElse(null)),
                error,
                now);
    }

    boolean delete(String id) {
        return database.write(handle -> {
            handle.createUpdate("DELETE FROM studio_eval_items WHERE eval_id = :id")
                    .bind("id", id)
                    .execute();
            return handle.createUpdate("DELETE FROM studio_evals WHERE id = :id")
                            .bind("id", id)
                            .execute()
                    == 1;
        });
    }

    /**
     * Fails the unfinished evals whose server is not registered (it stopped, and the decisions' recovery forgot it);
     * returns how many.
     */
    int failUnfinishedOfUnregistered(ObjectNode error, long now) {
        return rows.failUnfinishedOfUnregistered(error, now);
    }

    private static Stored stored(ResultSet rs) throws SQLException {
        return new Stored(
                rs.getString("id"),
                WorkStatus.stored(rs.getString("status")),
                Optional.ofNullable(rs.getString("template_id")),
                (ObjectNode) Json.read(rs.getString("request")),
                rs.getInt("done"),
                rs.getInt("total"),
                rs.getInt("failed_items"),
                WorkRows.object(rs, "results"),
                WorkRows.object(rs, "error"),
                rs.getLong("created_at"),
                Columns.optionalLong(rs, "started_at"),
                Columns.optionalLong(rs, "completed_at"));
    }

    private static Item item(ResultSet rs) throws SQLException {
        return new Item(
                rs.getInt("target"),
                rs.getInt("position"),
                rs.getString("source"),
                Optional.ofNullable(rs.getString("split")),
                Optional.ofNullable(rs.getString("decision_id")),
                (ObjectNode) Json.read(rs.getString("expected")),
                WorkRows.object(rs, "answers"),
                WorkRows.object(rs, "error"));
    }
}
