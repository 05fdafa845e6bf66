package dev.arbor.platform.http.idempotency;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.HeaderParam;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Route;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.instances.ServerInstances;
import dev.arbor.platform.json.Json;
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
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.jdbi.v3.core.Handle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code Idempotency-Key} for every write: the first request with a key runs and, when it succeeds, its status,
 * headers and body are kept for a day; a retry with the same key and the same request gets them back without running
 * again. Keys are scoped to the caller's credentials, so one caller can never replay another's answer. Kept bodies are
 * sealed like every secret: an answer may carry one shown only once, such as a new token.
 *
 * <p>A server may die (kill -9, power) between the commit of a request's work and the keeping of its answer. So each
 * write transaction the request makes on its thread also marks its key committed, in that same transaction, with the
 * ids the request made so far ({@link Database#beforeEachCommit}): the mark and the work commit together or not at
 * all. A retry whose key is still running on a server that is gone runs again when no work of it committed, and
 * otherwise is answered from what the work stored ({@link Rebuild}), never by doing the work twice. The work's
 * transactions stay its own: none is held open across what a request does between them (a model's answer, an
 * upstream's), and on SQLite the one writer is never held across a request.
 */
public final class Idempotency {
    public static final String HEADER = "Idempotency-Key";
    public static final int MAX_KEY_LENGTH = 255;
    static final Duration KEPT = Duration.ofHours(24);
    /** A request still marked running after this long belongs to a process that died; a retry takes it over. */
    static final Duration STALE = Duration.ofMinutes(15);

    private static final Logger LOG = LoggerFactory.getLogger(Idempotency.class);
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
    private static final String FAILED_AFTER_COMMIT = "arbor.idempotency.failed_after_commit";

    private final Database database;
    private final SecretBox secrets;
    private final ServerInstances servers;
    private final List<Route> routes;
    private final Clock clock;
    private final AtomicLong purgedAt;
    private final InMemory memory = new InMemory();

    /**
     * @param servers who runs a request still marked running: one whose server is gone is retried
     * @param routes the server's routes, whose reads make a write's answer again when its server died before keeping it
     */
    public Idempotency(Database database, SecretBox secrets, ServerInstances servers, List<Route> routes, Clock clock) {
        this.database = requireNonNull(database, "database");
        this.secrets = requireNonNull(secrets, "secrets");
        this.servers = requireNonNull(servers, "servers");
        this.routes = List.copyOf(routes);
        this.clock = requireNonNull(clock, "clock");
        this.purgedAt = new AtomicLong(clock.millis());
    }

    /**
     * Forgets the keys past their time and, on a single node, the requests that were in progress when the server
     * stopped and whose work never committed (nothing will finish them; their callers may retry). Those whose work
     * committed stay: a retry is answered from what they stored.
     */
    public void start() {
        if (database.readOnly()) {
            return;
        }
        database.update(handle -> {
            purgeExpired(handle, clock.millis());
            if (database.dialect().singleNode()) {
                handle.execute("DELETE FROM idempotency_keys WHERE state = 'in_progress' AND committed_at IS NULL");
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
        Rebuild rebuild = Rebuild.of(route, routes);
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
            Claim claim = memory.replay(scope + " " + key, hash, clock.millis())
                    .<Claim>map(Claim.Replay::new)
                    .orElseGet(() -> claim(scope, key, hash));
            switch (claim) {
                case Claim.Replay replay -> replay(ctx, replay.stored());
                case Claim.Rebuild committed -> answerAgain(ctx, rebuild, committed.minted(), scope, key, hash);
                case Claim.Run run -> run(ctx, handler, scope, key, hash);
            }
        };
    }

    /**
     * Runs the request. One that fails before any of its work committed frees its key for a retry; one that fails
     * after keeps its error as the key's answer, since running it again would do the committed part twice: the error
     * is kept once it is written ({@link #keepFailure}), after the server's error handling.
     */
    private void run(Context ctx, Handler handler, String scope, String key, String hash) throws Exception {
        var minted = new ArrayList<String>();
        var committed = new AtomicBoolean();
        boolean answered = false;
        try {
            Database.beforeEachCommit(
                    handle -> {
                        markCommitted(handle, scope, key, minted);
                        committed.set(true);
                    },
                    () -> Ids.noting(minted::add, () -> {
                        handler.handle(ctx);
                        return null;
                    }));
            answered = true;
        } finally {
            boolean succeeded = answered && ctx.statusCode() >= 200 && ctx.statusCode() < 300;
            if (succeeded || (answered && committed.get())) {
                complete(ctx, scope, key, hash);
            } else if (committed.get()) {
                ctx.attribute(FAILED_AFTER_COMMIT, new Pending(scope, key, hash));
            } else {
                release(scope, key);
            }
        }
    }

    /**
     * Keeps the error answer of a keyed request that failed after some of its work committed, once the server wrote
     * it: a retry replays that error rather than running the request again. Called after every request.
     */
    public void keepFailure(Context ctx) {
        Pending pending = ctx.attribute(FAILED_AFTER_COMMIT);
        if (pending != null) {
            ctx.attribute(FAILED_AFTER_COMMIT, null);
            complete(ctx, pending.scope(), pending.key(), pending.hash());
        }
    }

    /** A key whose request failed after its work committed, waiting for its error answer. */
    private record Pending(String scope, String key, String hash) {}

    /** In each of the request's own write transactions: its work committed, with the ids it made so far. */
    private void markCommitted(Handle handle, String scope, String key, List<String> minted) {
        handle.createUpdate("""
                        UPDATE idempotency_keys SET committed_at = :now, minted = :minted
                        WHERE scope = :scope AND idempotency_key = :key AND owner = :owner""")
                .bind("now", clock.millis())
                .bind("minted", Json.writeString(minted))
                .bind("scope", scope)
                .bind("key", key)
                .bind("owner", servers.id())
                .execute();
    }

    /**
     * Answers a request whose work committed on a server that died before keeping the answer, from what the work
     * stored, and keeps that answer for the retries after it. When it cannot be made again the key stays committed
     * and unanswered, so that no retry ever runs the work again.
     */
    private void answerAgain(Context ctx, Rebuild rebuild, List<String> minted, String scope, String key, String hash)
            throws Exception {
        try {
            rebuild.answer(ctx, minted);
        } catch (Exception e) {
            database.update(handle -> handle.createUpdate(
                            "UPDATE idempotency_keys SET owner = NULL WHERE scope = :scope AND idempotency_key = :key")
                    .bind("scope", scope)
                    .bind("key", key)
                    .execute());
            if (e instanceof ApiException api && api.code() == ErrorCode.IDEMPOTENCY_ANSWER_LOST) {
                throw api;
            }
            if (!(e instanceof ApiException)) { // an answer of the read (gone since) says enough without a trace
                LOG.warn("the answer of a request whose server stopped could not be read again", e);
            }
            throw Rebuild.lost("what it stored can no longer be read");
        }
        complete(ctx, scope, key, hash);
        ctx.header("idempotent-replayed", "true");
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

    /** What a request with a key does: run, replay a kept answer, or answer again from what its work stored. */
    private sealed interface Claim {
        record Run() implements Claim {}

        record Replay(StoredResponse stored) implements Claim {}

        record Rebuild(List<String> minted) implements Claim {}
    }

    private Claim claim(String scope, String key, String hash) {
        if (database.readOnly()) {
            return memory.claim(scope + " " + key, hash, clock.millis())
                    .<Claim>map(Claim.Replay::new)
                    .orElseGet(Claim.Run::new);
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
                              AND (created_at < :expired
                                   OR (state = 'in_progress' AND committed_at IS NULL AND created_at < :stale))""")
                    .bind("scope", scope)
                    .bind("key", key)
                    .bind("expired", now - KEPT.toMillis())
                    .bind("stale", now - STALE.toMillis())
                    .execute();
            if (insert(handle, scope, key, hash, now)) {
                return new Claim.Run();
            }
            var existing = handle.createQuery("""
                            SELECT request_hash, state, status_code, response_headers, response_body, owner, minted
                            FROM idempotency_keys WHERE scope = :scope AND idempotency_key = :key""")
                    .bind("scope", scope)
                    .bind("key", key)
                    .map((rs, c) -> new Existing(
                            rs.getString(1),
                            rs.getString(2),
                            rs.getInt(3),
                            rs.getString(4),
                            rs.getBytes(5),
                            Optional.ofNullable(rs.getString(6)),
                            Optional.ofNullable(rs.getString(7)).map(Idempotency::readIds)))
                    .one();
            if (!existing.hash().equals(hash)) {
                throw reused();
            }
            if (existing.state().equals("done")) {
                return new Claim.Replay(new StoredResponse(
                        existing.status(), readHeaders(existing.headers()), open(existing.body(), scope, key)));
            }
            // no server answers it: it ran on one that is gone, or its answer could not be made again
            boolean abandoned = existing.owner()
                    .map(owner -> !servers.registered(owner))
                    .orElse(existing.committed().isPresent());
            if (!abandoned) {
                throw inProgress();
            }
            if (existing.committed().isEmpty()) {
                return takeOver(handle, existing, scope, key, hash, now);
            }
            handle.createUpdate(
                            "UPDATE idempotency_keys SET owner = :owner WHERE scope = :scope AND idempotency_key = :key")
                    .bind("owner", servers.id())
                    .bind("scope", scope)
                    .bind("key", key)
                    .execute();
            return new Claim.Rebuild(existing.committed().get());
        });
    }

    private boolean insert(Handle handle, String scope, String key, String hash, long now) {
        return handle.createUpdate("""
                                INSERT INTO idempotency_keys
                                    (scope, idempotency_key, request_hash, state, created_at, owner)
                                VALUES (:scope, :key, :hash, 'in_progress', :now, :owner)
                                ON CONFLICT DO NOTHING""")
                        .bind("scope", scope)
                        .bind("key", key)
                        .bind("hash", hash)
                        .bind("now", now)
                        .bind("owner", servers.id())
                        .execute()
                == 1;
    }

    /** Runs again a request whose server died before any of its work committed. */
    private Claim takeOver(Handle handle, Existing existing, String scope, String key, String hash, long now) {
        int deleted = handle.createUpdate("""
                        DELETE FROM idempotency_keys
                        WHERE scope = :scope AND idempotency_key = :key AND state = 'in_progress'
                          AND committed_at IS NULL AND owner = :owner""")
                .bind("scope", scope)
                .bind("key", key)
                .bind("owner", existing.owner().orElseThrow())
                .execute();
        if (deleted == 0 || !insert(handle, scope, key, hash, now)) {
            throw inProgress(); // another retry took it over first
        }
        return new Claim.Run();
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
        return Requests.sha256WithBody(ctx, target(ctx, headers).getBytes(StandardCharsets.UTF_8));
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

    private static List<String> readIds(String json) {
        try {
            return Json.mapper().readValue(json, new TypeReference<List<String>>() {});
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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

    /**
     * A key's row. {@code owner}: the server answering it, none once no server can; {@code committed}: the ids its
     * request made, once some of its work committed.
     */
    private record Existing(
            String hash,
            String state,
            int status,
            String headers,
            byte[] body,
            Optional<String> owner,
            Optional<List<String>> committed) {}

    private record StoredResponse(int status, Map<String, String> headers, byte[] body) {}
}
