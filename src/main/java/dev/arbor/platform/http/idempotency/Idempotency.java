package dev.arbor.platform.http.idempotency;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.http.ApiException;
import dev.arbor.platform.http.ErrorCode;
import dev.arbor.platform.http.HeaderParam;
import dev.arbor.platform.http.Json;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Route;
import dev.arbor.platform.secrets.Digests;
import dev.arbor.platform.secrets.SecretBox;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jdbi.v3.core.Handle;

/**
 * {@code Idempotency-Key} for every write: the first request with a key runs and, when it succeeds, its status,
 * headers and body are kept for a day; a retry with the same key and the same request gets them back without running
 * again. Keys are scoped to the caller's credentials, so one caller can never replay another's answer. Kept bodies are
 * sealed like every secret: an answer may carry one shown only once, such as a new token.
 */
public final class Idempotency {
    public static final String HEADER = "Idempotency-Key";
    public static final int MAX_KEY_LENGTH = 255;
    static final Duration KEPT = Duration.ofHours(24);
    /** A request still marked running after this long belongs to a process that died; a retry takes it over. */
    static final Duration STALE = Duration.ofMinutes(15);

    private static final Set<String> NOT_REPLAYED = Set.of(
            "x-request-id",
            "content-length",
            "date",
            "server",
            "transfer-encoding",
            "connection",
            "vary",
            "access-control-allow-origin",
            "access-control-expose-headers");

    private static final Duration PURGE_EVERY = Duration.ofHours(1);
    /**
     * How long answers are kept in memory: while the database cannot take them (read-only), and for requests whose
     * answer must not be written down ({@link #keepInMemoryOnly}).
     */
    static final Duration KEPT_IN_MEMORY = Duration.ofMinutes(10);

    private static final String MEMORY_ONLY = "arbor.idempotency.memory_only";

    private final Database database;
    private final SecretBox secrets;
    private final Clock clock;
    private final AtomicLong purgedAt;
    private final InMemory memory = new InMemory();

    public Idempotency(Database database, SecretBox secrets, Clock clock) {
        this.database = requireNonNull(database, "database");
        this.secrets = requireNonNull(secrets, "secrets");
        this.clock = requireNonNull(clock, "clock");
        this.purgedAt = new AtomicLong(clock.millis());
    }

    /**
     * Forgets the keys past their time and, on a single node, the requests that were in progress when the server
     * stopped (nothing will finish them; their callers may retry).
     */
    public void start() {
        if (database.readOnly()) {
            return;
        }
        database.update(handle -> {
            purgeExpired(handle, clock.millis());
            if (database.dialect().singleNode()) {
                handle.execute("DELETE FROM idempotency_keys WHERE state = 'in_progress'");
            }
        });
    }

    private static void purgeExpired(Handle handle, long now) {
        handle.createUpdate("DELETE FROM idempotency_keys WHERE created_at < :cutoff")
                .bind("cutoff", now - KEPT.toMillis())
                .execute();
    }

    /**
     * Wraps a route's write handler so that requests carrying a key run at most once. A request is known by its
     * target, the headers its route declares (such as the current project) and its body; an upload's streamed file
     * is never read here: it is known by its length, its content type (without the multipart boundary) and its file
     * name header instead.
     */
    public Handler wrap(Route route) {
        Handler handler = route.handler();
        boolean upload = route.isUpload();
        List<HeaderParam> headers = route.headers();
        return ctx -> {
            String key = ctx.header(HEADER);
            if (key == null || !Requests.isWrite(ctx.method())) {
                handler.handle(ctx);
                return;
            }
            checkKey(key);
            String scope = Digests.sha256Hex(
                    Optional.ofNullable(ctx.header("Authorization")).orElse(""));
            String hash = upload ? uploadHash(ctx, headers) : requestHash(ctx, headers);
            Optional<StoredResponse> stored =
                    memory.replay(scope + " " + key, hash, clock.millis()).or(() -> claim(scope, key, hash));
            if (stored.isPresent()) {
                replay(ctx, stored.get());
                return;
            }
            boolean succeeded = false;
            try {
                handler.handle(ctx);
                succeeded = ctx.statusCode() >= 200 && ctx.statusCode() < 300;
            } finally {
                if (succeeded) {
                    complete(ctx, scope, key, hash);
                } else {
                    release(scope, key);
                }
            }
        };
    }

    /**
     * Keeps this request's answer for replay in memory only (ten minutes), never in the database: for an answer the
     * caller asked not to be stored, such as a decision with {@code store: none}.
     */
    public static void keepInMemoryOnly(Context ctx) {
        ctx.attribute(MEMORY_ONLY, true);
    }

