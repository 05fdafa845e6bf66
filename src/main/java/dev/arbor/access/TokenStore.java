package dev.arbor.access;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.db.Columns;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.db.Paging;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.secrets.Digests;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jdbi.v3.core.Handle;

/**
 * Admin tokens in the database. A token's secret is shown once, at creation; only its SHA-256 is kept (the secret
 * is 256 random bits, so a fast hash is enough).
 *
 * <p>A token found live is remembered for a few seconds, so that a busy caller (an inference client, an agent) costs
 * no query per request. A revocation here forgets it at once; one made by another server on the same database takes
 * effect here within {@link #RECHECK_AFTER}. Unknown secrets are never remembered: what is kept is bounded by the
 * tokens that exist.
 */
final class TokenStore {
    static final Duration RECHECK_AFTER = Duration.ofSeconds(5);
    private static final String COLUMNS = "id, name, role, hint, created_at, expires_at, last_used_at, revoked_at";
    /** Recording every use would turn every read into a write; once a minute is precise enough. */
    private static final Duration TOUCH_EVERY = Duration.ofMinutes(1);

    private final Database database;
    private final Clock clock;
    /** Live tokens by their secret's hash, with when the database last said so. */
    private final Map<String, Verified> verified = new ConcurrentHashMap<>();
    /** Moves on with every revocation here, so that a token looked up before one is looked up again. */
    private final AtomicLong revocations = new AtomicLong();
    /** Tokens are never deleted: once one exists, it always will. */
    private volatile boolean anyMade;

    private record Verified(ApiToken token, long checkedAtMillis, long revocationsSeen) {}

    TokenStore(Database database, Clock clock) {
        this.database = requireNonNull(database, "database");
        this.clock = requireNonNull(clock, "clock");
    }

    record Created(ApiToken token, String secret) {}

    Created create(String name, Role role, List<String> projects, Optional<Long> expiresAtMillis) {
        String secret = "arb_" + Base64.getUrlEncoder().withoutPadding().encodeToString(Ids.randomBytes(32));
        return database.write(handle -> {
            String id = Ids.next("tok");
            long now = clock.millis();
            handle.createUpdate("""
                            INSERT INTO api_tokens (id, name, role, secret_hash, hint, created_at, expires_at)
                            VALUES (:id, :name, :role, :hash, :hint, :now, :expires)""")
                    .bind("id", id)
                    .bind("name", name)
                    .bind("role", role.wire())
                    .bind("hash", Digests.sha256Hex(secret))
                    .bind("hint", secret.substring(0, 8))
                    .bind("now", now)
                    .bind("expires", expiresAtMillis.orElse(null))
                    .execute();
            for (String project : projects) {
                handle.createUpdate("INSERT INTO api_token_projects (token_id, project_id) VALUES (:t, :p)")
                        .bind("t", id)
                        .bind("p", project)
                        .execute();
            }
            return new Created(load(handle, id).orElseThrow(), secret);
        });
    }

    /** The live token with this secret: not revoked, not expired. */
    Optional<ApiToken> findActive(String secret) {
        long now = clock.millis();
        long revocationsSeen = revocations.get();
        String hash = Digests.sha256Hex(secret);
        Verified known = verified.get(hash);
        if (known == null
                || known.revocationsSeen() != revocationsSeen
                || now - known.checkedAtMillis() >= RECHECK_AFTER.toMillis()) {
            Optional<ApiToken> found = lookUp(hash, now);
            if (found.isEmpty()) {
                verified.remove(hash);
                return found;
            }
            known = new Verified(found.get(), now, revocationsSeen);
        }
        ApiToken token = known.token();
        if (token.expiresAtMillis().map(expires -> expires <= now).orElse(false)) {
            verified.remove(hash);
            return Optional.empty();
        }
        if (!database.readOnly() && token.lastUsedAtMillis().orElse(0L) < now - TOUCH_EVERY.toMillis()) {
            String id = token.id();
            database.update(handle -> handle.createUpdate("UPDATE api_tokens SET last_used_at = :now WHERE id = :id")
                    .bind("now", now)
                    .bind("id", id)
                    .execute());
            token = token.usedAt(now);
            known = new Verified(token, known.checkedAtMillis(), known.revocationsSeen());
        }
        verified.put(hash, known);
        return Optional.of(token);
    }

