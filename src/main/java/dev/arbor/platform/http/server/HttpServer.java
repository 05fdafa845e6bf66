package dev.arbor.platform.http.server;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.config.ConfigException;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.Access;
import dev.arbor.platform.http.InlineMedia;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Route;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.idempotency.Idempotency;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.metrics.HttpMetrics;
import dev.arbor.platform.net.AddressRange;
import dev.arbor.platform.tracing.ServerSpans;
import dev.arbor.platform.tracing.Traced;
import dev.arbor.platform.tracing.Tracing;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.HttpResponseException;
import io.javalin.router.Endpoint;
import io.javalin.util.JavalinException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.PreEncodedHttpField;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.server.handler.MinimumDataRateHandler;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The HTTP server: Javalin on virtual threads, the error envelope for every failure, request ids, guards, body
 * limits, idempotency for writes, one log line and one metric per request, and the platform's own routes
 * ({@code /health}, {@code /metrics}, {@code /openapi.json} and the page over it, {@code /docs}).
 */
public final class HttpServer {
    private static final Logger LOG = LoggerFactory.getLogger(HttpServer.class);
    private static final Pattern CLIENT_REQUEST_ID = Pattern.compile("[A-Za-z0-9_.:-]{1,128}");
    private static final Duration DRAIN = Duration.ofSeconds(30);
    /** Connections the kernel may hold for the server before it accepts them (it caps this at somaxconn). */
    private static final int ACCEPT_QUEUE = 1024;

    private static final String HOLDS_LARGE_BODY = "arbor.holds_large_body";
    private static final String SPAN = "arbor.span";
    private static final Pattern PROJECT_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    private static final String METRICS = "/metrics";
    /** Every answer is what its Content-Type says: a browser must not guess HTML or script from a JSON body. */
    static final HttpField NO_SNIFFING = new PreEncodedHttpField("X-Content-Type-Options", "nosniff");
    /** A bracketed IPv6 hop with or without a port, or an IPv4 one with a port (IPv6 has more than one colon). */
    private static final Pattern HOP_WITH_PORT = Pattern.compile("\\[([^\\]]+)](?::\\d{1,5})?|([^:\\[\\]]+):\\d{1,5}");

    /** No request reads its body for this long: a file of inline media this old was left by a stopped server. */
    private static final Duration LEFTOVER_MEDIA_AGE = Duration.ofHours(1);

    private final HttpSettings config;
    private final List<Route> routes;
    private final List<OwnLimit> ownLimits;
    /**
     * JSON bodies over the server's limit (media inline) are held whole while parsed, several times their size;
     * this many at once fit in the heap, and the rest wait their turn with their bytes still in the network, for a
     * while: then 503 {@code server_busy}, so that a few slow senders cannot hold everyone else forever.
     */
    private final Semaphore largeBodies;

    private final List<Handler> guards;
    private final Idempotency idempotency;
    private final HttpMetrics metrics;
    private final ServerSpans spans;
    private final CrossSiteGuard crossSite;
    private final StudioKeyGuard studioKey;
    private final List<AddressRange> trustedProxies;
    private final AccessLog accessLog;
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final long startedAt = System.currentTimeMillis();
    private final String version;
    private final Path spoolFolder;
    private final byte[] openApiDocument;
    private @Nullable Javalin app;