    private static void checkKey(String key) {
        if (key.length() > MAX_KEY_LENGTH) {
            throw ApiException.of(
                    ErrorCode.INVALID_PARAMETER,
                    HEADER,
                    "Idempotency-Key is " + key.length() + " characters long; at most " + MAX_KEY_LENGTH
                            + " are allowed.");
        }
        if (key.isBlank() || !key.chars().allMatch(c -> c >= 0x21 && c <= 0x7e)) {
            throw ApiException.of(
                    ErrorCode.INVALID_PARAMETER, HEADER, "Idempotency-Key must be printable ASCII without spaces.");
        }
    }

    private Optional<StoredResponse> claim(String scope, String key, String hash) {
        if (database.readOnly()) {
            return memory.claim(scope + " " + key, hash, clock.millis());
        }
        return database.write(handle -> {
            long now = clock.millis();
            long last = purgedAt.get();
            if (now - last > PURGE_EVERY.toMillis() && purgedAt.compareAndSet(last, now)) {
                purgeExpired(handle, now); // answers kept past a day go without a timer of their own
            }
            handle.createUpdate("""
                            DELETE FROM idempotency_keys
                            WHERE scope = :scope AND idempotency_key = :key
                              AND (created_at < :expired OR (state = 'in_progress' AND created_at < :stale))""")
                    .bind("scope", scope)
                    .bind("key", key)
                    .bind("expired", now - KEPT.toMillis())
                    .bind("stale", now - STALE.toMillis())
                    .execute();
            int inserted = handle.createUpdate("""
                            INSERT INTO idempotency_keys (scope, idempotency_key, request_hash, state, created_at)
                            VALUES (:scope, :key, :hash, 'in_progress', :now)
                            ON CONFLICT DO NOTHING""")
                    .bind("scope", scope)
                    .bind("key", key)
                    .bind("hash", hash)
                    .bind("now", now)
                    .execute();
            if (inserted == 1) {
                return Optional.empty();
            }
            var existing = handle.createQuery("""
                            SELECT request_hash, state, status_code, response_headers, response_body
                            FROM idempotency_keys WHERE scope = :scope AND idempotency_key = :key""")
                    .bind("scope", scope)
                    .bind("key", key)
                    .map((rs, c) -> new Existing(
                            rs.getString(1), rs.getString(2), rs.getInt(3), rs.getString(4), rs.getBytes(5)))
                    .one();
            if (!existing.hash().equals(hash)) {
                throw reused();
            }
            if (existing.state().equals("in_progress")) {
                throw inProgress();
            }
            return Optional.of(new StoredResponse(
                    existing.status(), readHeaders(existing.headers()), open(existing.body(), scope, key)));
        });
    }

    private void complete(Context ctx, String scope, String key, String hash) {
        byte[] body = responseBody(ctx);
        var headers = new LinkedHashMap<String, String>();
        for (String name : ctx.res().getHeaderNames()) {
            if (!NOT_REPLAYED.contains(name.toLowerCase(Locale.ROOT))) {
                headers.put(name, ctx.res().getHeader(name));
            }
        }
        var response = new StoredResponse(ctx.statusCode(), headers, body);
        if (database.readOnly()) {
            memory.complete(scope + " " + key, response);
            return;
        }
        if (Boolean.TRUE.equals(ctx.attribute(MEMORY_ONLY))) {
            memory.remember(scope + " " + key, hash, response, clock.millis());
            release(scope, key);
            return;
        }
        database.update(handle -> handle.createUpdate("""
                        UPDATE idempotency_keys
                        SET state = 'done', status_code = :status, response_headers = :headers, response_body = :body
                        WHERE scope = :scope AND idempotency_key = :key""")
                .bind("status", ctx.statusCode())
                .bind("headers", Json.writeString(headers))
                .bind("body", seal(body, scope, key))
                .bind("scope", scope)
                .bind("key", key)
                .execute());
    }

    private byte[] seal(byte[] body, String scope, String key) {
        return secrets.seal(Base64.getEncoder().encodeToString(body), context(scope, key))
                .getBytes(StandardCharsets.UTF_8);
    }

    private byte[] open(byte[] sealed, String scope, String key) {
        return Base64.getDecoder()
                .decode(secrets.open(new String(sealed, StandardCharsets.UTF_8), context(scope, key)));
    }

    /** Binds a kept body to its row: one copied under another key does not open. */
    private static String context(String scope, String key) {
        return "idempotency:" + scope + ":" + key;
    }

