package dev.arbor.inference;

import static java.util.Objects.requireNonNull;

import dev.arbor.inference.endpoints.EndpointBoard;
import dev.arbor.inference.endpoints.EndpointHealth;
import dev.arbor.inference.endpoints.EndpointState;
import dev.arbor.inference.endpoints.Strategy;
import dev.arbor.inference.openai.InferenceRequest;
import dev.arbor.inference.openai.Operation;
import dev.arbor.inference.openai.SseRelay;
import dev.arbor.inference.openai.StreamEdit;
import dev.arbor.inference.openai.TopLevel;
import dev.arbor.models.RemoteEndpoint;
import dev.arbor.models.engines.ReplicaSet;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.outbound.OutboundClient;
import dev.arbor.platform.outbound.OutboundRefusedException;
import dev.arbor.platform.ratelimits.RateLimiter;
import dev.arbor.platform.tracing.Traced;
import dev.arbor.routers.EndpointHealthReport;
import dev.arbor.routers.RouterTelemetry;
import dev.arbor.routers.RouterUsage;
import io.javalin.http.Context;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * Serves OpenAI-compatible requests from model endpoints: a strategy picks the endpoint (or, for a fallback chain,
 * the order), the caller's body goes there with only {@code model} replaced, and the answer comes back as the
 * endpoint sent it — status, JSON, server-sent events chunk by chunk — with {@code model} as the caller named it.
 * Every answer says which endpoint gave it and after how many attempts ({@code x-router-endpoint},
 * {@code x-router-attempts}). Each attempt's outcome feeds the endpoint's health (failures cool it down) and each
 * request's usage is recorded off the request path, with metrics by router and endpoint.
 *
 * <p>What a failure becomes: the endpoint's own error answer (OpenAI's error shape) as it sent it; no answer in time
 * 504 {@code upstream_timeout}; no connection, or one reset, 502 {@code upstream_unavailable}; an answer that is not
 * JSON 502 {@code upstream_invalid_response}. A stream that breaks after its first byte reached the caller ends with
 * an error event.
 */
public final class Routing implements AutoCloseable {
    /** Larger answers are refused (502) rather than held: embeddings of a large batch stay well below. */
    private static final int MAX_ANSWER_BYTES = 64 * 1024 * 1024;

    private static final int CHUNK = 16 * 1024;
    /** A cause longer than this is a library's internal state, not a reason: its class says enough. */
    private static final int MAX_CAUSE_LENGTH = 200;

    private final EndpointDirectory directory;
    private final OutboundClient outbound;
    private final DeploymentLimits limits;
    private final ReplicaServing replicas;
    private final RoutingSettings settings;
    private final EndpointBoard board;
    private final UsageLog usage;
    private final RoutingMetrics metrics;
    /** Passes requests to the server that runs a local deployment's replicas; closed with this. */
    private final ServerHop hop;

    public Routing(
            EndpointDirectory directory,
            OutboundClient outbound,
            RateLimiter limits,
            Database database,
            RoutingSettings settings,
            ServerHop hop,
            Clock clock,
            MeterRegistry meters) {
        this(directory, outbound, limits, database, settings, hop, clock, meters, ThreadLocalRandom::current);
    }

    Routing(
            EndpointDirectory directory,
            OutboundClient outbound,
            RateLimiter limits,
            Database database,
            RoutingSettings settings,
            ServerHop hop,
            Clock clock,
            MeterRegistry meters,
            Supplier<RandomGenerator> random) {
        this.directory = requireNonNull(directory, "directory");
        this.outbound = requireNonNull(outbound, "outbound");
        this.hop = requireNonNull(hop, "hop");
        this.limits = new DeploymentLimits(limits);
        this.replicas = new ReplicaServing(clock);
        this.settings = requireNonNull(settings, "settings");
        this.board = new EndpointBoard(clock, random);
        this.usage = new UsageLog(database, clock, meters);
        this.metrics = new RoutingMetrics(meters);
    }

    /** Starts storing usage rows in the background. */
    public void start() {
        usage.start();
    }

