package dev.arbor.keys;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.access.InferenceKeys;
import dev.arbor.platform.db.Columns;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.db.Paging;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.secrets.Digests;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jdbi.v3.core.Handle;

/**
 * Inference keys in the database. A key's secret is shown once, at creation; only its SHA-256 is kept (the secret is
 * 256 random bits, so a fast hash is enough). Every request's key is read from the database (one indexed row), so that
 * a key revoked on any server sharing the database is refused by every server from the next request on.
 */
final class KeyStore {
    private static final String COLUMNS = "id, project_id, name, hint, routers, models, metadata, created_at, "
            + "expires_at, last_used_at, revoked_at, requests_per_minute, tokens_per_minute";
    /** Recording every use would turn every request into a write; once a minute is precise enough. */
    private static final Duration TOUCH_EVERY = Duration.ofMinutes(1);

    private final Database database;
    private final Clock clock;
    /** When this server last recorded each key's use. */
    private final Map<String, Long> touched = new ConcurrentHashMap<>();

    KeyStore(Database database, Clock clock) {
        this.database = requireNonNull(database, "database");
        this.clock = requireNonNull(clock, "clock");
    }

    long nowMillis() {
        return clock.millis();
    }

    record Created(InferenceKey key, String secret) {}

    /** What a new key or a change sets; a change's empty fields keep their values. */
    record Fields(
            Optional<String> name,
            Optional<List<String>> routers,
            Optional<List<String>> models,
            Optional<Map<String, String>> metadata,
            Optional<Optional<Long>> expiresAtMillis,
            Optional<KeyLimits> limits) {}

    Created create(String projectId, Fields fields) {
        String secret =
                InferenceKeys.PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(Ids.randomBytes(32));
        String id = Ids.next("key");
        database.write(handle -> handle.createUpdate("INSERT INTO inference_keys (" + COLUMNS + ", secret_hash) "
                        + "VALUES (:id, :project, :name, :hint, :routers, :models, :metadata, :now, :expires, NULL, "
                        + "NULL, :requests, :tokens, :hash)")
                .bind("id", id)
                .bind("project", projectId)
                .bind("name", fields.name().orElseThrow())
                .bind("hint", secret.substring(0, InferenceKeys.PREFIX.length() + 4))
                .bind("routers", Json.writeString(fields.routers().orElse(List.of())))
                .bind("models", Json.writeString(fields.models().orElse(List.of())))
                .bind("metadata", Json.writeString(fields.metadata().orElse(Map.of())))
                .bind("now", clock.millis())
                .bind("expires", fields.expiresAtMillis().flatMap(e -> e).orElse(null))
                .bind(
                        "requests",
                        fields.limits().flatMap(KeyLimits::requestsPerMinute).orElse(null))
                .bind(
                        "tokens",
                        fields.limits().flatMap(KeyLimits::tokensPerMinute).orElse(null))
                .bind("hash", Digests.sha256Hex(secret))
                .execute());
        return new Created(find(id).orElseThrow(), secret);
    }

    Optional<InferenceKey> find(String id) {
        return database.read(handle -> load(handle, id));
    }

    /** The key of this secret, live or not; empty when the secret is no key's. */
    Optional<InferenceKey> bySecret(String secret) {
        return database.read(
                handle -> handle.createQuery("SELECT " + COLUMNS + " FROM inference_keys WHERE secret_hash = :hash")
                        .bind("hash", Digests.sha256Hex(secret))
                        .map((rs, ctx) -> row(rs))
                        .findOne());
    }

    /** Notes a key's use, at most once a minute per key and server. */
    void touch(InferenceKey key) {
        long now = clock.millis();
        Long last = touched.get(key.id());
        if (database.readOnly() || (last != null && now - last < TOUCH_EVERY.toMillis())) {
            return;
        }
        touched.put(key.id(), now);
        database.update(handle -> handle.createUpdate("UPDATE inference_keys SET last_used_at = :now WHERE id = :id")
                .bind("now", now)
                .bind("id", key.id())
                .execute());
    }

