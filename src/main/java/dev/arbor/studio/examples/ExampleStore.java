package dev.arbor.studio.examples;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.history.HistoryStore;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.jdbi.v3.core.Handle;

/**
 * The SQL of test examples. Rows never change but for being retired once: the set at revision N is every row
 * added at or before N and not retired by then.
 */
public final class ExampleStore {
    /** One example as stored: its input ({@code variables}, {@code state}, {@code media}) and its labels. */
    record Row(
            String id,
            String templateId,
            int revision,
            ObjectNode input,
            String inputHash,
            ObjectNode expected,
            List<String> tags,
            String split,
            Optional<String> note,
            Optional<String> fromDecision,
            long createdAtMillis,
            long updatedAtMillis) {
        Row {
            requireNonNull(id, "id");
            tags = List.copyOf(tags);
        }

        ObjectNode json() {
            ObjectNode json = Json.object();
            json.put("id", id);
            json.put("object", "template.example");
            json.put("template", templateId);
            json.put("revision", revision);
            json.set("variables", input.get("variables"));
            json.set("state", input.get("state"));
            json.set("media", input.get("media"));
            json.set("expected", expected);
            tags.forEach(json.putArray("tags")::add);
            json.put("split", split);
            json.put("note", note.orElse(null));
            json.put("from_decision", fromDecision.orElse(null));
            json.put("created_at", createdAtMillis / 1000);
            json.put("updated_at", updatedAtMillis / 1000);
            return json;
        }
    }

    private static final String COLUMNS = "id, template_id, revision, input, input_hash, expected, tags, split, note, "
            + "from_decision, created_at, updated_at";
    private static final String CURRENT_AT = "revision <= :at AND (retired_in IS NULL OR retired_in > :at)";

    private final Database database;

    public ExampleStore(Database database) {
        this.database = requireNonNull(database, "database");
    }

    Database database() {
        return database;
    }

    /** Moves the template's examples revision on and returns it; the row it writes serialises example changes. */
    static int nextRevision(Handle handle, String templateId) {
        return handle.createQuery("""
                        INSERT INTO studio_example_revisions (template_id, revision) VALUES (:template, 1)
                        ON CONFLICT (template_id) DO UPDATE SET revision = studio_example_revisions.revision + 1
                        RETURNING revision""")
                .bind("template", templateId)
                .mapTo(Integer.class)
                .one();
    }

    int revision(String templateId) {
        return database.read(handle -> handle.createQuery(
                        "SELECT revision FROM studio_example_revisions WHERE " + "template_id = :template")
                .bind("template", templateId)
                .mapTo(Integer.class)
                .findOne()
                .orElse(0));
    }

    /** A labelled example as evals read it: its input ({@code variables}, {@code state}, {@code media}) and labels. */
    public record Labelled(String id, ObjectNode input, ObjectNode expected, String split, List<String> tags) {
        public Labelled {
            requireNonNull(id, "id");
            requireNonNull(input, "input");
            requireNonNull(expected, "expected");
            requireNonNull(split, "split");
            tags = List.copyOf(tags);
        }
    }

    /** The most examples a template keeps, and so the most an eval reads. */
    private static final int MAX_PER_TEMPLATE = 10_000;

    /** A template's current examples that have labels, in id order. */
    public List<Labelled> labelled(String templateId) {
        var filter = new Filter(Optional.empty(), Optional.empty(), Optional.of(true), Optional.empty());
        return list(templateId, revision(templateId), Optional.empty(), MAX_PER_TEMPLATE, filter).stream()
                .map(row -> new Labelled(row.id(), row.input(), row.expected(), row.split(), row.tags()))
                .toList();
    }

    /** The current example with this input, if there is one. */
    static Optional<String> withInput(Handle handle, String templateId, String inputHash) {
        return handle.createQuery("SELECT id FROM studio_examples WHERE template_id = :template AND input_hash = :hash "
                        + "AND retired_in IS NULL")
                .bind("template", templateId)
                .bind("hash", inputHash)
                .mapTo(String.class)
                .findOne();
    }

    static void insert(Handle handle, Row row) {
        long rowSeq = handle.createUpdate(
                        "INSERT INTO studio_examples (" + COLUMNS + ") VALUES (:id, :template, :revision, :input, "
                                + ":hash, :expected, :tags, :split, :note, :from_decision, :created_at, :updated_at)")
                .bind("id", row.id())
                .bind("template", row.templateId())
                .bind("revision", row.revision())
                .bind("input", Json.writeString(row.input()))
                .bind("hash", row.inputHash())
                .bind("expected", Json.writeString(row.expected()))
                .bind("tags", Json.writeString(Json.mapper().valueToTree(row.tags())))
                .bind("split", row.split())
                .bind("note", row.note().orElse(null))
                .bind("from_decision", row.fromDecision().orElse(null))
                .bind("created_at", row.createdAtMillis())
                .bind("updated_at", row.updatedAtMillis())
                .executeAndReturnGeneratedKeys("row_seq")
                .mapTo(Long.class)
                .one();
        HistoryStore.keptFiles(row.input())
                .forEach(fileId -> handle.createUpdate("""
                        INSERT INTO studio_example_files (example_row_seq, file_id) VALUES (:seq, :file)
                        ON CONFLICT DO NOTHING""")
                        .bind("seq", rowSeq)
                        .bind("file", fileId)
                        .execute());
    }

