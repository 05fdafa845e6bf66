package dev.arbor.studio.files;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.db.Database;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** The SQL of files. */
final class FileStore {
    private final Database database;

    FileStore(Database database) {
        this.database = requireNonNull(database, "database");
    }

    void insert(StudioFile file) {
        database.update(handle -> handle.createUpdate("""
                        INSERT INTO studio_files (id, sha256, purpose, type, content_type, name, bytes, created_at,
                            expires_at)
                        VALUES (:id, :sha256, :purpose, :type, :contentType, :name, :bytes, :createdAt, :expiresAt)""")
                .bind("id", file.id())
                .bind("sha256", file.sha256())
                .bind("purpose", file.purpose())
                .bind("type", file.type())
                .bind("contentType", file.contentType())
                .bind("name", file.name().orElse(null))
                .bind("bytes", file.bytes())
                .bind("createdAt", file.createdAtMillis())
                .bind("expiresAt", file.expiresAtMillis())
                .execute());
    }

    Optional<StudioFile> find(String id) {
        return database.read(handle -> handle.createQuery("SELECT * FROM studio_files WHERE id = :id")
                .bind("id", id)
                .map((rs, ctx) -> file(rs))
                .findOne());
    }

    /** Moves a file's expiry to {@code expiresAtMillis} unless it is later already. */
    void extend(Collection<String> ids, long expiresAtMillis) {
        if (ids.isEmpty()) {
            return;
        }
        database.update(handle -> handle.createUpdate("""
                        UPDATE studio_files SET expires_at = :expiresAt
                        WHERE id IN (<ids>) AND expires_at < :expiresAt""")
                .bindList("ids", List.copyOf(ids))
                .bind("expiresAt", expiresAtMillis)
                .execute());
    }

    /** Deletes the row and says whether another file still shares its bytes. */
    boolean delete(StudioFile file) {
        return database.write(handle -> {
            handle.createUpdate("DELETE FROM studio_files WHERE id = :id")
                    .bind("id", file.id())
                    .execute();
            return handle.createQuery("SELECT COUNT(*) FROM studio_files WHERE sha256 = :sha256")
                            .bind("sha256", file.sha256())
                            .mapTo(Long.class)
                            .one()
                    > 0;
        });
    }

    /** Up to {@code limit} files whose expiry has passed, oldest expiry first. */
    List<StudioFile> expired(long nowMillis, int limit) {
        return database.read(handle -> handle.createQuery("""
                        SELECT * FROM studio_files WHERE expires_at < :now ORDER BY expires_at, id LIMIT :limit""")
                .bind("now", nowMillis)
                .bind("limit", limit)
                .map((rs, ctx) -> file(rs))
                .list());
    }

    /** Of these hashes, those some file row names. */
    Set<String> knownHashes(Collection<String> hashes) {
        return database.found("SELECT DISTINCT sha256 FROM studio_files WHERE sha256 IN (<values>)", hashes);
    }

    /** The bytes the files' blobs take on disk, each blob once. */
    long storedBytes() {
        return database.read(handle -> handle.createQuery("""
                        SELECT COALESCE(SUM(bytes), 0) FROM (SELECT sha256, MAX(bytes) AS bytes FROM studio_files
                            GROUP BY sha256) blobs""").mapTo(Long.class).one());
    }

    private static StudioFile file(ResultSet rs) throws SQLException {
        return new StudioFile(
                rs.getString("id"),
                rs.getString("purpose"),
                rs.getString("type"),
                rs.getString("content_type"),
                Optional.ofNullable(rs.getString("name")),
                rs.getLong("bytes"),
                rs.getString("sha256"),
                rs.getLong("created_at"),
                rs.getLong("expires_at"));
    }
}