    /** The keys of these projects (every project's when empty), newest first. */
    Paging.Result<InferenceKey> list(Page page, Optional<Set<String>> projects, boolean includeRevoked) {
        return database.read(handle -> {
            var from = new StringBuilder("inference_keys WHERE 1 = 1");
            if (!includeRevoked) {
                from.append(" AND revoked_at IS NULL");
            }
            projects.ifPresent(ids -> from.append(" AND project_id IN (<projects>)"));
            if (projects.map(Set::isEmpty).orElse(false)) {
                return new Paging.Result<>(List.<InferenceKey>of(), false);
            }
            return Paging.newestFirst(
                    handle,
                    COLUMNS,
                    from.toString(),
                    page,
                    (rs, ctx) -> row(rs),
                    cursor -> load(handle, cursor)
                            .filter(key -> projects.map(ids -> ids.contains(key.projectId()))
                                    .orElse(true))
                            .isPresent(),
                    query -> projects.ifPresent(ids -> query.bindList("projects", new ArrayList<>(ids))));
        });
    }

    /** Applies a change; empty when there is no such key. */
    Optional<InferenceKey> update(String id, Fields fields) {
        return database.write(handle -> {
            Optional<InferenceKey> current = load(handle, id);
            if (current.isEmpty()) {
                return current;
            }
            InferenceKey key = current.get();
            KeyLimits limits = fields.limits().orElse(key.limits());
            handle.createUpdate("UPDATE inference_keys SET name = :name, routers = :routers, models = :models, "
                            + "metadata = :metadata, expires_at = :expires, requests_per_minute = :requests, "
                            + "tokens_per_minute = :tokens WHERE id = :id")
                    .bind("id", id)
                    .bind("name", fields.name().orElse(key.name()))
                    .bind("routers", Json.writeString(fields.routers().orElse(key.routers())))
                    .bind("models", Json.writeString(fields.models().orElse(key.models())))
                    .bind("metadata", Json.writeString(fields.metadata().orElse(key.metadata())))
                    .bind(
                            "expires",
                            fields.expiresAtMillis()
                                    .orElse(key.expiresAtMillis())
                                    .orElse(null))
                    .bind("requests", limits.requestsPerMinute().orElse(null))
                    .bind("tokens", limits.tokensPerMinute().orElse(null))
                    .execute();
            return load(handle, id);
        });
    }

    /** Revokes a key (the first revocation's time stays); empty when there is no such key. */
    Optional<InferenceKey> revoke(String id) {
        return database.write(handle -> {
            handle.createUpdate("UPDATE inference_keys SET revoked_at = :now WHERE id = :id AND revoked_at IS NULL")
                    .bind("now", clock.millis())
                    .bind("id", id)
                    .execute();
            return load(handle, id);
        });
    }

    private static Optional<InferenceKey> load(Handle handle, String id) {
        return handle.createQuery("SELECT " + COLUMNS + " FROM inference_keys WHERE id = :id")
                .bind("id", id)
                .map((rs, ctx) -> row(rs))
                .findOne();
    }

    private static InferenceKey row(ResultSet rs) throws SQLException {
        return new InferenceKey(
                rs.getString("id"),
                rs.getString("project_id"),
                rs.getString("name"),
                rs.getString("hint"),
                texts(Json.read(rs.getString("routers"))),
                texts(Json.read(rs.getString("models"))),
                metadata(Json.read(rs.getString("metadata"))),
                new KeyLimits(
                        Columns.optionalLong(rs, "requests_per_minute"), Columns.optionalLong(rs, "tokens_per_minute")),
                rs.getLong("created_at"),
                Columns.optionalLong(rs, "expires_at"),
                Columns.optionalLong(rs, "last_used_at"),
                Columns.optionalLong(rs, "revoked_at"));
    }

    private static List<String> texts(JsonNode array) {
        var texts = new ArrayList<String>();
        array.forEach(item -> texts.add(item.asText()));
        return texts;
    }

    private static Map<String, String> metadata(JsonNode object) {
        var metadata = new LinkedHashMap<String, String>();
        object.properties()
                .forEach(entry -> metadata.put(entry.getKey(), entry.getValue().asText()));
        return metadata;
    }
}