    /**
     * @param routes every feature's routes
     * @param dataDir the data folder: media sent inline are decoded into its {@code tmp} while a request lasts
     * @param guards checks that run before the handler of every route a request matches, after the platform's own
     *     (admin authentication)
     */
    public HttpServer(
            HttpSettings config,
            Routes routes,
            List<Handler> guards,
            Idempotency idempotency,
            HttpMetrics metrics,
            Tracing tracing,
            String version,
            Path dataDir) {
        this.config = requireNonNull(config, "config");
        this.spoolFolder = requireNonNull(dataDir, "dataDir").resolve("tmp");
        InlineMedia.removeLeftovers(spoolFolder, LEFTOVER_MEDIA_AGE);
        this.guards = List.copyOf(guards);
        this.idempotency = requireNonNull(idempotency, "idempotency");
        this.metrics = requireNonNull(metrics, "metrics");
        this.spans = new ServerSpans(tracing);
        this.version = requireNonNull(version, "version");
        this.accessLog = new AccessLog(AccessLog.enabledFor(config.logLevel()), config.logFormat());
        this.crossSite = new CrossSiteGuard(config.corsOrigins(), config.host());
        this.studioKey = new StudioKeyGuard(config.studioApiKey());
        this.trustedProxies = config.trustedProxies().stream()
                .map(AddressRange::parse)
                .flatMap(Optional::stream)
                .toList();
        var apiDocs = new ApiDocs();
        var manual = new Manual();
        var platform = new Routes();
        platform.group("platform")
                .get("/health", "Whether the server is ready to serve", this::health)
                .ok(Schema.object()
                        .required("status", Schema.oneOf("ok"))
                        .required("version", Schema.string())
                        .required("uptime_seconds", Schema.integer(0, Long.MAX_VALUE)))
                .get(
                        METRICS,
                        "The server's metrics in Prometheus text format: an admin's (or open to anyone with "
                                + "ARBOR_METRICS_PUBLIC=true)",
                        this::metrics)
                .answers(200, "text/plain", Schema.string())
                .get("/openapi.json", "This OpenAPI document", this::openApi)
                .ok(Schema.object()
                        .required("openapi", Schema.string())
                        .required("paths", Schema.mapOf(Schema.any()))
                        .required("components", Schema.mapOf(Schema.any())))
                .get("/docs", "The manual's table of contents: this server's own documentation, as HTML", manual::index)
                .answers(200, "text/html", Schema.string())
                // before /docs/{page}: the API reference's address is not a page of the manual
                .get("/docs/api", "The API reference: this document in Swagger UI", apiDocs::page)
                .answers(200, "text/html", Schema.string())
                .get("/docs/api/{asset}", "A file of the API reference", apiDocs::asset)
                .answers(200, "text/javascript", Schema.string())
                .answers(200, "text/css", Schema.string())
                .answers(200, "image/png", Schema.string())
                .get("/docs/{page}", "A page of the manual (or its README, a picture or its styles)", manual::page)
                .answers(200, "text/html", Schema.string())
                .answers(200, "text/css", Schema.string())
                .answers(200, "image/png", Schema.string())
                .get("/docs/{section}/{page}", "A page of a part of the manual", manual::sectionPage)
                .answers(200, "text/html", Schema.string());
        var all = new ArrayList<>(routes.all());
        all.addAll(platform.all());
        this.routes = List.copyOf(all);
        this.ownLimits = this.routes.stream()
                .filter(route -> route.bodyLimit().isPresent())
                .map(route -> new OwnLimit(
                        route.method().name(),
                        pathPattern(route.path()),
                        Math.max(route.bodyLimit().getAsLong(), config.maxBodyBytes()),
                        route.isUpload()))
                .toList();
        long largest = ownLimits.stream()
                .filter(o -> !o.upload())
                .mapToLong(OwnLimit::maxBytes)
                .max()
                .orElse(1);
        this.largeBodies = new Semaphore(
                config.largeBodyPermits()
                        .orElse((int) Math.max(1, Runtime.getRuntime().maxMemory() / (4 * largest))),
                true);
        this.openApiDocument = Json.write(OpenApi.document(this.routes, this::access, version));
    }

    public List<Route> routes() {
        return routes;
    }

    /** Who may call a route: as its path says, but {@code /metrics} as configured. */
    private Access access(Route route) {
        return route.path().equals(METRICS) ? config.metricsAccess() : route.access();
    }