    private Optional<ApiToken> lookUp(String hash, long now) {
        return database.read(handle -> handle.createQuery("SELECT " + COLUMNS + """
                         FROM api_tokens
                        WHERE secret_hash = :hash AND revoked_at IS NULL
                          AND (expires_at IS NULL OR expires_at > :now)""")
                .bind("hash", hash)
                .bind("now", now)
                .map((rs, ctx) -> row(rs))
                .findOne()
                .map(found -> withProjects(handle, found)));
    }

    /**
     * Whether a token was ever made, revoked and expired ones included (tokens are never deleted). Until then callers
     * on this computer act as a local admin; after, only a token does, so revoking the last one locks the API rather
     * than opening it to every local process.
     */
    boolean anyEverMade() {
        if (!anyMade) {
            anyMade = database.read(handle -> handle.createQuery("SELECT 1 FROM api_tokens LIMIT 1")
                    .mapTo(Integer.class)
                    .findOne()
                    .isPresent());
        }
        return anyMade;
    }

    Paging.Result<ApiToken> list(Page page, boolean includeRevoked) {
        return database.read(handle -> {
            String from = includeRevoked ? "api_tokens WHERE 1 = 1" : "api_tokens WHERE revoked_at IS NULL";
            var result = Paging.newestFirst(
                    handle,
                    COLUMNS,
                    from,
                    page,
                    (rs, ctx) -> row(rs),
                    cursor -> load(handle, cursor).isPresent(),
                    query -> {});
            var withProjects = new ArrayList<ApiToken>();
            result.items().forEach(t -> withProjects.add(withProjects(handle, t)));
            return new Paging.Result<>(withProjects, result.hasMore());
        });
    }

    Optional<ApiToken> revoke(String id) {
        Optional<ApiToken> revoked = database.write(handle -> {
            handle.createUpdate("UPDATE api_tokens SET revoked_at = :now WHERE id = :id AND revoked_at IS NULL")
                    .bind("now", clock.millis())
                    .bind("id", id)
                    .execute();
            return load(handle, id);
        });
        // after the write: a lookup that began before it counts as stale, one that begins after reads it
        revocations.incrementAndGet();
        verified.values().removeIf(known -> known.token().id().equals(id));
        return revoked;
    }

    /** The name of the token with this id, revoked or expired ones included. */
    Optional<String> name(String id) {
        return database.read(handle -> handle.createQuery("SELECT name FROM api_tokens WHERE id = :id")
                .bind("id", id)
                .mapTo(String.class)
                .findOne());
    }

    private static Optional<ApiToken> load(Handle handle, String id) {
        return handle.createQuery("SELECT " + COLUMNS + " FROM api_tokens WHERE id = :id")
                .bind("id", id)
                .map((rs, ctx) -> row(rs))
                .findOne()
                .map(token -> withProjects(handle, token));
    }

    private static ApiToken withProjects(Handle handle, ApiToken token) {
        List<String> projects = handle.createQuery(
                        "SELECT project_id FROM api_token_projects WHERE token_id = :id ORDER BY project_id")
                .bind("id", token.id())
                .mapTo(String.class)
                .list();
        return new ApiToken(
                token.id(),
                token.name(),
                token.role(),
                projects,
                token.hint(),
                token.createdAtMillis(),
                token.expiresAtMillis(),
                token.lastUsedAtMillis(),
                token.revokedAtMillis());
    }

    private static ApiToken row(ResultSet rs) throws SQLException {
        return new ApiToken(
                rs.getString("id"),
                rs.getString("name"),
                Role.parse(rs.getString("role")).orElseThrow(),
                List.of(),
                rs.getString("hint"),
                rs.getLong("created_at"),
                Columns.optionalLong(rs, "expires_at"),
                Columns.optionalLong(rs, "last_used_at"),
                Columns.optionalLong(rs, "revoked_at"));
    }
}
