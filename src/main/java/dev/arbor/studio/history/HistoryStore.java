package dev.arbor.studio.history;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.db.Paging;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.templates.Templates;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.jdbi.v3.core.statement.SqlStatement;

/** The SQL of decisions. A decision, its answers and its secrets are written in one transaction. */
public final class HistoryStore {
    private static final String COLUMNS = "seq, id, status, storage, surface, endpoint, request_id, template_id, "
            + "template_version, model, act, min_certainty, error_code, pinned, metadata, rerun_of, created_at, "
            + "completed_at, total_ms, body, input";

    private final Database database;
    private final Predicate<String> fileAvailable;
    private final SearchIndex searchIndex;

    /** @param fileAvailable whether a media file a decision kept still exists with its bytes */
    public HistoryStore(Database database, Clock clock, Predicate<String> fileAvailable) {
        this.database = requireNonNull(database, "database");
        this.fileAvailable = requireNonNull(fileAvailable, "fileAvailable");
        this.searchIndex = new SearchIndex(database, clock);
    }

    /** A history filter read from query parameters, as this database can run it. */
    public HistoryQuery query(Map<String, String> params, Templates templates, Instant now) {
        return HistoryQuery.parse(params, templates, now, database.dialect(), searchIndex.searchable());
    }

    Database database() {
        return database;
    }

    /**
     * A decision with its JSON written out beforehand: the caller's thread does that work, and the one writer only
     * writes.
     */
    public record Prepared(
            StoredDecision decision, String body, Optional<String> input, String metadata, long storedBytes) {}

    public static Prepared prepare(StoredDecision decision) {
        String body = Json.writeString(DecidedCodec.write(decision.decided()));
        Optional<String> input = decision.input().map(i -> Json.writeString(i.json()));
        String metadata = Json.writeString(decision.metadata());
        return new Prepared(
                decision, body, input, metadata, HistoryRows.storedBytes(body, decision.input(), input, metadata));
    }

    /**
     * Several decisions in one transaction: all of them are stored, or none. The rows go through plain JDBC, one
     * batch per statement (see {@link Database#jdbc}), and the rows that belong to a decision find it by its id, so
     * no generated key is read back.
     *
     * @param serverInstance the server that makes them, and runs those still queued or running
     */
    public void insertAll(List<Prepared> decisions, String serverInstance) {
        requireNonNull(serverInstance, "serverInstance");
        database.update(handle -> {
            database.jdbc(handle, statements -> {
                HistoryRows.insertRows(statements, decisions, serverInstance);
                HistoryRows.insertDetails(
                        statements, decisions.stream().map(Prepared::decision).toList());
            });
            // counted once for the whole batch: the totals cost two statements per commit, not per decision
            if (decisions.stream().anyMatch(p -> p.decision().templateId().isPresent())) {
                StatsRollup.count(
                        handle,
                        "d.id IN (<ids>)",
                        q -> q.bindList(
                                "ids",
                                decisions.stream().map(p -> p.decision().id()).toList()),
                        1);
            }
            searchIndex.written(handle, decisions.size());
        });
    }

    /**
     * Replaces a queued or running decision with its outcome, keeping the pin and metadata set meanwhile. Returns
     * false when it had finished already (cancelled while it ran).
     */
    public boolean finish(StoredDecision decision) {
        return database.write(handle -> {
            Optional<Long> seq = handle.createQuery("SELECT seq FROM studio_decisions WHERE id = :id AND status IN "
                            + "('queued', 'in_progress')" + database.dialect().forUpdate())
                    .bind("id", decision.id())
                    .mapTo(Long.class)
                    .findOne();
            if (seq.isEmpty()) {
                return false;
            }
            StatsRollup.count(handle, "d.seq = :seq", q -> q.bind("seq", seq.get()), -1);
            handle.createUpdate("""
                            UPDATE studio_decisions SET status = :status, storage = :storage, model = :model, act = :act,
                                min_certainty = :min_certainty, error_code = :error_code, completed_at = :completed_at,
                                total_ms = :total_ms, body = :body, input = :input, search_text = :search_text,
                                stored_bytes = :stored_bytes
                            WHERE seq = :seq""")
                    .bindMap(HistoryRows.outcome(prepare(decision)))
                    .bind("seq", seq.get())
                    .execute();
            database.jdbc(handle, statements -> HistoryRows.insertDetails(statements, List.of(decision)));
            StatsRollup.count(handle, "d.seq = :seq", q -> q.bind("seq", seq.get()), 1);
            return true;
        });
    }

