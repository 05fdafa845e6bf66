package dev.arbor.studio.templates.versions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.db.Columns;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.TemplateDefinitionCodec;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/** Templates, their versions and aliases in the database. Reads take a handle so that callers choose the transaction. */
public final class TemplateStore {
    private static final String HEAD_COLUMNS = "id, name, description, origin, archived, metadata, storage, "
            + "retention_days, latest_version, created_at, updated_at, deleted_at";
    private static final String VERSION_COLUMNS = "template_id, version, note, content_hash, questions_hash, "
            + "question_set_key, source, base_version, definition, changes, created_at, created_by";

    private final Database database;

    public TemplateStore(Database database) {
        this.database = requireNonNull(database, "database");
    }

    public Database database() {
        return database;
    }

    /** The head, locked for the rest of a write transaction where the database locks rows. */
    public Optional<TemplateHead> headForUpdate(Handle handle, String id) {
        return handle.createQuery("SELECT " + HEAD_COLUMNS + " FROM studio_templates WHERE id = :id"
                        + database.dialect().forUpdate())
                .bind("id", id)
                .map((rs, ctx) -> head(rs))
                .findOne();
    }

    public Optional<TemplateHead> head(Handle handle, String id) {
        return handle.createQuery("SELECT " + HEAD_COLUMNS + " FROM studio_templates WHERE id = :id")
                .bind("id", id)
                .map((rs, ctx) -> head(rs))
                .findOne();
    }

    public Optional<TemplateVersion> version(Handle handle, String id, int version) {
        return handle.createQuery("SELECT " + VERSION_COLUMNS
                        + " FROM studio_template_versions WHERE template_id = :id AND version = :version")
                .bind("id", id)
                .bind("version", version)
                .map((rs, ctx) -> version(rs))
                .findOne();
    }

    public List<Integer> versionNumbers(Handle handle, String id) {
        return handle.createQuery(
                        "SELECT version FROM studio_template_versions WHERE template_id = :id " + "ORDER BY version")
                .bind("id", id)
                .mapTo(Integer.class)
                .list();
    }

    /** Versions newest first, {@code after} / {@code before} being version numbers. */
    public List<TemplateVersion> versions(
            Handle handle, String id, Page page, Optional<Integer> after, Optional<Integer> before) {
        String sql = "SELECT " + VERSION_COLUMNS + " FROM studio_template_versions WHERE template_id = :id"
                + (after.isPresent()
                        ? " AND version < :cursor ORDER BY version DESC"
                        : before.isPresent() ? " AND version > :cursor ORDER BY version ASC" : " ORDER BY version DESC")
                + " LIMIT :fetch";
        var query = handle.createQuery(sql).bind("id", id).bind("fetch", page.limit() + 1);
        after.or(() -> before).ifPresent(cursor -> query.bind("cursor", cursor));
        List<TemplateVersion> rows =
                new ArrayList<>(query.map((rs, ctx) -> version(rs)).list());
        if (before.isPresent()) {
            Collections.reverse(rows);
        }
        return rows;
    }

    /** Aliases by name, {@code latest} first. */
    public Map<String, Integer> aliases(Handle handle, TemplateHead head) {
        var aliases = new LinkedHashMap<String, Integer>();
        aliases.put("latest", head.latestVersion());
        handle.createQuery("SELECT alias, version FROM studio_template_aliases WHERE template_id = :id ORDER BY alias")
                .bind("id", head.id())
                .map((rs, ctx) -> Map.entry(rs.getString(1), rs.getInt(2)))
                .forEach(e -> aliases.put(e.getKey(), e.getValue()));
        return aliases;
    }

    public void insertHead(Handle handle, TemplateHead head) {
        handle.createUpdate("INSERT INTO studio_templates (" + HEAD_COLUMNS + ") VALUES (:id, :name, :description, "
                        + ":origin, :archived, :metadata, :storage, :retention_days, :latest_version, :created_at, "
                        + ":updated_at, :deleted_at)")
                .bindMap(headValues(head))
                .execute();
    }