    /** Whether {@code endpoint} names a cloud model of the registry (deployments are found in a project first). */
    public boolean knows(String endpoint) {
        return directory
                .find(project -> false, endpoint)
                .filter(EndpointDirectory.Target.CloudModel.class::isInstance)
                .isPresent();
    }

    /** The health of these endpoints on this server, in their order. */
    public List<EndpointHealth> health(List<String> endpoints) {
        return board.health(List.copyOf(endpoints));
    }

    /** The health of every endpoint this server has routed to since it started, by reference. */
    public List<EndpointHealth> health() {
        return board.health();
    }

    /** {@link #health(List)} and {@link #stats} in the API's shapes, for the routers' routes. */
    public RouterTelemetry telemetry() {
        return new RouterTelemetry() {
            @Override
            public List<EndpointHealthReport> endpointHealth(List<String> endpoints) {
                return health(endpoints).stream().map(EndpointHealth::report).toList();
            }

            @Override
            public RouterUsage usage(String routerId, Instant since) {
                return stats(routerId, since);
            }
        };
    }

    /** What a router's requests since {@code since} came to (a moment's rows may still be on their way). */
    public RouterUsage stats(String routerId, Instant since) {
        return usage.summary(requireNonNull(routerId, "routerId"), requireNonNull(since, "since"));
    }

    /**
     * Answers {@code request} through the endpoints {@code strategy} picks, writing the answer to {@code ctx}; throws
     * {@link ApiException} when no endpoint gave an answer to pass on. A deployment the strategy names answers only
     * when it is in a project {@code inProject} accepts (a router's own, and one the caller may act in); elsewhere it
     * is an endpoint that is not there.
     */
    public void forward(
            Context ctx,
            InferenceRequest request,
            Strategy strategy,
            Predicate<String> inProject,
            Attribution attribution) {
        forward(ctx, request, strategy, inProject, attribution, Forwarding.PLAIN);
    }

    /**
     * {@link #forward(Context, InferenceRequest, Strategy, Predicate, Attribution)}, with the key and stream edit a
     * router asks.
     */
    public void forward(
            Context ctx,
            InferenceRequest request,
            Strategy strategy,
            Predicate<String> inProject,
            Attribution attribution,
            Forwarding forwarding) {
        requireNonNull(inProject, "inProject");
        requireNonNull(forwarding, "forwarding");
        var call = new Call(requireNonNull(ctx, "ctx"), requireNonNull(request, "request"), attribution);
        Failed failed = null;
        for (EndpointBoard.Planned planned : board.plan(strategy)) {
            call.attempting(planned.endpoint());
            Optional<EndpointDirectory.Target> target =
                    directory.find(inProject, planned.endpoint()).map(found -> keyed(found, forwarding.apiKey()));
            if (target.isEmpty()) {
                failed = new Failed(
                        Outcome.UNAVAILABLE,
                        "Endpoint '" + planned.endpoint() + "' is not a cloud model of the registry or a running "
                                + "deployment (any more).",
                        Optional.empty());
                if (!retried(strategy, failed)) {
                    break;
                }
                continue;
            }
            Optional<Failed> refused = admitted(ctx, target.get(), request.operation());
            if (refused.isPresent()) {
                failed = refused.get();
                if (!retried(strategy, failed)) {
                    break;
                }
                continue;
            }
            EndpointState state = board.state(planned.endpoint());
            state.begin();
            long attemptStarted = System.nanoTime();
            Duration timeout = planned.timeout().orElse(settings.timeout());
            Attempt attempt;
            try {
                attempt = attempt(call, target.get(), request, timeout, forwarding);
            } catch (ApiException e) { // a request the deployment's replicas refuse: the caller's to see
                state.abandoned();
                call.finish(Outcome.UPSTREAM_ERROR, e.status(), TopLevel.Usage.NONE);
                throw e;
            }
            switch (attempt) {
                case Whole whole -> {
                    state.succeeded(System.nanoTime() - attemptStarted);
                    deliver(ctx, whole);
                    call.finish(whole.outcome(), whole.status(), whole.usage());
                    return;
                }
                case Streaming streaming -> {
                    stream(call, streaming, state, System.nanoTime() - attemptStarted, forwarding.streamEdit());
                    return;
                }
                case Served served -> {
                    switch (served.outcome()) {
                        case OK -> state.succeeded(System.nanoTime() - attemptStarted);
                        case CLIENT_CLOSED -> state.abandoned();
                        default ->
                            failed(
                                    state,
                                    "its stream ended early: "
                                            + served.outcome().wire());
                    }
                    call.finish(served.outcome(), 200, served.usage());
                    return;
                }
                case Failed failure -> {
                    failed(state, failure.message());
                    failed = failure;
                }
            }
            if (!retried(strategy, failed)) {
                break;
            }
        }
        Failed last = requireNonNull(failed, "a plan has an attempt");
        if (last.answer().isPresent()) {
            Whole answer = last.answer().get();
            deliver(ctx, answer);
            call.finish(last.outcome(), answer.status(), answer.usage());
            return;
        }
        if (last.error().isPresent()) {
            call.finish(last.outcome(), last.error().get().status(), TopLevel.Usage.NONE);
            throw last.error().get();
        }
        ErrorCode code = switch (last.outcome()) {
            case TIMEOUT -> ErrorCode.UPSTREAM_TIMEOUT;
            case INVALID_RESPONSE -> ErrorCode.UPSTREAM_INVALID_RESPONSE;
            default -> ErrorCode.UPSTREAM_UNAVAILABLE;
        };
        call.finish(last.outcome(), code.status(), TopLevel.Usage.NONE);
        throw ApiException.of(code, last.message());
    }