    /**
     * Moves a decision from one status to another, with its body showing the new status, if it is still in the
     * first; returns whether it was.
     */
    public boolean transition(String id, List<DecisionStatus> from, DecisionStatus to, Decided body, long nowMillis) {
        return database.write(handle -> {
            StatsRollup.count(
                    handle,
                    "d.id = :id AND d.status IN (<from>)",
                    q -> q.bind("id", id).bindList("from", DecisionStatus.wires(from)),
                    -1);
            boolean moved = handle.createUpdate("UPDATE studio_decisions SET status = :to, "
                                    + "completed_at = CASE WHEN :finished THEN :now ELSE completed_at END, "
                                    + "body = :body WHERE id = :id AND status IN (<from>)")
                            .bind("to", to.wire())
                            .bind("finished", to != DecisionStatus.IN_PROGRESS)
                            .bind("now", nowMillis)
                            .bind("body", Json.writeString(DecidedCodec.write(body)))
                            .bind("id", id)
                            .bindList("from", DecisionStatus.wires(from))
                            .execute()
                    == 1;
            if (moved) {
                StatsRollup.count(handle, "d.id = :id", q -> q.bind("id", id), 1);
            }
            return moved;
        });
    }

    /** A page of history, newest first, filtered. */
    public Paging.Result<StoredDecision> list(HistoryQuery query, Page page) {
        searchIndex.catchUpBefore(query);
        Paging.Result<StoredDecision> found = database.read(handle -> Paging.newestFirst(
                handle,
                COLUMNS,
                "studio_decisions WHERE " + query.where(),
                page,
                (rs, ctx) -> row(rs),
                id -> handle.createQuery("SELECT count(*) FROM studio_decisions WHERE id = :id")
                                .bind("id", id)
                                .mapTo(Long.class)
                                .one()
                        > 0,
                query::bindTo));
        return new Paging.Result<>(
                found.items().stream().map(this::withLiveMedia).toList(), found.hasMore());
    }

    /** Walks every decision a filter matches, newest first, a page at a time (for exports and statistics). */
    public void eachPage(HistoryQuery query, Consumer<List<StoredDecision>> page) {
        Page next = new Page(Page.MAX_LIMIT, Optional.empty(), Optional.empty());
        while (true) {
            var result = list(query, next);
            if (!result.items().isEmpty()) {
                page.accept(result.items());
            }
            if (!result.hasMore() || result.items().isEmpty()) {
                return;
            }
            next = new Page(Page.MAX_LIMIT, Optional.of(result.items().getLast().id()), Optional.empty());
        }
    }

    /**
     * Deletes finished decisions made before a time, pinned ones never, labelled ones only when asked: those of
     * one template, or (with no template) those of every template not in {@code exceptTemplates} and those made
     * without one. Returns how many went.
     */
    public int deleteOlderThan(
            long cutoffMillis, Optional<String> templateId, Set<String> exceptTemplates, boolean keepLabelled) {
        String scope = templateId.isPresent()
                ? " AND template_id = :template"
                : exceptTemplates.isEmpty() ? "" : " AND (template_id IS NULL OR template_id NOT IN (<except>))";
        List<String> ids = database.read(handle -> {
            var query = handle.createQuery("SELECT id FROM studio_decisions WHERE created_at < :cutoff AND pinned = "
                            + ":pinned AND status NOT IN ('queued', 'in_progress')" + scope
                            + (keepLabelled
                                    ? " AND NOT EXISTS (SELECT 1 FROM studio_feedback f WHERE f.decision_id = studio_decisions.id)"
                                    : ""))
                    .bind("cutoff", cutoffMillis)
                    .bind("pinned", false);
            templateId.ifPresent(t -> query.bind("template", t));
            if (templateId.isEmpty() && !exceptTemplates.isEmpty()) {
                query.bindList("except", List.copyOf(exceptTemplates));
            }
            return query.mapTo(String.class).list();
        });
        return deleteAll(ids);
    }