    public void updateHead(Handle handle, TemplateHead head) {
        handle.createUpdate("""
                        UPDATE studio_templates
                        SET name = :name, description = :description, archived = :archived, metadata = :metadata,
                            storage = :storage, retention_days = :retention_days, latest_version = :latest_version,
                            updated_at = :updated_at, deleted_at = :deleted_at
                        WHERE id = :id""").bindMap(headValues(head)).execute();
    }

    public void insertVersion(Handle handle, TemplateVersion version) {
        handle.createUpdate("INSERT INTO studio_template_versions (" + VERSION_COLUMNS + ") VALUES (:template_id, "
                        + ":version, :note, :content_hash, :questions_hash, :question_set_key, :source, :base_version, "
                        + ":definition, :changes, :created_at, :created_by)")
                .bind("template_id", version.templateId())
                .bind("version", version.version())
                .bind("note", version.note())
                .bind("content_hash", version.contentHash())
                .bind("questions_hash", version.questionsHash())
                .bind("question_set_key", version.questionSetKey())
                .bind("source", version.source())
                .bind("base_version", version.baseVersion().orElse(null))
                .bind("definition", Json.writeString(version.definitionJson()))
                .bind("changes", Json.writeString(version.changes()))
                .bind("created_at", version.createdAtMillis())
                .bind("created_by", version.createdBy())
                .execute();
    }

    /** Sets an alias; returns the version it pointed at before, if any. */
    public Optional<Integer> setAlias(Handle handle, String id, String alias, int version, long now) {
        Optional<Integer> previous = handle.createQuery(
                        "SELECT version FROM studio_template_aliases WHERE template_id = :id AND alias = :alias")
                .bind("id", id)
                .bind("alias", alias)
                .mapTo(Integer.class)
                .findOne();
        if (previous.isPresent()) {
            handle.createUpdate("UPDATE studio_template_aliases SET version = :version, updated_at = :now "
                            + "WHERE template_id = :id AND alias = :alias")
                    .bind("id", id)
                    .bind("alias", alias)
                    .bind("version", version)
                    .bind("now", now)
                    .execute();
        } else {
            handle.createUpdate("INSERT INTO studio_template_aliases (template_id, alias, version, updated_at) "
                            + "VALUES (:id, :alias, :version, :now)")
                    .bind("id", id)
                    .bind("alias", alias)
                    .bind("version", version)
                    .bind("now", now)
                    .execute();
        }
        return previous;
    }

    public boolean deleteAlias(Handle handle, String id, String alias) {
        return handle.createUpdate("DELETE FROM studio_template_aliases WHERE template_id = :id AND alias = :alias")
                        .bind("id", id)
                        .bind("alias", alias)
                        .execute()
                == 1;
    }

    public void delete(Handle handle, String id) {
        handle.createUpdate("DELETE FROM studio_template_aliases WHERE template_id = :id")
                .bind("id", id)
                .execute();
        handle.createUpdate("DELETE FROM studio_templates WHERE id = :id")
                .bind("id", id)
                .execute();
    }

