package dev.arbor.studio.fitting;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.db.Columns;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.db.Paging;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.heads.Head;
import dev.arbor.studio.work.WorkRows;
import dev.arbor.studio.work.WorkStatus;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** The fits' tables: fits (jobs), heads (immutable artefacts) and the embeddings they were fitted on. */
final class FitStore {
    /** One fit as stored. */
    record Stored(
            String id,
            WorkStatus status,
            String templateId,
            int baseVersion,
            String model,
            List<String> questions,
            int done,
            int total,
            Optional<Integer> version,
            Optional<ObjectNode> heads,
            Optional<ObjectNode> error,
            long createdAtMillis,
            Optional<Long> startedAtMillis,
            Optional<Long> completedAtMillis) {}

    private final Database database;
    private final WorkRows rows;

    FitStore(Database database) {
        this.database = requireNonNull(database, "database");
        this.rows = new WorkRows(database, "studio_fits");
    }

    void insert(Stored fit, String serverInstance) {
        ArrayNode questions = Json.mapper().createArrayNode();
        fit.questions().forEach(questions::add);
        database.update(handle -> handle.createUpdate("INSERT INTO studio_fits (id, status, server_instance, "
                        + "template_id, base_version, model, questions, total, created_at) VALUES (:id, 'queued', "
                        + ":server, :template, :base, :model, :questions, :total, :now)")
                .bind("id", fit.id())
                .bind("server", serverInstance)
                .bind("template", fit.templateId())
                .bind("base", fit.baseVersion())
                .bind("model", fit.model())
                .bind("questions", Json.writeString(questions))
                .bind("total", fit.total())
                .bind("now", fit.createdAtMillis())
                .execute());
    }

    Optional<Stored> find(String id) {
        return database.read(handle -> handle.createQuery("SELECT * FROM studio_fits WHERE id = :id")
                .bind("id", id)
                .map((rs, ctx) -> stored(rs))
                .findOne());
    }

    /** Fits newest first: of one template, in one status, where asked. */
    Paging.Result<Stored> list(Page page, Optional<String> templateId, Optional<WorkStatus> status) {
        String from = "studio_fits WHERE 1 = 1"
                + templateId.map(t -> " AND template_id = :template").orElse("")
                + status.map(s -> " AND status = :status").orElse("");
        return database.read(handle -> Paging.newestFirst(
                handle,
                "*",
                from,
                page,
                (rs, ctx) -> stored(rs),
                cursor -> find(cursor).isPresent(),
                query -> {
                    templateId.ifPresent(t -> query.bind("template", t));
                    status.ifPresent(s -> query.bind("status", s.wire()));
                }));
    }

    /** The ids of the heads a fit wrote. */
    List<String> headIds(String fitId) {
        return database.read(handle -> handle.createQuery("SELECT id FROM studio_heads WHERE fit_id = :fit")
                .bind("fit", fitId)
                .mapTo(String.class)
                .list());
    }

    /** Deletes a fit and those of its heads that {@code kept} does not name, together. */
    void delete(String id, Set<String> kept) {
        database.update(handle -> {
            var heads = handle.createUpdate("DELETE FROM studio_heads WHERE fit_id = :id"
                            + (kept.isEmpty() ? "" : " AND id NOT IN (<kept>)"))
                    .bind("id", id);
            if (!kept.isEmpty()) {
                heads.bindList("kept", List.copyOf(kept));
            }
            heads.execute();
            handle.createUpdate("DELETE FROM studio_fits WHERE id = :id")
                    .bind("id", id)
                    .execute();
        });
    }

    /** Queued to in progress; false when it was cancelled first. */
    boolean start(String id, long now) {
        return rows.start(id, now);
    }

    void progress(String id, int done) {
        database.update(handle -> handle.createUpdate(
                        "UPDATE studio_fits SET done = :done WHERE id = :id AND status = 'in_progress'")
                .bind("done", done)
                .bind("id", id)
                .execute());
    }

    /** Finishes an unfinished fit; false when it had finished already (a cancel came first). */
    boolean finish(
            String id,
            WorkStatus status,
            Optional<Integer> version,
            Optional<ObjectNode> heads,
            Optional<ObjectNode> error,
            long now) {
        return rows.finish(
                id,
                status,
                "version = :version, heads = :heads, ",
                update -> update.bind("version", version.orElse(null))
                        .bind("heads", heads.map(Json::writeString).orElse(null)),
                error,
                now);
    }

    /** Fails the unfinished fits whose server is not registered (it stopped); returns how many. */
    int failUnfinishedOfUnregistered(ObjectNode error, long now) {
        return rows.failUnfinishedOfUnregistered(error, now);
    }

    /** The cached embeddings of these content hashes for a model, by hash. */
    Map<String, float[]> embeddings(String model, Collection<String> hashes) {
        var found = new HashMap<String, float[]>();
        if (hashes.isEmpty()) {
            return found;
        }
        database.read(handle -> handle.createQuery("SELECT content_hash, vector FROM studio_embeddings WHERE model = "
                                + ":model AND content_hash IN (<hashes>)")
                        .bind("model", model)
                        .bindList("hashes", List.copyOf(hashes))
                        .map((rs, ctx) -> Map.entry(rs.getString("content_hash"), Head.decode(rs.getString("vector"))))
                        .list())
                .forEach(e -> found.put(e.getKey(), e.getValue()));
        return found;
    }

    void putEmbeddings(String model, Map<String, float[]> vectors) {
        if (vectors.isEmpty()) {
            return;
        }
        database.update(handle -> {
            for (var entry : vectors.entrySet()) {
                handle.createUpdate("DELETE FROM studio_embeddings WHERE model = :model AND content_hash = :hash")
                        .bind("model", model)
                        .bind("hash", entry.getKey())
                        .execute();
                handle.createUpdate("INSERT INTO studio_embeddings (model, content_hash, vector) VALUES (:model, "
                                + ":hash, :vector)")
                        .bind("model", model)
                        .bind("hash", entry.getKey())
                        .bind("vector", Head.encode(entry.getValue()))
                        .execute();
            }
        });
    }

    private static Stored stored(ResultSet rs) throws SQLException {
        var questions = new ArrayList<String>();
        Json.read(rs.getString("questions")).forEach(q -> questions.add(q.asText()));
        return new Stored(
                rs.getString("id"),
                WorkStatus.stored(rs.getString("status")),
                rs.getString("template_id"),
                rs.getInt("base_version"),
                rs.getString("model"),
                questions,
                rs.getInt("done"),
                rs.getInt("total"),
                Columns.optionalInt(rs, "version"),
                WorkRows.object(rs, "heads"),
                WorkRows.object(rs, "error"),
                rs.getLong("created_at"),
                Columns.optionalLong(rs, "started_at"),
                Columns.optionalLong(rs, "completed_at"));
    }
}
