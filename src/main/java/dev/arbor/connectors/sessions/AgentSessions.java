package dev.arbor.connectors.sessions;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.db.Database;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The MCP sessions of agents' endpoints: {@code initialize} opens one for the agent and the caller identity, whose id
 * the client sends back as {@code Mcp-Session-Id}; a request naming a session that is unknown, idle too long, or
 * another agent's or identity's is refused (404, as MCP says, so that the client initializes again). Sessions are rows
 * (the id kept only as its hash), so that every server sharing the database knows them; each server keeps those it has
 * seen in memory, so a call reads no row, and notes a session's use in its row at most once a minute.
 */
public final class AgentSessions {
    /** A session unused this long is gone. */
    public static final Duration IDLE = Duration.ofHours(24);

    private static final Duration TOUCH_EVERY = Duration.ofMinutes(1);
    private static final SecureRandom RANDOM = new SecureRandom();

    private record Known(String promptId, String identity, long touchedAt) {}

    private final Database database;
    private final Clock clock;
    private final Map<String, Known> known = new ConcurrentHashMap<>();

    public AgentSessions(Database database, Clock clock) {
        this.database = requireNonNull(database, "database");
        this.clock = requireNonNull(clock, "clock");
    }

    /** Opens a session of {@code identity} with agent {@code promptId}; its id, for the client. */
    public String open(String promptId, String identity, String protocolVersion) {
        byte[] bytes = new byte[24];
        RANDOM.nextBytes(bytes);
        String id = "mcps_" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        String hash = hash(id);
        long now = clock.millis();
        database.update(handle -> handle.createUpdate("INSERT INTO connector_agent_sessions (id_hash, prompt_id, "
                        + "identity, protocol_version, created_at, last_used_at) VALUES (:hash, :prompt, :identity, "
                        + ":version, :now, :now)")
                .bind("hash", hash)
                .bind("prompt", promptId)
                .bind("identity", identity)
                .bind("version", protocolVersion)
                .bind("now", now)
                .execute());
        known.put(hash, new Known(promptId, identity, now));
        return id;
    }

    /** Whether {@code sessionId} names a live session of this identity with this agent (and notes its use). */
    public boolean live(String sessionId, String promptId, String identity) {
        String hash = hash(sessionId);
        long now = clock.millis();
        Known session = known.get(hash);
        if (session == null || session.touchedAt() + TOUCH_EVERY.toMillis() < now) {
            // not seen here yet, or not for a minute: the row says whether it still is (it may have been swept)
            session = database.read(handle -> handle.createQuery("SELECT prompt_id, identity FROM "
                            + "connector_agent_sessions WHERE id_hash = :hash AND last_used_at >= :since")
                    .bind("hash", hash)
                    .bind("since", now - IDLE.toMillis())
                    .map((rs, ctx) -> new Known(rs.getString("prompt_id"), rs.getString("identity"), now))
                    .findOne()
                    .orElse(null));
            if (session == null) {
                known.remove(hash);
                return false;
            }
            database.update(handle -> handle.createUpdate(
                            "UPDATE connector_agent_sessions SET last_used_at = :now WHERE id_hash = :hash")
                    .bind("now", now)
                    .bind("hash", hash)
                    .execute());
            known.put(hash, session);
        }
        return session.promptId().equals(promptId) && session.identity().equals(identity);
    }

    /** Deletes the sessions idle for {@link #IDLE}; how many. */
    public int sweep() {
        long before = clock.millis() - IDLE.toMillis();
        known.values().removeIf(session -> session.touchedAt() < before);
        return database.write(
                handle -> handle.createUpdate("DELETE FROM connector_agent_sessions WHERE last_used_at < :before")
                        .bind("before", before)
                        .execute());
    }

    private static String hash(String id) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(id.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