    public HttpServer start() {
        app = Javalin.create(cfg -> {
            cfg.startup.showJavalinBanner = false;
            cfg.startup.showOldJavalinVersionWarning = false;
            cfg.concurrency.useVirtualThreads = true;
            cfg.http.prefer405over404 = true;
            cfg.http.maxRequestSize = config.maxBodyBytes();
            cfg.router.ignoreTrailingSlashes = true;
            cfg.router.javaLangErrorHandler(this::fatal);
            // Jetty's accept queue is 50 by default: a burst of new connections (a thousand clients starting at
            // once) overflows the kernel's listen queue and some are reset before Arbor sees them
            cfg.jetty.addConnector((server, http) -> {
                http.addCustomizer((request, responseHeaders) -> {
                    responseHeaders.put(NO_SNIFFING);
                    return request;
                });
                var connector = new ServerConnector(server, new HttpConnectionFactory(http));
                connector.setHost(config.host());
                connector.setPort(config.port());
                connector.setAcceptQueueSize(ACCEPT_QUEUE);
                return connector;
            });
            cfg.jetty.modifyServer(server -> {
                server.setStopTimeout(DRAIN.toMillis());
                server.setStopAtShutdown(false);
                server.setErrorHandler(new BadMessageHandler());
            });
            cfg.jetty.modifyServletContextHandler(context -> {
                context.insertHandler(new GracefulHandler());
                if (config.minBodyBytesPerSecond() > 0) {
                    // a body must keep coming: one that trickles in holds a thread, a connection, perhaps a permit
                    context.insertHandler(new MinimumDataRateHandler(config.minBodyBytesPerSecond(), 0));
                }
                context.insertHandler(new ConnectionGuard(
                        config.headerTimeout(), config.maxConnectionsPerAddress(), config.maxConnections()));
            });
            cfg.routes.before(this::beforeEveryRequest);
            for (Route route : routes) {
                // a public write is a provider's webhook delivery: its own delivery id, not Idempotency-Key, dedupes it
                Handler handler = Requests.isWrite(route.method()) && route.access() != Access.PUBLIC
                        ? idempotency.wrap(route)
                        : route.handler();
                cfg.routes.addHttpHandler(route.method(), route.path(), guarded(handler, access(route)));
            }
            cfg.routes.after(this::afterEveryRequest);
            cfg.routes.exception(ApiException.class, (e, ctx) -> Responses.error(ctx, e));
            cfg.routes.exception(HttpResponseException.class, (e, ctx) -> Responses.error(ctx, fromJavalin(e, ctx)));
            cfg.routes.exception(Exception.class, (e, ctx) -> {
                if (causedBy(e, TimeoutException.class)) {
                    // the minimum data rate cut the body: the rest of it cannot be waited for
                    ctx.header("Connection", "close");
                    Responses.error(
                            ctx,
                            ApiException.of(
                                    ErrorCode.BODY_TOO_SLOW,
                                    "The request body arrived slower than " + config.minBodyBytesPerSecond()
                                            + " bytes a second; send it again, faster."));
                    return;
                }
                if (causedBy(e, EofException.class)) {
                    // the client's connection ended inside the body: its fault, not worth a stack trace
                    ctx.header("Connection", "close");
                    Responses.error(
                            ctx,
                            ApiException.of(
                                    ErrorCode.INCOMPLETE_BODY,
                                    "The request body "
                                            + "ended before all of it arrived (its Content-Length or last chunk); send it whole."));
                    return;
                }
                LOG.error(
                        "unexpected failure in {} {} (request {})",
                        ctx.method(),
                        Access.loggable(ctx.path()),
                        Requests.id(ctx),
                        e);
                Responses.error(
                        ctx,
                        ApiException.of(
                                ErrorCode.INTERNAL_ERROR,
                                "The server failed unexpectedly; the request id identifies it in the server log."));
            });
        });
        accessLog.start();
        try {
            app.start();
        } catch (JavalinException e) {
            app.stop();
            throw cannotListen(config, e);
        }
        return this;
    }