    /** Every decision a filter matches, newest first: its id and whether it is pinned. */
    public List<Map.Entry<String, Boolean>> matching(HistoryQuery query) {
        searchIndex.catchUpBefore(query);
        return database.read(handle -> {
            var select = handle.createQuery(
                    "SELECT id, pinned FROM studio_decisions WHERE " + query.where() + " ORDER BY id DESC");
            query.bindTo(select);
            return select.map((rs, ctx) -> Map.entry(rs.getString("id"), rs.getBoolean("pinned")))
                    .list();
        });
    }

    /** What history keeps, in bytes. */
    public long storedBytes() {
        return database.read(handle -> handle.createQuery("SELECT COALESCE(SUM(stored_bytes), 0) FROM studio_decisions")
                .mapTo(Long.class)
                .one());
    }

    /**
     * Deletes the oldest finished decisions, pinned ones (and labelled ones while {@code keepLabelled}) spared, until
     * at least {@code bytes} are freed or none are left to delete; returns how many went.
     */
    public int deleteOldest(long bytes, boolean keepLabelled) {
        var chosen = new ArrayList<String>();
        long freed = 0;
        long afterSeq = 0;
        while (freed < bytes) {
            long from = afterSeq;
            List<Sized> page = database.read(handle -> handle.createQuery(
                            "SELECT seq, id, stored_bytes FROM studio_decisions WHERE seq > :after AND pinned = :pinned "
                                    + "AND status NOT IN ('queued', 'in_progress')"
                                    + (keepLabelled
                                            ? " AND NOT EXISTS "
                                                    + "(SELECT 1 FROM studio_feedback f WHERE f.decision_id = studio_decisions.id)"
                                            : "")
                                    + " ORDER BY seq LIMIT 500")
                    .bind("after", from)
                    .bind("pinned", false)
                    .map((rs, ctx) -> new Sized(rs.getLong("seq"), rs.getString("id"), rs.getLong("stored_bytes")))
                    .list());
            for (Sized row : page) {
                if (freed >= bytes) {
                    break;
                }
                chosen.add(row.id());
                freed += row.bytes();
                afterSeq = row.seq();
            }
            if (page.size() < 500) {
                break;
            }
        }
        return deleteAll(chosen);
    }

    private record Sized(long seq, String id, long bytes) {}

    /** Deletes decisions by id, a few hundred per transaction so that the writer is never held long. */
    public int deleteAll(List<String> ids) {
        int deleted = 0;
        for (int from = 0; from < ids.size(); from += 500) {
            List<String> chunk = ids.subList(from, Math.min(ids.size(), from + 500));
            deleted += database.write(handle -> {
                StatsRollup.count(handle, "d.id IN (<ids>)", q -> q.bindList("ids", chunk), -1);
                return handle.createUpdate("DELETE FROM studio_decisions WHERE id IN (<ids>)")
                        .bindList("ids", chunk)
                        .execute();
            });
        }
        return deleted;
    }