    private void release(String scope, String key) {
        if (database.readOnly()) {
            memory.release(scope + " " + key);
            return;
        }
        database.update(handle -> handle.createUpdate(
                        "DELETE FROM idempotency_keys WHERE scope = :scope AND idempotency_key = :key")
                .bind("scope", scope)
                .bind("key", key)
                .execute());
    }

    private static void replay(Context ctx, StoredResponse stored) {
        stored.headers().forEach(ctx::header);
        ctx.header("idempotent-replayed", "true");
        ctx.status(stored.status());
        ctx.result(stored.body() == null ? new byte[0] : stored.body());
    }

    /** The body the handler produced, read once and put back so that it is still sent. */
    private static byte[] responseBody(Context ctx) {
        try (InputStream in = ctx.resultInputStream()) {
            if (in == null) {
                return new byte[0];
            }
            byte[] body = in.readAllBytes();
            ctx.result(body);
            return body;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String requestHash(Context ctx, List<HeaderParam> headers) {
        byte[] head = target(ctx, headers).getBytes(StandardCharsets.UTF_8);
        byte[] body = Requests.body(ctx);
        byte[] all = new byte[head.length + body.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(body, 0, all, head.length, body.length);
        return Digests.sha256Hex(all);
    }

    private static String uploadHash(Context ctx, List<HeaderParam> headers) {
        String contentType = Optional.ofNullable(ctx.header("Content-Type"))
                .orElse("")
                .split(";", 2)[0]
                .trim();
        return Digests.sha256Hex((target(ctx, headers) + "length=" + ctx.header("Content-Length") + "\ntype="
                        + contentType.toLowerCase(Locale.ROOT) + "\nname=" + ctx.header("X-Filename"))
                .getBytes(StandardCharsets.UTF_8));
    }

    /** The method, path and query, and each declared header sent (none sent: as before routes declared any). */
    private static String target(Context ctx, List<HeaderParam> headers) {
        var target = new StringBuilder(ctx.method().name() + " " + ctx.path()
                + (ctx.queryString() == null ? "" : "?" + ctx.queryString()) + "\n");
        headers.forEach(header -> header.read(ctx)
                .ifPresent(value ->
                        target.append(header.name()).append(": ").append(value).append('\n')));
        return target.toString();
    }

    private static Map<String, String> readHeaders(String json) {
        if (json == null) {
            return Map.of();
        }
        try {
            return Json.mapper().readValue(json, new TypeReference<LinkedHashMap<String, String>>() {});
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ApiException reused() {
        return ApiException.of(
                ErrorCode.IDEMPOTENCY_KEY_REUSED,
                HEADER,
                "This Idempotency-Key was used with a different request; use a new key for a new request.");
    }

    private static ApiException inProgress() {
        return ApiException.of(
                        ErrorCode.IDEMPOTENCY_IN_PROGRESS,
                        HEADER,
                        "A request with this Idempotency-Key is still running; retry in a second.")
                .withHeader("retry-after", "1");
    }

    /** The keys of a server whose database is read-only: the same rules, kept in memory for ten minutes. */
    private static final class InMemory {
        private record Entry(String hash, long createdAt, Optional<StoredResponse> response) {}

        private final Map<String, Entry> entries = new ConcurrentHashMap<>();

        Optional<StoredResponse> claim(String id, String hash, long now) {
            entries.values().removeIf(e -> e.createdAt() < now - KEPT_IN_MEMORY.toMillis());
            Entry mine = new Entry(hash, now, Optional.empty());
            Entry existing = entries.putIfAbsent(id, mine);
            if (existing == null) {
                return Optional.empty();
            }
            if (!existing.hash().equals(hash)) {
                throw reused();
            }
            return Optional.of(existing.response().orElseThrow(Idempotency::inProgress));
        }

        /** The answer kept for this key, when there is one for the same request. */
        Optional<StoredResponse> replay(String id, String hash, long now) {
            entries.values().removeIf(e -> e.createdAt() < now - KEPT_IN_MEMORY.toMillis());
            Entry entry = entries.get(id);
            if (entry == null || entry.response().isEmpty()) {
                return Optional.empty();
            }
            if (!entry.hash().equals(hash)) {
                throw reused();
            }
            return entry.response();
        }

        void remember(String id, String hash, StoredResponse response, long now) {
            entries.put(id, new Entry(hash, now, Optional.of(response)));
        }

        void complete(String id, StoredResponse response) {
            entries.computeIfPresent(id, (k, e) -> new Entry(e.hash(), e.createdAt(), Optional.of(response)));
        }

        void release(String id) {
            entries.remove(id);
        }
    }

    private record Existing(String hash, String state, int status, String headers, byte[] body) {}

    private record StoredResponse(int status, Map<String, String> headers, byte[] body) {}
}