    /**
     * What a deployment checks before a request reaches it: that its model can serve the operation (400
     * {@code model_capability_unsupported} otherwise, answered at once), and its rate limit, whose headers every
     * answer through it carries; a refusal is a 429 that a fallback chain may pass over.
     */
    private Optional<Failed> admitted(Context ctx, EndpointDirectory.Target target, Operation operation) {
        if (!(target instanceof EndpointDirectory.Target.Deployment(DeploymentDirectory.ServedDeployment deployment))) {
            return Optional.empty();
        }
        if (deployment.backend() instanceof DeploymentDirectory.Backend.Replicas(ReplicaSet set)) {
            ReplicaServing.requireCapability(set, operation, deployment.name());
        }
        if (hop.passed(ctx, deployment.id())) {
            return Optional.empty(); // the server that passed it took from the limit
        }
        return limits.take(ctx, deployment)
                .map(refusal ->
                        new Failed(Outcome.RATE_LIMITED, refusal.getMessage(), Optional.empty(), Optional.of(refusal)));
    }

    /** A cloud model with {@code apiKey} in place of its own key, when one is given; a deployment as it is. */
    private static EndpointDirectory.Target keyed(EndpointDirectory.Target target, Optional<String> apiKey) {
        if (apiKey.isEmpty() || !(target instanceof EndpointDirectory.Target.CloudModel(RemoteEndpoint endpoint))) {
            return target;
        }
        return new EndpointDirectory.Target.CloudModel(new RemoteEndpoint(
                endpoint.modelId(), endpoint.baseUrl(), endpoint.remoteModel(), Optional.of(apiKey.get())));
    }

    /** Whether a fallback chain goes on after this failure (its {@code retry_on}); other strategies have one try. */
    private static boolean retried(Strategy strategy, Failed failed) {
        if (!(strategy instanceof Strategy.Fallback fallback)) {
            return true;
        }
        Strategy.Retry kind = switch (failed.outcome()) {
            case TIMEOUT -> Strategy.Retry.TIMEOUT;
            case UNAVAILABLE -> Strategy.Retry.CONNECTION_REFUSED;
            case RATE_LIMITED -> Strategy.Retry.RATE_LIMITED;
            default ->
                failed.answer().filter(a -> a.status() == 429).isPresent()
                        ? Strategy.Retry.RATE_LIMITED
                        : Strategy.Retry.SERVER_ERROR;
        };
        return fallback.retryOn().contains(kind);
    }

    /** One request on its way: the endpoint it is at, the attempts so far, and how it is recorded when it ends. */
    private final class Call {
        private final Context ctx;
        private final InferenceRequest request;
        private final Attribution attribution;
        private final long started = System.nanoTime();
        private String endpoint = "";
        private int attempts;