    /** Of these files, those that examples keep. */
    public Set<String> filesInUse(Collection<String> fileIds) {
        return database.found("SELECT DISTINCT file_id FROM studio_example_files WHERE file_id IN (<values>)", fileIds);
    }

    /** Retires the current row of an example; returns whether there was one. */
    static boolean retire(Handle handle, String templateId, String id, int revision) {
        return handle.createUpdate("UPDATE studio_examples SET retired_in = :revision WHERE template_id = :template "
                                + "AND id = :id AND retired_in IS NULL")
                        .bind("revision", revision)
                        .bind("template", templateId)
                        .bind("id", id)
                        .execute()
                == 1;
    }

    static Optional<Row> current(Handle handle, String templateId, String id) {
        return handle.createQuery("SELECT " + COLUMNS + " FROM studio_examples WHERE template_id = :template AND "
                        + "id = :id AND retired_in IS NULL")
                .bind("template", templateId)
                .bind("id", id)
                .map((rs, ctx) -> row(rs))
                .findOne();
    }

    /** An example as it stood at a revision. */
    Optional<Row> at(String templateId, String id, int revision) {
        return database.read(handle -> handle.createQuery("SELECT " + COLUMNS + " FROM studio_examples WHERE "
                        + "template_id = :template AND id = :id AND " + CURRENT_AT)
                .bind("template", templateId)
                .bind("id", id)
                .bind("at", revision)
                .map((rs, ctx) -> row(rs))
                .findOne());
    }

    /** What a list of examples keeps: a tag, a split, whether labelled, text in the input. */
    record Filter(Optional<String> tag, Optional<String> split, Optional<Boolean> labelled, Optional<String> text) {
        static final Filter NONE = new Filter(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());
    }

    /** The examples of a revision in id order, after a cursor, at most {@code limit} + 1 (to tell if more follow). */
    List<Row> list(String templateId, int revision, Optional<String> after, int limit, Filter filter) {
        var where = new StringBuilder("template_id = :template AND " + CURRENT_AT);
        after.ifPresent(a -> where.append(" AND id > :after"));
        filter.tag().ifPresent(t -> where.append(" AND tags LIKE :tag ESCAPE '!'"));
        filter.split().ifPresent(s -> where.append(" AND split = :split"));
        filter.labelled().ifPresent(l -> where.append(l ? " AND expected <> '{}'" : " AND expected = '{}'"));
        filter.text().ifPresent(t -> where.append(" AND LOWER(input) LIKE :text ESCAPE '!'"));
        return database.read(handle -> {
            var query = handle.createQuery(
                            "SELECT " + COLUMNS + " FROM studio_examples WHERE " + where + " ORDER BY id LIMIT :fetch")
                    .bind("template", templateId)
                    .bind("at", revision)
                    .bind("fetch", limit + 1);
            after.ifPresent(a -> query.bind("after", a));
            filter.tag()
                    .ifPresent(t -> query.bind(
                            "tag", "%" + like(Json.writeString(Json.mapper().valueToTree(t))) + "%"));
            filter.split().ifPresent(s -> query.bind("split", s));
            filter.text().ifPresent(t -> query.bind("text", "%" + like(t.toLowerCase(Locale.ROOT)) + "%"));
            return query.map((rs, ctx) -> row(rs)).list();
        });
    }

    /** A LIKE pattern's literal text, with {@code !} as the escape character. */
    private static String like(String text) {
        return text.replace("!", "!!").replace("%", "!%").replace("_", "!_");
    }

    private static Row row(ResultSet rs) throws SQLException {
        var tags = new ArrayList<String>();
        Json.read(rs.getString("tags")).forEach(tag -> tags.add(tag.asText()));
        return new Row(
                rs.getString("id"),
                rs.getString("template_id"),
                rs.getInt("revision"),
                (ObjectNode) Json.read(rs.getString("input")),
                rs.getString("input_hash"),
                (ObjectNode) Json.read(rs.getString("expected")),
                tags,
                rs.getString("split"),
                Optional.ofNullable(rs.getString("note")),
                Optional.ofNullable(rs.getString("from_decision")),
                rs.getLong("created_at"),
                rs.getLong("updated_at"));
    }
}