    /**
     * Replaces what a redaction changed: the input (absent when history kept none) and the metadata. A redacted
     * input is no longer searched.
     */
    public void redact(String id, Optional<DecisionInput> input, ObjectNode metadata, boolean inputChanged) {
        Optional<String> inputJson = input.map(i -> Json.writeString(i.json()));
        String metadataJson = Json.writeString(metadata);
        database.update(handle -> {
            handle.createUpdate("""
                            UPDATE studio_decisions SET input = :input, metadata = :metadata,
                                search_text = CASE WHEN :changed THEN NULL ELSE search_text END,
                                stored_bytes = :record + :inputBytes
                            WHERE id = :id""")
                    .bind("changed", inputChanged)
                    .bind("input", inputJson.orElse(null))
                    .bind("metadata", metadataJson)
                    .bind(
                            "record",
                            handle.createQuery("SELECT body FROM studio_decisions WHERE id = :id")
                                    .bind("id", id)
                                    .mapTo(String.class)
                                    .findOne()
                                    .map(HistoryRows::utf8Length)
                                    .orElse(0L))
                    .bind("inputBytes", HistoryRows.storedBytes("", input, inputJson, metadataJson))
                    .bind("id", id)
                    .execute();
            Set<String> kept = input.map(DecisionInput::keptFiles).orElse(Set.of());
            handle.createQuery("""
                            SELECT f.file_id FROM studio_decision_files f JOIN studio_decisions d ON d.seq = f.decision_seq
                            WHERE d.id = :id""").bind("id", id).mapTo(String.class).list().stream()
                    .filter(file -> !kept.contains(file))
                    .forEach(file -> handle.createUpdate("""
                                    DELETE FROM studio_decision_files
                                    WHERE file_id = :file AND decision_seq = (SELECT seq FROM studio_decisions WHERE id = :id)""")
                            .bind("file", file)
                            .bind("id", id)
                            .execute());
        });
    }

    /** The files whose bytes a stored input keeps: its media items' {@code file_id}s. */
    public static Set<String> keptFiles(ObjectNode input) {
        var files = new LinkedHashSet<String>();
        input.path("media").forEach(item -> {
            if (item.path("file_id").isTextual()) {
                files.add(item.path("file_id").textValue());
            }
        });
        return files;
    }

    /** Of these files, those that stored decisions keep. */
    public Set<String> filesInUse(Collection<String> fileIds) {
        return database.found(
                "SELECT DISTINCT file_id FROM studio_decision_files WHERE file_id IN (<values>)", fileIds);
    }

    /** How many decisions history holds, and when the oldest was made. */
    public record Census(long decisions, Optional<Long> oldestAtMillis) {}

    public Census census() {
        return database.read(handle -> handle.createQuery(
                        "SELECT count(*) AS n, min(created_at) AS oldest FROM " + "studio_decisions")
                .map((rs, ctx) -> {
                    long oldest = rs.getLong("oldest");
                    return new Census(rs.getLong("n"), rs.wasNull() ? Optional.empty() : Optional.of(oldest));
                })
                .one());
    }

    public Optional<StoredDecision> find(String id) {
        Optional<StoredDecision> found = database.read(
                handle -> handle.createQuery("SELECT " + COLUMNS + " FROM studio_decisions WHERE id = :id")
                        .bind("id", id)
                        .map((rs, ctx) -> row(rs))
                        .findOne());
        return found.map(this::withLiveMedia);
    }

    public boolean patch(String id, Optional<ObjectNode> metadata, Optional<Boolean> pinned) {
        return database.write(handle -> {
            int changed = handle.createUpdate("UPDATE studio_decisions SET metadata = COALESCE(:metadata, metadata), "
                            + "pinned = COALESCE(:pinned, pinned) WHERE id = :id")
                    .bind("metadata", metadata.map(Json::writeString).orElse(null))
                    .bind("pinned", pinned.orElse(null))
                    .bind("id", id)
                    .execute();
            return changed == 1;
        });
    }

    public long countByTemplate(String templateId) {
        return database.read(handle -> handle.createQuery(
                        "SELECT count(*) FROM studio_decisions WHERE template_id = " + ":template_id")
                .bind("template_id", templateId)
                .mapTo(Long.class)
                .one());
    }

    public long deleteByTemplate(String templateId) {
        return database.write(handle -> {
            StatsRollup.count(handle, "d.template_id = :template_id", q -> q.bind("template_id", templateId), -1);
            return (long) handle.createUpdate("DELETE FROM studio_decisions WHERE template_id = :template_id")
                    .bind("template_id", templateId)
                    .execute();
        });
    }

    public boolean delete(String id) {
        return deleteAll(List.of(id)) == 1;
    }

    /**
     * Marks failed, with the error recorded, the decisions left queued or running by a server that stopped: they are
     * never run twice. Returns how many there were.
     */
    public int failUnfinishedOf(String serverInstance, Decided.Failure error, long nowMillis) {
        return failUnfinished("server_instance = :server", q -> q.bind("server", serverInstance), error, nowMillis);
    }