    /** The templates that keep their decisions for their own number of days (0: for ever), by id. */
    public Map<String, Integer> retentionDays() {
        return database
                .read(handle -> handle.createQuery(
                                "SELECT id, retention_days FROM studio_templates WHERE " + "retention_days IS NOT NULL")
                        .map((rs, ctx) -> Map.entry(rs.getString("id"), rs.getInt("retention_days")))
                        .list())
                .stream()
                .collect(java.util.stream.Collectors.toUnmodifiableMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    /** Filters of the template list. */
    public record ListFilter(Optional<String> origin, Optional<Boolean> archived, Optional<String> text) {}

    /**
     * Templates most recently changed first. The cursor is a template id; its position is looked up, so a page
     * stays put while other templates change.
     */
    public List<TemplateHead> list(Handle handle, ListFilter filter, Page page) {
        var where = new StringBuilder("deleted_at IS NULL");
        filter.origin().ifPresent(o -> where.append(" AND origin = :origin"));
        filter.archived().ifPresent(a -> where.append(" AND archived = :archived"));
        filter.text()
                .ifPresent(t -> where.append(
                        " AND (LOWER(id) LIKE :text OR LOWER(name) LIKE :text " + "OR LOWER(description) LIKE :text)"));
        Optional<String> cursorId = page.after().or(page::before);
        Optional<TemplateHead> cursor = cursorId.flatMap(
                id -> head(handle, id).filter(h -> h.deletedAtMillis().isEmpty()));
        if (cursorId.isPresent() && cursor.isEmpty()) {
            throw page.unknownCursor();
        }
        boolean backwards = page.before().isPresent();
        if (cursor.isPresent()) {
            where.append(
                    backwards
                            ? " AND (updated_at > :cursor_at OR (updated_at = :cursor_at AND id > :cursor_id))"
                            : " AND (updated_at < :cursor_at OR (updated_at = :cursor_at AND id < :cursor_id))");
        }
        String order = backwards ? "updated_at ASC, id ASC" : "updated_at DESC, id DESC";
        var query = handle.createQuery("SELECT " + HEAD_COLUMNS + " FROM studio_templates WHERE " + where + " ORDER BY "
                        + order + " LIMIT :fetch")
                .bind("fetch", page.limit() + 1);
        filter.origin().ifPresent(o -> query.bind("origin", o));
        filter.archived().ifPresent(a -> query.bind("archived", a));
        filter.text()
                .ifPresent(t -> query.bind(
                        "text",
                        "%"
                                + t.toLowerCase(java.util.Locale.ROOT)
                                        .replace("%", "")
                                        .replace("_", "") + "%"));
        cursor.ifPresent(c -> query.bind("cursor_at", c.updatedAtMillis()).bind("cursor_id", c.id()));
        List<TemplateHead> rows =
                new ArrayList<>(query.map((rs, ctx) -> head(rs)).list());
        if (backwards) {
            Collections.reverse(rows);
        }
        return rows;
    }

    private static Map<String, Object> headValues(TemplateHead head) {
        var values = new LinkedHashMap<String, Object>();
        values.put("id", head.id());
        values.put("name", head.name());
        values.put("description", head.description());
        values.put("origin", head.origin());
        values.put("archived", head.archived());
        values.put("metadata", Json.writeString(head.metadata()));
        values.put("storage", head.storage());
        values.put("retention_days", head.retentionDays().orElse(null));
        values.put("latest_version", head.latestVersion());
        values.put("created_at", head.createdAtMillis());
        values.put("updated_at", head.updatedAtMillis());
        values.put("deleted_at", head.deletedAtMillis().orElse(null));
        return values;
    }

    private static TemplateHead head(ResultSet rs) throws SQLException {
        return new TemplateHead(
                rs.getString("id"),
                rs.getString("name"),
                rs.getString("description"),
                rs.getString("origin"),
                rs.getBoolean("archived"),
                (ObjectNode) Json.read(rs.getString("metadata")),
                rs.getString("storage"),
                Columns.optionalInt(rs, "retention_days"),
                rs.getInt("latest_version"),
                rs.getLong("created_at"),
                rs.getLong("updated_at"),
                Columns.optionalLong(rs, "deleted_at"));
    }

    private static TemplateVersion version(ResultSet rs) throws SQLException {
        return new TemplateVersion(
                rs.getString("template_id"),
                rs.getInt("version"),
                rs.getString("note"),
                rs.getString("content_hash"),
                rs.getString("questions_hash"),
                rs.getString("question_set_key"),
                rs.getString("source"),
                Columns.optionalInt(rs, "base_version"),
                TemplateDefinitionCodec.read(Json.read(rs.getString("definition"))),
                (ObjectNode) Json.read(rs.getString("changes")),
                rs.getLong("created_at"),
                rs.getString("created_by"));
    }
}