    /**
     * Fails now when the configured address cannot be listened on (a port in use, an address not of this machine),
     * so that the server stops before it opens its database or starts anything that would keep it running.
     */
    public static void checkCanListen(HttpSettings config) {
        if (config.port() == 0) {
            return;
        }
        try (var socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(config.host(), config.port()));
        } catch (IOException e) {
            throw cannotListen(config, e);
        }
    }

    private static ConfigException cannotListen(HttpSettings config, Exception e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String reason = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        return new ConfigException("cannot listen on " + config.host() + ":" + config.port() + ": " + reason
                + " (choose another address or port with --host/--port, ARBOR_HOST/ARBOR_PORT)");
    }

    public int port() {
        return requireNonNull(app, "the server is not started").port();
    }

    /** Stops taking new connections, lets requests in flight finish (up to 30 s), then stops. */
    public void stop() {
        if (app != null && stopping.compareAndSet(false, true)) {
            app.stop();
            accessLog.close();
        }
    }

    private void beforeEveryRequest(Context ctx) throws Exception {
        ctx.attribute(Requests.STARTED, System.nanoTime());
        String sent = ctx.header("x-request-id");
        String id = sent != null && CLIENT_REQUEST_ID.matcher(sent).matches() ? sent : Ids.requestId();
        ctx.attribute(Requests.ID, id);
        ctx.header("x-request-id", id);
        Optional<InetAddress> client = clientAddress(ctx);
        ctx.attribute(Requests.CLIENT, client);
        // the request's span and log context, current on this thread until the request ends (afterEveryRequest)
        MDC.put("request_id", id);
        String project = ctx.header("X-Project-Id");
        if (project != null && PROJECT_ID.matcher(project).matches()) {
            MDC.put("project", project);
        }
        Traced span = spans.start(ctx.method().name(), ctx::header)
                .with("http.request.method", ctx.method().name())
                .with("url.scheme", ctx.scheme())
                .with("url.path", Access.loggable(ctx.path()))
                .with("server.port", config.port() == 0 ? ctx.port() : config.port())
                .with("network.protocol.version", "1.1")
                .with("arbor.request_id", id);
        client.ifPresent(address -> span.with("client.address", address.getHostAddress()));
        ctx.attribute(SPAN, span);
        String path = withoutTrailingSlash(ctx.path());
        Optional<OwnLimit> own = ownLimits.stream()
                .filter(o -> o.method.equals(ctx.method().name())
                        && o.path.matcher(path).matches())
                .findFirst();
        long limit = own.map(OwnLimit::maxBytes).orElse(config.maxBodyBytes());
        ctx.attribute(Requests.BODY_LIMIT, limit);
        if (own.isPresent() && !own.get().upload() && limit > config.maxBodyBytes()) {
            ctx.attribute(Requests.LIMIT_WITHOUT_MEDIA, config.maxBodyBytes());
            ctx.attribute(Requests.SPOOL_FOLDER, spoolFolder);
        }
        String length = ctx.header("Content-Length");
        if (length != null && parseLong(length) > limit) {
            throw Requests.tooLarge(limit);
        }
        if (crossSite.check(ctx, own.map(OwnLimit::upload).orElse(false))) {
            ctx.skipRemainingHandlers();
        }
    }

    /**
     * The route's handler behind the key and token guards: they run only for a request that matched a route, so an
     * unknown path is 404 and a wrong method 405 whoever asks; and not for a public route.
     */
    private Handler guarded(Handler handler, Access access) {
        return ctx -> {
            if (access != Access.PUBLIC) {
                studioKey.check(ctx);
                for (Handler guard : guards) {
                    guard.handle(ctx);
                }
            }
            String length = ctx.header("Content-Length");
            boolean mayBeLarge = length == null || parseLong(length) > config.maxBodyBytes();
            if (ctx.attribute(Requests.LIMIT_WITHOUT_MEDIA) != null && mayBeLarge) {
                if (!largeBodies.tryAcquire(config.largeBodyWait().toMillis(), TimeUnit.MILLISECONDS)) {
                    // its body is still in the network: the connection cannot carry another request
                    throw ApiException.of(
                                    ErrorCode.SERVER_BUSY,
                                    "The server is reading as many requests "
                                            + "with inline media as it can hold at once; retry in a few seconds.")
                            .withHeader("retry-after", "5")
                            .withHeader("Connection", "close");
                }
                ctx.attribute(HOLDS_LARGE_BODY, true);
            }
            handler.handle(ctx);
        };
    }

    private void afterEveryRequest(Context ctx) {
        idempotency.keepFailure(ctx);
        Requests.releaseInlineMedia(ctx);
        Long limit = ctx.attribute(Requests.BODY_LIMIT);
        UnreadBody.drain(ctx, limit == null ? config.maxBodyBytes() : limit);
        if (ctx.attribute(HOLDS_LARGE_BODY) != null) {
            ctx.attribute(HOLDS_LARGE_BODY, null);
            largeBodies.release();
        }
        Long started = ctx.attribute(Requests.STARTED);
        long nanos = started == null ? 0 : System.nanoTime() - started;
        Endpoint matched = ctx.endpoints().matchedHttpEndpoint();
        String route = matched == null ? "unmatched" : matched.path;
        metrics.record(ctx.method().name(), route, ctx.statusCode(), nanos);
        Traced span = ctx.attribute(SPAN);
        Optional<String> traceId = Optional.empty();
        if (span != null) {
            ctx.attribute(SPAN, null);
            traceId = endSpan(ctx, span, matched);
        }
        accessLog.request(ctx.method().name(), ctx.path(), ctx.statusCode(), nanos, Requests.id(ctx), traceId);
        MDC.remove("request_id");
        MDC.remove("project");
    }

    /**
     * Names the request's span by its route template ({@code POST /v1/chat/completions}, {@code GET /projects/{id}}),
     * never the raw path, records the status, and ends it; the trace id, when the trace is recorded.
     */
    private static Optional<String> endSpan(Context ctx, Traced span, @Nullable Endpoint matched) {
        int status = ctx.statusCode();
        if (matched != null) {
            span.rename(ctx.method().name() + " " + matched.path);
            span.with("http.route", matched.path);
        }
        span.with("http.response.status_code", status);
        if (status >= 500) {
            span.failed(Integer.toString(status), "answered " + status);
        }
        Optional<String> traceId = span.traceId();
        span.close();
        return traceId;
    }

    /** A JVM error (out of memory, stack overflow) inside a request: still the envelope, never a bare 500. */
    private void fatal(jakarta.servlet.http.HttpServletResponse response, Error error) {
        String requestId = response.getHeader("x-request-id");
        LOG.error("fatal error serving request {}", requestId, error);
        if (response.isCommitted()) {
            return;
        }
        try {
            response.setStatus(500);
            response.setContentType("application/json");
            response.getOutputStream()
                    .write(Json.write(Responses.envelope(
                            ApiException.of(
                                    ErrorCode.INTERNAL_ERROR,
                                    "The server failed unexpectedly; the request id identifies it in the server log."),
                            requestId == null ? "" : requestId)));
        } catch (java.io.IOException e) {
            LOG.warn("could not report the failure of request {}", requestId);
        }
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> kind) {
        for (Throwable cause = e; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (kind.isInstance(cause)) {
                return true;
            }
        }
        return false;
    }

    private static ApiException fromJavalin(HttpResponseException e, Context ctx) {
        return switch (e.getStatus()) {
            case 404 ->
                ApiException.of(
                        ErrorCode.NOT_FOUND, "There is no endpoint at " + ctx.method() + " " + ctx.path() + ".");
            case 405 ->
                ApiException.of(ErrorCode.METHOD_NOT_ALLOWED, ctx.path() + " does not accept " + ctx.method() + ".");
            case 413 -> Requests.tooLarge(ctx.attribute(Requests.BODY_LIMIT));
            default -> {
                LOG.warn(
                        "unexpected framework response {} for {} {}",
                        e.getStatus(),
                        ctx.method(),
                        Access.loggable(ctx.path()));
                yield ApiException.of(ErrorCode.INTERNAL_ERROR, "The server could not handle the request.");
            }
        };
    }

    /**
     * The socket peer, or, when the peer is a trusted proxy, the last hop of {@code X-Forwarded-For} (all its
     * headers, in order) that is not a trusted proxy; the first hop when every one is. Fails closed: a forwarded
     * request whose header is missing or holds a hop that is not an address ({@code unknown}, RFC 7239's
     * {@code for=}) has no known client, which never counts as this computer.
     */
    private Optional<InetAddress> clientAddress(Context ctx) {
        Optional<InetAddress> peer = hop(ctx.req().getRemoteAddr());
        if (peer.isEmpty() || !isTrusted(peer.get())) {
            return peer;
        }
        var hops = new ArrayList<String>();
        for (String header : Collections.list(ctx.req().getHeaders("X-Forwarded-For"))) {
            hops.addAll(List.of(header.split(",", -1)));
        }
        Optional<InetAddress> client = Optional.empty();
        for (int i = hops.size() - 1; i >= 0; i--) {
            client = hop(hops.get(i).trim());
            if (client.isEmpty() || !isTrusted(client.get())) {
                return client;
            }
        }
        return client;
    }

    private boolean isTrusted(InetAddress address) {
        return trustedProxies.stream().anyMatch(range -> range.contains(address));
    }

    /** An address as proxies write a hop: {@code v4}, {@code v4:port}, {@code v6}, {@code [v6]}, {@code [v6]:port}. */
    private static Optional<InetAddress> hop(String text) {
        if (text == null) {
            return Optional.empty();
        }
        Matcher withPort = HOP_WITH_PORT.matcher(text);
        String address = !withPort.matches() ? text : withPort.group(1) != null ? withPort.group(1) : withPort.group(2);
        try {
            return Optional.of(InetAddress.ofLiteral(address));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** An operation that sets its own body limit; {@code path} matches the request paths it serves. */
    private record OwnLimit(String method, Pattern path, long maxBytes, boolean upload) {}

    private static Pattern pathPattern(String routePath) {
        var pattern = new StringBuilder();
        for (String part : routePath.split("(?=\\{)|(?<=})")) {
            pattern.append(part.startsWith("{") ? "[^/]+" : Pattern.quote(part));
        }
        return Pattern.compile(pattern.toString());
    }

    private static String withoutTrailingSlash(String path) {
        return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }

    private static long parseLong(String text) {
        try {
            return Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private void health(Context ctx) {
        var body = new LinkedHashMap<String, Object>();
        body.put("status", "ok");
        body.put("version", version);
        body.put("uptime_seconds", (System.currentTimeMillis() - startedAt) / 1000);
        Responses.ok(ctx, body);
    }

    private void openApi(Context ctx) {
        ctx.contentType("application/json");
        ctx.result(openApiDocument);
    }

    private void metrics(Context ctx) {
        ctx.contentType("text/plain; version=0.0.4; charset=utf-8");
        ctx.result(metrics.scrape());
    }
}
