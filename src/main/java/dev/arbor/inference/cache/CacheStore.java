package dev.arbor.inference.cache;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.db.Database;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.sql.Types;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.statement.Update;
import org.jspecify.annotations.Nullable;

/** The SQL of cached answers. */
final class CacheStore {
    private final Database database;

    CacheStore(Database database) {
        this.database = requireNonNull(database, "database");
    }

    /** An answer found, with what it saved. */
    record Found(String id, String answer, long savedTokens) {}

    /** A kept answer's embedding, for a semantic match. */
    record Embedded(String id, float[] vector) {}

    Optional<Found> exact(AnswerCache.Place place, String requestHash, long now) {
        return database.read(handle -> handle.createQuery("SELECT id, answer, saved_tokens FROM router_cache_entries"
                        + " WHERE router_id = :router AND step_id = :step AND scope = :scope"
                        + " AND request_hash = :hash AND expires_at > :now")
                .bind("router", place.routerId())
                .bind("step", place.stepId())
                .bind("scope", place.scope())
                .bind("hash", requestHash)
                .bind("now", now)
                .map((rs, ctx) -> new Found(rs.getString(1), rs.getString(2), rs.getLong(3)))
                .findOne());
    }

    /** The embeddings of the answers kept for the same context, unexpired. */
    List<Embedded> sameContext(AnswerCache.Place place, String contextHash, long now) {
        return database.read(handle -> handle.createQuery("SELECT id, embedding FROM router_cache_entries"
                        + " WHERE router_id = :router AND step_id = :step AND scope = :scope"
                        + " AND context_hash = :context AND expires_at > :now AND embedding IS NOT NULL")
                .bind("router", place.routerId())
                .bind("step", place.stepId())
                .bind("scope", place.scope())
                .bind("context", contextHash)
                .bind("now", now)
                .map((rs, ctx) -> new Embedded(rs.getString(1), floats(rs.getBytes(2))))
                .list());
    }

    Optional<Found> byId(String id) {
        return database.read(
                handle -> handle.createQuery("SELECT id, answer, saved_tokens FROM router_cache_entries WHERE id = :id")
                        .bind("id", id)
                        .map((rs, ctx) -> new Found(rs.getString(1), rs.getString(2), rs.getLong(3)))
                        .findOne());
    }

    /** Marks an answer used now, for the least-recently-used order. */
    void used(String id, long now) {
        database.write(handle -> handle.createUpdate("UPDATE router_cache_entries SET used_at = :now WHERE id = :id")
                .bind("id", id)
                .bind("now", now)
                .execute());
    }

    /**
     * Keeps an answer (in place of one kept for the same request), then drops the step's expired answers and, past
     * {@code maxEntries}, its least recently used.
     */
    void keep(
            String id,
            AnswerCache.Place place,
            CacheRequest request,
            float @Nullable [] vector,
            String answer,
            long savedTokens,
            long now,
            long expiresAt,
            int maxEntries) {
        database.write(handle -> {
            Update insert =
                    handle.createUpdate("INSERT INTO router_cache_entries (id, router_id, step_id, scope, request_hash,"
                            + " context_hash, embedding, answer, saved_tokens, created_at, expires_at, used_at)"
                            + " VALUES (:id, :router, :step, :scope, :hash, :context, :embedding, :answer, :saved,"
                            + " :now, :expires, :now)"
                            + " ON CONFLICT (router_id, step_id, scope, request_hash) DO UPDATE SET"
                            + " context_hash = excluded.context_hash, embedding = excluded.embedding,"
                            + " answer = excluded.answer, saved_tokens = excluded.saved_tokens,"
                            + " created_at = excluded.created_at, expires_at = excluded.expires_at,"
                            + " used_at = excluded.used_at");
            if (vector == null) {
                insert.bindNull("embedding", Types.BINARY);
            } else {
                insert.bind("embedding", bytes(vector));
            }
            insert.bind("id", id)
                    .bind("router", place.routerId())
                    .bind("step", place.stepId())
                    .bind("scope", place.scope())
                    .bind("hash", request.requestHash())
                    .bind("context", request.contextHash())
                    .bind("answer", answer)
                    .bind("saved", savedTokens)
                    .bind("now", now)
                    .bind("expires", expiresAt)
                    .execute();
            handle.createUpdate("DELETE FROM router_cache_entries"
                            + " WHERE router_id = :router AND step_id = :step AND expires_at <= :now")
                    .bind("router", place.routerId())
                    .bind("step", place.stepId())
                    .bind("now", now)
                    .execute();
            int kept = handle.createQuery("SELECT COUNT(*) FROM router_cache_entries"
                            + " WHERE router_id = :router AND step_id = :step")
                    .bind("router", place.routerId())
                    .bind("step", place.stepId())
                    .mapTo(Integer.class)
                    .one();
            if (kept > maxEntries) {
                handle.createUpdate("DELETE FROM router_cache_entries WHERE id IN (SELECT id FROM"
                                + " router_cache_entries WHERE router_id = :router AND step_id = :step"
                                + " ORDER BY used_at, created_at LIMIT :excess)")
                        .bind("router", place.routerId())
                        .bind("step", place.stepId())
                        .bind("excess", kept - maxEntries)
                        .execute();
            }
            return null;
        });
    }

    /** Drops every answer a router's steps kept; how many. */
    int clear(String routerId) {
        return database.write(
                handle -> handle.createUpdate("DELETE FROM router_cache_entries WHERE router_id = :router")
                        .bind("router", routerId)
                        .execute());
    }

    private static byte[] bytes(float[] vector) {
        ByteBuffer buffer = ByteBuffer.allocate(vector.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        buffer.asFloatBuffer().put(vector);
        return buffer.array();
    }

    private static float[] floats(byte[] bytes) {
        var vector = new float[bytes.length / Float.BYTES];
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(vector);
        return vector;
    }
}