        Call(Context ctx, InferenceRequest request, Attribution attribution) {
            this.ctx = ctx;
            this.request = request;
            this.attribution = requireNonNull(attribution, "attribution");
            attribution.routerId().ifPresent(id -> ctx.header("x-router-id", id));
            attribution.headers().forEach(ctx::header);
        }

        void attempting(String next) {
            endpoint = next;
            attempts++;
            ctx.header("x-router-endpoint", endpoint);
            ctx.header("x-router-attempts", Integer.toString(attempts));
        }

        /** Queues the request's usage row and records its metrics. */
        void finish(Outcome outcome, int status, TopLevel.Usage tokens) {
            long nanos = System.nanoTime() - started;
            var entry = new UsageLog.Entry(
                    board.nowMillis(),
                    attribution.routerId(),
                    endpoint,
                    request.model(),
                    request.operation(),
                    outcome,
                    status,
                    attempts,
                    tokens.promptTokens(),
                    tokens.completionTokens(),
                    nanos / 1000);
            usage.record(entry);
            metrics.record(entry, nanos);
        }
    }

    private void failed(EndpointState state, String error) {
        state.failed(
                error,
                board.nowMillis(),
                settings.failuresToCool(),
                settings.cooldown().toMillis());
    }

    /** One attempt's result. */
    private sealed interface Attempt {}

    /** An answer read whole, ready for the caller: a success with {@code model} replaced, or a 4xx as it came. */
    private record Whole(int status, byte[] body, Optional<String> retryAfter, TopLevel.Usage usage, Outcome outcome)
            implements Attempt {}

    /** A stream whose first bytes arrived: from here on it is the caller's, whatever happens. */
    private record Streaming(InputStream body, byte[] first, int firstLength) implements Attempt {}

    /** An answer this server wrote itself from a deployment's replicas, stream and all. */
    private record Served(Outcome outcome, TopLevel.Usage usage) implements Attempt {}

    /**
     * A failed attempt, the next endpoint's turn; {@code answer} is the endpoint's error to pass on if it is last,
     * {@code error} ours (a deployment's refusal or its replicas' failure).
     */
    private record Failed(Outcome outcome, String message, Optional<Whole> answer, Optional<ApiException> error)
            implements Attempt {
        Failed(Outcome outcome, String message, Optional<Whole> answer) {
            this(outcome, message, answer, Optional.empty());
        }
    }

    /** One endpoint's attempt, as a span of the request's trace: the endpoint, and the failure that passed it over. */
    private Attempt attempt(
            Call call,
            EndpointDirectory.Target target,
            InferenceRequest request,
            Duration timeout,
            Forwarding forwarding) {
        try (Traced span = EndpointSpans.attempt(request.operation(), call.endpoint, call.attempts)) {
            Attempt attempt;
            try {
                attempt = reach(call, target, request, timeout, forwarding);
            } catch (ApiException e) {
                span.failed(e.code().code(), e.getMessage());
                throw e;
            }
            switch (attempt) {
                case Failed failed -> span.failed(failed.outcome().wire(), failed.message());
                case Whole whole -> EndpointSpans.answered(span, whole.status(), whole.usage());
                case Served served -> EndpointSpans.answered(span, 200, served.usage());
                case Streaming streaming -> span.with("http.response.status_code", 200);
            }
            return attempt;
        }
    }

    private Attempt reach(
            Call call,
            EndpointDirectory.Target target,
            InferenceRequest request,
            Duration timeout,
            Forwarding forwarding) {
        return switch (target) {
            case EndpointDirectory.Target.CloudModel cloud -> attempt(cloud.endpoint(), request, timeout);
            case EndpointDirectory.Target.Deployment(DeploymentDirectory.ServedDeployment deployment) ->
                switch (deployment.backend()) {
                    case DeploymentDirectory.Backend.Endpoint remote -> attempt(remote.endpoint(), request, timeout);
                    case DeploymentDirectory.Backend.Replicas local ->
                        served(call, local.replicas(), request, timeout, forwarding.streamEdit());
                    case DeploymentDirectory.Backend.OtherServer other ->
                        passedOn(call, deployment, other, request, timeout);
                };
        };
    }