    /**
     * {@link #failUnfinishedOf} for the decisions whose server is not registered: it closed, or it made them before
     * servers registered.
     */
    public int failUnfinishedOfUnregistered(Decided.Failure error, long nowMillis) {
        return failUnfinished(
                "(server_instance IS NULL OR server_instance NOT IN (SELECT id FROM server_instances))",
                q -> {},
                error,
                nowMillis);
    }

    private int failUnfinished(
            String owners, Consumer<SqlStatement<?>> bindOwners, Decided.Failure error, long nowMillis) {
        String unfinished = "status IN ('queued', 'in_progress') AND " + owners;
        return database.write(handle -> {
            var select = handle.createQuery("SELECT id, body FROM studio_decisions WHERE " + unfinished
                    + database.dialect().forUpdate());
            bindOwners.accept(select);
            var found = select.map((rs, ctx) -> Map.entry(rs.getString("id"), rs.getString("body")))
                    .list();
            if (found.isEmpty()) {
                return 0;
            }
            var ids = found.stream().map(Map.Entry::getKey).toList();
            StatsRollup.count(handle, "d.id IN (<ids>)", q -> q.bindList("ids", ids), -1);
            for (var entry : found) {
                Decided failed = DecidedCodec.read(Json.read(entry.getValue()))
                        .withStatus(DecisionStatus.FAILED, Optional.of(nowMillis / 1000), Optional.of(error));
                handle.createUpdate("UPDATE studio_decisions SET status = 'failed', error_code = :code, "
                                + "completed_at = :now, body = :body WHERE id = :id")
                        .bind("code", error.code())
                        .bind("now", nowMillis)
                        .bind("body", Json.writeString(DecidedCodec.write(failed)))
                        .bind("id", entry.getKey())
                        .execute();
            }
            StatsRollup.count(handle, "d.id IN (<ids>)", q -> q.bindList("ids", ids), 1);
            return found.size();
        });
    }

    private static StoredDecision row(ResultSet rs) throws SQLException {
        String input = rs.getString("input");
        Object act = rs.getObject("act");
        Object certainty = rs.getObject("min_certainty");
        Object completed = rs.getObject("completed_at");
        Object total = rs.getObject("total_ms");
        Object version = rs.getObject("template_version");
        return new StoredDecision(
                rs.getString("id"),
                DecisionStatus.stored(rs.getString("status")),
                StoreLevel.of(rs.getString("storage")),
                rs.getString("surface"),
                rs.getString("endpoint"),
                rs.getString("request_id"),
                Optional.ofNullable(rs.getString("template_id")),
                version == null ? Optional.empty() : Optional.of(((Number) version).intValue()),
                Optional.ofNullable(rs.getString("model")),
                act == null ? Optional.empty() : Optional.of(rs.getBoolean("act")),
                certainty == null ? Optional.empty() : Optional.of(((Number) certainty).doubleValue()),
                Optional.ofNullable(rs.getString("error_code")),
                rs.getBoolean("pinned"),
                (ObjectNode) Json.read(rs.getString("metadata")),
                Optional.ofNullable(rs.getString("rerun_of")),
                rs.getLong("created_at"),
                completed == null ? Optional.empty() : Optional.of(((Number) completed).longValue()),
                total == null ? Optional.empty() : Optional.of(((Number) total).doubleValue()),
                DecidedCodec.read(Json.read(rs.getString("body"))),
                input == null ? Optional.empty() : Optional.of(DecisionInput.read(Json.read(input))),
                List.of(),
                Json.object(),
                Optional.empty());
    }

    /**
     * A kept media file may have been deleted since: {@code available} says whether its bytes can be had now. Asked
     * after the read, never inside it: files are read on connections of their own.
     */
    private StoredDecision withLiveMedia(StoredDecision decision) {
        return decision.input().isEmpty()
                ? decision
                : decision.withInput(decision.input().map(input -> input.withAvailability(fileAvailable)));
    }
}