    /**
     * Answers from replicas in this process; a model failure (5xx: crashed, overloaded, timed out) before anything
     * reached the caller is a failed attempt that a fallback chain may pass over, a 4xx is the caller's to see.
     */
    private Attempt served(
            Call call, ReplicaSet set, InferenceRequest request, Duration timeout, Optional<StreamEdit> edit) {
        try {
            if (request.stream()) {
                ReplicaServing.Streamed streamed =
                        replicas.stream(set, request, timeout, () -> startStream(call.ctx), edit);
                return new Served(streamed.outcome(), streamed.usage());
            }
            ReplicaServing.Answered answered = replicas.whole(set, request, timeout);
            return new Whole(200, answered.body(), Optional.empty(), answered.usage(), Outcome.OK);
        } catch (ApiException e) {
            if (e.status() < 500) {
                throw e;
            }
            Outcome outcome = e.status() == 504 ? Outcome.TIMEOUT : Outcome.UPSTREAM_ERROR;
            return new Failed(
                    outcome,
                    "Replicas of '" + set.modelId() + "': " + e.getMessage(),
                    Optional.empty(),
                    Optional.of(e));
        }
    }

    /** Commits a 200 event stream: what is written after this goes to the caller as it comes. */
    private static OutputStream startStream(Context ctx) {
        ctx.status(200);
        ctx.header("cache-control", "no-cache");
        ctx.header("x-accel-buffering", "no"); // a proxy in front must not hold the stream back
        ctx.contentType("text/event-stream");
        try {
            return ctx.res().getOutputStream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Attempt attempt(RemoteEndpoint endpoint, InferenceRequest request, Duration timeout) {
        var builder = HttpRequest.newBuilder(
                        endpoint.operation(request.operation().path()))
                .timeout(timeout)
                .header("content-type", "application/json")
                .header("accept", request.stream() ? "text/event-stream" : "application/json");
        endpoint.apiKey().ifPresent(key -> builder.header("authorization", "Bearer " + key));
        String where = "Endpoint '" + endpoint.modelId() + "'";
        HttpRequest call = builder.POST(HttpRequest.BodyPublishers.noBody()).build();
        byte[] body = request.bodyFor(endpoint.remoteModel());
        try {
            if (!request.stream()) {
                OutboundClient.WholeAnswer answer = outbound.call(call, body, MAX_ANSWER_BYTES);
                return judged(
                        where,
                        answer.status(),
                        answer.body(),
                        request,
                        answer.headers().firstValue("retry-after"));
            }
            return opened(where, outbound.open(call, body), request);
        } catch (OutboundRefusedException e) {
            return new Failed(
                    Outcome.UNAVAILABLE, where + " may not be called: " + e.getMessage() + ".", Optional.empty());
        } catch (IOException e) {
            return transportFailure(where, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Failed(Outcome.UNAVAILABLE, where + ": the call was interrupted.", Optional.empty());
        }
    }

    /** 503 {@code deployment_on_other_server} ({@link ServerHop#elsewhere}), which ends a plan's attempts. */
    private static Failed elsewhere(
            DeploymentDirectory.ServedDeployment deployment,
            DeploymentDirectory.Backend.OtherServer other,
            String what) {
        ApiException refusal = ServerHop.elsewhere(deployment.name(), other.server(), what);
        return new Failed(
                Outcome.UNAVAILABLE, refusal.problems().getFirst().message(), Optional.empty(), Optional.of(refusal));
    }

    /** An opened answer: a stream's first bytes when it streams, else the whole answer judged. */
    private static Attempt opened(String where, OutboundClient.StreamedAnswer answer, InferenceRequest request)
            throws IOException {
        if (answer.status() / 100 == 2 && isEventStream(answer)) {
            return firstBytes(where, answer.body());
        }
        try (InputStream rest = answer.body()) {
            byte[] bytes = rest.readNBytes(MAX_ANSWER_BYTES + 1);
            if (bytes.length > MAX_ANSWER_BYTES) {
                return new Failed(Outcome.INVALID_RESPONSE, where + " answered more than 64 MiB.", Optional.empty());
            }
            return judged(
                    where, answer.status(), bytes, request, answer.headers().firstValue("retry-after"));
        }
    }

    /**
     * Passes the request to the server that runs the deployment's replicas, with the caller's credentials (that
     * server checks them again) and this server's mark; its answer comes back as it sent it, streams too. A request
     * passed here already is not passed on again, and a deployment whose server is gone waits for another to take it
     * over: both 503 {@code deployment_on_other_server} with {@code retry-after}.
     */
    private Attempt passedOn(
            Call call,
            DeploymentDirectory.ServedDeployment deployment,
            DeploymentDirectory.Backend.OtherServer other,
            InferenceRequest request,
            Duration timeout) {
        if (other.address().isEmpty()) {
            return elsewhere(deployment, other, "is gone");
        }
        if (hop.passed(call.ctx, deployment.id())) {
            return elsewhere(deployment, other, "runs them no more");
        }
        String where = "The server of deployment '" + deployment.name() + "' (" + other.server() + ")";
        try {
            HttpResponse<InputStream> response = hop.pass(
                    call.ctx,
                    deployment.id(),
                    other.address().get().resolve("/v1/" + request.operation().path()),
                    request.bodyFor(deployment.id()),
                    request.stream() ? "text/event-stream" : "application/json",
                    timeout,
                    List.of("authorization", "x-project-id"));
            return opened(
                    where,
                    new OutboundClient.StreamedAnswer(response.statusCode(), response.headers(), response.body()),
                    request);
        } catch (ConnectException e) {
            return elsewhere(deployment, other, "does not answer");
        } catch (IOException e) {
            return transportFailure(where, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Failed(Outcome.UNAVAILABLE, where + ": the call was interrupted.", Optional.empty());
        }
    }

    /** A stream's first bytes, read before anything is sent to the caller: a failure here may still fall back. */
    private static Attempt firstBytes(String where, InputStream body) {
        byte[] first = new byte[CHUNK];
        try {
            int read = body.read(first);
            return new Streaming(body, first, Math.max(read, 0));
        } catch (IOException e) {
            closeQuietly(body);
            return transportFailure(where, e);
        }
    }

    private static Attempt judged(
            String where, int status, byte[] bytes, InferenceRequest request, Optional<String> retryAfter) {
        TopLevel fields;
        try {
            fields = TopLevel.scan(bytes, 0, bytes.length);
        } catch (TopLevel.NotAnObject e) {
            String got = "answered " + status + " with a body that is not a JSON object (" + e.getMessage() + ")";
            return new Failed(Outcome.INVALID_RESPONSE, where + " " + got + ".", Optional.empty());
        }
        if (status / 100 == 2) {
            byte[] answer = fields.withModel(bytes, 0, bytes.length, request.quotedModel());
            return new Whole(status, answer, retryAfter, fields.usage(), Outcome.OK);
        }
        var whole = new Whole(status, bytes, retryAfter, TopLevel.Usage.NONE, Outcome.UPSTREAM_ERROR);
        if (status == 429 || status >= 500) {
            return new Failed(Outcome.UPSTREAM_ERROR, where + " answered " + status + ".", Optional.of(whole));
        }
        if (status >= 400) {
            return whole;
        }
        return new Failed(
                Outcome.INVALID_RESPONSE,
                where + " answered " + status + ", which is not an answer of the API.",
                Optional.empty());
    }

    private static Failed transportFailure(String where, IOException e) {
        if (timedOut(e)) {
            return new Failed(Outcome.TIMEOUT, where + " did not answer in time.", Optional.empty());
        }
        return new Failed(
                Outcome.UNAVAILABLE,
                where + " could not be reached or broke off its answer (" + describe(e) + ").",
                Optional.empty());
    }

    private static boolean timedOut(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof HttpTimeoutException || t instanceof TimeoutException) {
                return true;
            }
        }
        return false;
    }

    private static String describe(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        // the HTTP client's end-of-stream message is its connection's state: ports and objects, nothing a caller reads
        if (root instanceof EOFException) {
            return "the connection ended early";
        }
        String message = root.getMessage();
        return message == null || message.length() > MAX_CAUSE_LENGTH
                ? root.getClass().getSimpleName()
                : message;
    }

    private static boolean isEventStream(OutboundClient.StreamedAnswer answer) {
        return answer.headers()
                .firstValue("content-type")
                .map(type -> type.toLowerCase(Locale.ROOT).startsWith("text/event-stream"))
                .orElse(false);
    }

    private static void deliver(Context ctx, Whole whole) {
        whole.retryAfter().ifPresent(value -> ctx.header("retry-after", value));
        ctx.status(whole.status());
        ctx.contentType("application/json");
        ctx.result(whole.body());
    }

    /** Relays a stream to its end, or to an error event when the endpoint breaks off or stalls. */
    private void stream(
            Call call, Streaming streaming, EndpointState state, long firstByteNanos, Optional<StreamEdit> edit) {
        var relay = new SseRelay(call.request.quotedModel(), call.request.model(), edit);
        Outcome outcome = Outcome.OK;
        Context ctx = call.ctx;
        try (InputStream in = streaming.body()) {
            OutputStream out = startStream(ctx);
            byte[] buffer = streaming.first();
            int read = streaming.firstLength();
            while (read >= 0) {
                if (read > 0) {
                    relay.relay(buffer, read, out);
                    out.flush();
                }
                try {
                    read = in.read(buffer);
                } catch (IOException e) {
                    outcome = timedOut(e) ? Outcome.TIMEOUT : Outcome.STREAM_BROKEN;
                    breakOff(
                            out,
                            outcome,
                            "Endpoint '" + call.endpoint + "' "
                                    + (outcome == Outcome.TIMEOUT
                                            ? "stopped sending its stream (no more in time)"
                                            : "broke off its stream (" + describe(e) + ")")
                                    + ".");
                    break;
                }
            }
            if (outcome == Outcome.OK) {
                relay.finish(out);
                out.flush();
            }
        } catch (IOException | UncheckedIOException e) {
            outcome = Outcome.CLIENT_CLOSED; // a write failed: the caller went away; closing the body ends the call
        } catch (ApiException refused) { // the stream's edit refused what the endpoint sent, which is closed now
            outcome = refusedMidway(ctx, refused);
        }
        switch (outcome) {
            case OK, BLOCKED -> state.succeeded(firstByteNanos);
            case CLIENT_CLOSED -> state.abandoned();
            default -> failed(state, "its stream ended early: " + outcome.wire());
        }
        call.finish(outcome, 200, relay.usage());
    }

    /** Ends a stream its edit refused with the refusal as its last event; the outcome. */
    private static Outcome refusedMidway(Context ctx, ApiException refused) {
        try {
            errorEvent(ctx.res().getOutputStream(), refused);
            return Outcome.BLOCKED;
        } catch (IOException e) {
            return Outcome.CLIENT_CLOSED;
        }
    }

    /** The stream's last event when the endpoint broke off or stalled. */
    private static void breakOff(OutputStream out, Outcome outcome, String message) throws IOException {
        ErrorCode code = outcome == Outcome.TIMEOUT ? ErrorCode.UPSTREAM_TIMEOUT : ErrorCode.UPSTREAM_UNAVAILABLE;
        errorEvent(out, ApiException.of(code, message));
    }

    /** A stream's last event: an error in OpenAI's shape, which its clients raise. */
    static void errorEvent(OutputStream out, ApiException failure) throws IOException {
        var error = new LinkedHashMap<String, Object>();
        error.put("message", failure.problems().getFirst().message());
        error.put("type", failure.code().type());
        error.put("param", failure.problems().getFirst().param());
        error.put("code", failure.code().code());
        error.putAll(failure.extra());
        out.write("data: ".getBytes(StandardCharsets.US_ASCII));
        out.write(Json.write(Map.of("error", error)));
        out.write("\n\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    private static void closeQuietly(InputStream body) {
        try {
            body.close();
        } catch (IOException e) {
            // the exchange is given up already
        }
    }

    @Override
    public void close() {
        hop.close();
        usage.close();
    }
}
