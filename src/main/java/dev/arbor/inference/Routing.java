package dev.arbor.inference;

import static java.util.Objects.requireNonNull;

import dev.arbor.access.CurrentProject;
import dev.arbor.inference.endpoints.AttemptClock;
import dev.arbor.inference.endpoints.AttemptPolicy;
import dev.arbor.inference.endpoints.EndpointBoard;
import dev.arbor.inference.endpoints.EndpointHealth;
import dev.arbor.inference.endpoints.EndpointState;
import dev.arbor.inference.endpoints.Strategy;
import dev.arbor.inference.openai.InferenceRequest;
import dev.arbor.inference.openai.Operation;
import dev.arbor.inference.openai.SseRelay;
import dev.arbor.inference.openai.StreamEdit;
import dev.arbor.inference.openai.TopLevel;
import dev.arbor.inference.spend.BudgetLedger;
import dev.arbor.inference.spend.Budgets;
import dev.arbor.inference.spend.Price;
import dev.arbor.inference.spend.Prices;
import dev.arbor.inference.spend.SpendMetrics;
import dev.arbor.inference.usage.Outcome;
import dev.arbor.inference.usage.RoutingMetrics;
import dev.arbor.inference.usage.UsageLog;
import dev.arbor.keys.KeyRateLimits;
import dev.arbor.keys.KeyScope;
import dev.arbor.keys.Keys;
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
import java.io.ByteArrayOutputStream;
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
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

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
 * JSON 502 {@code upstream_invalid_response}; a 200 whose body is an error is a failure too. Each attempt has its
 * deadlines (connect, first byte, idle, total), kept by a timer that aborts it; a step may retry listed statuses on
 * the same endpoint, and a fallback chain may hedge. A stream is held back until its first event (or as long as the
 * step says), so that a failure before then still falls back; one that fails after its first byte reached the caller
 * ends with an error event, never {@code [DONE]}.
 */
public final class Routing implements AutoCloseable {
    /** Larger answers are refused (502) rather than held: embeddings of a large batch stay well below. */
    private static final int MAX_ANSWER_BYTES = 64 * 1024 * 1024;

    private static final int CHUNK = 16 * 1024;
    /** A cause longer than this is a library's internal state, not a reason: its class says enough. */
    private static final int MAX_CAUSE_LENGTH = 200;
    /** The request attribute naming the project a request is charged to. */
    private static final String CHARGED_TO = "arbor.charged_to";

    private final EndpointDirectory directory;
    private final OutboundClient outbound;
    private final DeploymentLimits limits;
    private final ReplicaServing replicas;
    private final RoutingSettings settings;
    private final EndpointBoard board;
    private final UsageLog usage;
    private final RoutingMetrics metrics;
    private final Prices prices;
    private final Budgets budgets;
    private final SpendMetrics spendMetrics;
    private final KeyRateLimits keyLimits;
    /** Passes requests to the server that runs a local deployment's replicas; closed with this. */
    private final ServerHop hop;
    /** Keeps every attempt's deadlines (connect, first byte, idle, total), aborting the attempt when one passes. */
    private final ScheduledExecutorService timer;
    /** Runs the attempts of a hedged fallback, each on a thread of its own. */
    private final ExecutorService racers = Executors.newVirtualThreadPerTaskExecutor();

    private final Supplier<RandomGenerator> random;

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
        this.keyLimits = new KeyRateLimits(limits);
        this.replicas = new ReplicaServing(clock);
        this.settings = requireNonNull(settings, "settings");
        this.board = new EndpointBoard(clock, random);
        this.random = random;
        var deadlines = new ScheduledThreadPoolExecutor(
                1, Thread.ofPlatform().name("routing-deadlines").daemon().factory());
        deadlines.setRemoveOnCancelPolicy(true); // most deadlines never pass: their tasks go when the attempt ends
        this.timer = deadlines;
        this.usage = new UsageLog(database, clock, meters);
        this.metrics = new RoutingMetrics(meters);
        this.prices = new Prices(database, clock);
        this.budgets = new Budgets(database, clock);
        this.spendMetrics = new SpendMetrics(meters);
    }

    /** The budgets each request reserves in before it is forwarded. */
    public Budgets budgets() {
        return budgets;
    }

    /** The prices each request's cost is computed with. */
    public Prices prices() {
        return prices;
    }

    /**
     * Charges the request of {@code ctx} to {@code projectId} (the router's or deployment's project it named): its usage
     * row and spend say so. A request an inference key makes is its key's project's whatever it names.
     */
    public static void chargeTo(Context ctx, String projectId) {
        ctx.attribute(CHARGED_TO, requireNonNull(projectId, "projectId"));
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
     * {@link #forward(Context, InferenceRequest, Strategy, Predicate, Attribution)}, with the key, stream edit and
     * attempt policy (timeouts, retries, hedge, hold-back) a router asks.
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
        List<EndpointBoard.Planned> plan = board.plan(strategy);
        Failed failed = null;
        for (int i = 0; i < plan.size(); i++) {
            EndpointBoard.Planned planned = plan.get(i);
            Optional<Duration> hedgeAfter = forwarding
                    .policy()
                    .hedgeAfter()
                    .filter(after -> strategy instanceof Strategy.Fallback && plan.size() > 1);
            Tried tried;
            if (hedgeAfter.isPresent() && i + 1 < plan.size()) {
                tried = hedged(call, planned, plan.get(i + 1), hedgeAfter.get(), inProject, forwarding);
                if (tried.hedgeTaken()) {
                    i++;
                }
            } else {
                call.attempting(planned.endpoint());
                tried = tried(call, planned, inProject, forwarding, new Race());
            }
            switch (tried.attempt()) {
                case Whole whole -> {
                    tried.state().succeeded(System.nanoTime() - tried.started());
                    deliver(ctx, whole);
                    call.finish(whole.outcome(), whole.status(), whole.usage());
                    return;
                }
                case Streaming streaming -> {
                    stream(call, streaming, tried.state(), System.nanoTime() - tried.started());
                    return;
                }
                case Served served -> {
                    switch (served.outcome()) {
                        case OK -> tried.state().succeeded(System.nanoTime() - tried.started());
                        case CLIENT_CLOSED -> tried.state().abandoned();
                        default ->
                            failed(
                                    tried.state(),
                                    "its stream ended early: "
                                            + served.outcome().wire());
                    }
                    call.finish(served.outcome(), 200, served.usage());
                    return;
                }
                case Failed failure -> failed = failure;
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
     * One endpoint's turn, retries on it included: found, admitted, and asked until it answers, fails in a way not
     * retried, or has no retry left. What it comes to, with its state and when it began (for its latency).
     */
    private Tried tried(
            Call call, EndpointBoard.Planned planned, Predicate<String> inProject, Forwarding forwarding, Race race) {
        EndpointState state = board.state(planned.endpoint());
        long started = System.nanoTime();
        Optional<EndpointDirectory.Target> target =
                directory.find(inProject, planned.endpoint()).map(found -> keyed(found, forwarding.apiKey()));
        if (target.isEmpty()) {
            return new Tried(
                    planned.endpoint(),
                    state,
                    started,
                    new Failed(
                            Outcome.UNAVAILABLE,
                            "Endpoint '" + planned.endpoint() + "' is not a cloud model of the registry or a running "
                                    + "deployment (any more).",
                            Optional.empty()),
                    false);
        }
        call.reached(target.get());
        Optional<Failed> refused = admitted(call.ctx, target.get(), call.request.operation());
        if (refused.isPresent()) {
            return new Tried(planned.endpoint(), state, started, refused.get(), false);
        }
        // before anything is sent upstream: past a budget, 429 budget_exceeded
        call.reserve();
        AttemptPolicy policy = forwarding.policy();
        // the most specific first: a fallback entry's timeout_seconds, the step's, the endpoint's own, the server's
        AttemptPolicy.Deadlines deadlines = new AttemptPolicy.Timeouts(
                        Optional.empty(), planned.timeout(), planned.timeout(), Optional.empty())
                .over(policy.timeouts())
                .over(registered(target.get()))
                .resolve(settings.deadlines());
        AttemptPolicy.Retries retries = policy.retries();
        for (int retry = 0; ; retry++) {
            state.begin();
            started = System.nanoTime();
            Attempt attempt;
            try {
                attempt = attempt(call, target.get(), call.request, deadlines, forwarding, race);
            } catch (ApiException e) { // a request the deployment's replicas refuse: the caller's to see
                state.abandoned();
                call.finish(Outcome.UPSTREAM_ERROR, e.status(), TopLevel.Usage.NONE);
                throw e;
            }
            if (!(attempt instanceof Failed failure)) {
                return new Tried(planned.endpoint(), state, started, attempt, false);
            }
            if (race.lost()) {
                state.abandoned();
                return new Tried(planned.endpoint(), state, started, attempt, false);
            }
            failed(state, failure.message());
            if (retry >= retries.max() || race.lost()) {
                return new Tried(planned.endpoint(), state, started, attempt, false);
            }
            Optional<Duration> pause = failure.answer()
                    .filter(answer -> retries.statuses().contains(answer.status()))
                    .flatMap(answer -> pause(retries, answer.retryAfter()));
            if (pause.isEmpty()) {
                return new Tried(planned.endpoint(), state, started, attempt, false);
            }
            Duration wait = pause.get().isZero() ? backoff(retries, retry) : pause.get();
            try {
                Thread.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new Tried(planned.endpoint(), state, started, attempt, false);
            }
            call.retrying();
        }
    }

    /**
     * How long to wait before retrying after an answer: its {@code retry-after} when it sends one (seconds or a date)
     * within the cap, zero for the backoff's own pause when it sends none, empty when it asks for longer than the cap.
     */
    private Optional<Duration> pause(AttemptPolicy.Retries retries, Optional<String> retryAfter) {
        if (retryAfter.isEmpty()) {
            return Optional.of(Duration.ZERO);
        }
        String value = retryAfter.get().strip();
        Duration asked;
        try {
            asked = Duration.ofSeconds(Math.max(0, Long.parseLong(value)));
        } catch (NumberFormatException notSeconds) {
            try {
                asked = Duration.between(
                        Instant.ofEpochMilli(board.nowMillis()),
                        ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME)
                                .toInstant());
            } catch (DateTimeParseException notADate) {
                return Optional.of(Duration.ZERO);
            }
        }
        if (asked.compareTo(retries.retryAfterCap()) > 0) {
            return Optional.empty();
        }
        // a retry-after of 0 (or in the past) still waits a moment: the backoff's first pause
        return Optional.of(asked.isNegative() ? Duration.ZERO : asked);
    }

    /** The {@code retry}th backoff: doubling from the step's, drawn between half of it and all of it, at most the cap. */
    private Duration backoff(AttemptPolicy.Retries retries, int retry) {
        long base = retries.backoff().toMillis() << Math.min(retry, 20);
        long capped = Math.min(
                base,
                Math.max(retries.retryAfterCap().toMillis(), retries.backoff().toMillis()));
        long jittered = capped / 2 + (long) (random.get().nextDouble() * (capped - capped / 2 + 1));
        return Duration.ofMillis(Math.max(1, jittered));
    }

    /**
     * A hedged turn of a fallback chain: {@code first} is asked, and when it has not started answering within
     * {@code after}, {@code second} is asked too; the first to start answering wins and the other is cancelled. When
     * the first fails before then, its failure is the turn (the chain goes on to {@code second} as usual). A
     * deployment whose replicas run here answers on the caller's connection as it goes, so it is never hedged.
     */
    private Tried hedged(
            Call call,
            EndpointBoard.Planned first,
            EndpointBoard.Planned second,
            Duration after,
            Predicate<String> inProject,
            Forwarding forwarding) {
        call.attempting(first.endpoint());
        if (local(first, inProject) || local(second, inProject)) {
            return tried(call, first, inProject, forwarding, new Race());
        }
        var firstRace = new Race();
        CompletableFuture<Tried> one =
                CompletableFuture.supplyAsync(() -> tried(call, first, inProject, forwarding, firstRace), racers);
        Optional<Tried> early = within(one, after);
        if (early.isPresent()) {
            return early.get();
        }
        call.attempting(second.endpoint());
        var secondRace = new Race();
        CompletableFuture<Tried> two =
                CompletableFuture.supplyAsync(() -> tried(call, second, inProject, forwarding, secondRace), racers);
        CompletableFuture.anyOf(one, two).join();
        boolean oneFirst = one.isDone();
        Tried winner = joined(oneFirst ? one : two);
        CompletableFuture<Tried> other = oneFirst ? two : one;
        if (winner.attempt() instanceof Failed) {
            winner = joined(other); // it may still answer
            call.answeredBy(winner.endpoint());
            return winner.withHedgeTaken();
        }
        (oneFirst ? secondRace : firstRace).lose();
        var _ = other.thenAccept(Routing::discard); // the loser's answer, whenever it ends, is only let go
        call.answeredBy(winner.endpoint());
        return winner.withHedgeTaken();
    }

    /** Whether an endpoint is a deployment whose replicas run in this process. */
    private boolean local(EndpointBoard.Planned planned, Predicate<String> inProject) {
        return directory
                .find(inProject, planned.endpoint())
                .filter(target -> target
                                instanceof
                                EndpointDirectory.Target.Deployment(DeploymentDirectory.ServedDeployment deployment)
                        && !(deployment.backend() instanceof DeploymentDirectory.Backend.Endpoint))
                .isPresent();
    }

    private static Optional<Tried> within(CompletableFuture<Tried> racing, Duration after) {
        try {
            return Optional.of(racing.get(after.toNanos(), TimeUnit.NANOSECONDS));
        } catch (TimeoutException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of(joined(racing));
        } catch (ExecutionException e) {
            return Optional.of(joined(racing));
        }
    }

    /** A racer's turn; what it threw (a refusal that is the caller's to see) is thrown here. */
    private static Tried joined(CompletableFuture<Tried> racing) {
        try {
            return racing.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException thrown) {
                throw thrown;
            }
            throw e;
        }
    }

    /** Closes what a hedged attempt that lost opened; it was no failure of its endpoint. */
    private static void discard(Tried lost) {
        if (lost.attempt() instanceof Failed) {
            return; // its turn saw it lost and let its endpoint be
        }
        lost.state().abandoned();
        if (lost.attempt() instanceof Streaming streaming) {
            streaming.clock().close();
            closeQuietly(streaming.body());
        }
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

    /** The timeouts an endpoint was registered with (a cloud model's, or a deployment's endpoint's). */
    private static AttemptPolicy.Timeouts registered(EndpointDirectory.Target target) {
        Map<String, Long> millis = switch (target) {
            case EndpointDirectory.Target.CloudModel(RemoteEndpoint endpoint) -> endpoint.timeoutsMillis();
            case EndpointDirectory.Target.Deployment(DeploymentDirectory.ServedDeployment deployment) ->
                deployment.backend() instanceof DeploymentDirectory.Backend.Endpoint(RemoteEndpoint endpoint)
                        ? endpoint.timeoutsMillis()
                        : Map.of();
        };
        return new AttemptPolicy.Timeouts(
                millis(millis, RemoteEndpoint.CONNECT_TIMEOUT),
                millis(millis, RemoteEndpoint.FIRST_BYTE_TIMEOUT),
                millis(millis, RemoteEndpoint.IDLE_TIMEOUT),
                millis(millis, RemoteEndpoint.TOTAL_TIMEOUT));
    }

    private static Optional<Duration> millis(Map<String, Long> millis, String name) {
        return Optional.ofNullable(millis.get(name)).map(Duration::ofMillis);
    }

    /** A cloud model with {@code apiKey} in place of its own key, when one is given; a deployment as it is. */
    private static EndpointDirectory.Target keyed(EndpointDirectory.Target target, Optional<String> apiKey) {
        if (apiKey.isEmpty() || !(target instanceof EndpointDirectory.Target.CloudModel(RemoteEndpoint endpoint))) {
            return target;
        }
        return new EndpointDirectory.Target.CloudModel(new RemoteEndpoint(
                endpoint.modelId(),
                endpoint.baseUrl(),
                endpoint.remoteModel(),
                Optional.of(apiKey.get()),
                endpoint.timeoutsMillis()));
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
        private Optional<EndpointDirectory.Target> target = Optional.empty();
        private final Optional<KeyScope> key;
        private BudgetLedger ledger = BudgetLedger.NONE;
        private final KeyRateLimits.Admission admission;
        private int attempts;

        Call(Context ctx, InferenceRequest request, Attribution attribution) {
            this.ctx = ctx;
            this.request = request;
            this.attribution = requireNonNull(attribution, "attribution");
            this.key = Keys.scope(ctx);
            // before anything is sent upstream: past the key's requests or tokens a minute, 429 rate_limited
            this.admission = keyLimits.admit(ctx);
            attribution.routerId().ifPresent(id -> ctx.header("x-router-id", id));
            attribution.headers().forEach(ctx::header);
        }

        /** Says the answer is {@code winner}'s (a hedge's winner), the attempts counted as they were. */
        void answeredBy(String winner) {
            endpoint = winner;
            ctx.header("x-router-endpoint", endpoint);
        }

        void attempting(String next) {
            endpoint = next;
            target = Optional.empty();
            attempts++;
            ctx.header("x-router-endpoint", endpoint);
            ctx.header("x-router-attempts", Integer.toString(attempts));
        }

        /** Counts a retry of the same endpoint as an attempt ({@code x-router-attempts}, the usage row's). */
        synchronized void retrying() {
            attempts++;
            if (!ctx.res().isCommitted()) {
                ctx.header("x-router-attempts", Integer.toString(attempts));
            }
        }

        synchronized void reached(EndpointDirectory.Target found) {
            target = Optional.of(found);
        }

        /** The price of the endpoint last tried; empty for one that was not there or has no price. */
        private Optional<Price> price() {
            return target.flatMap(found -> switch (found) {
                case EndpointDirectory.Target.CloudModel(RemoteEndpoint remote) ->
                    prices.cloudModel(remote.modelId(), remote.baseUrl(), remote.remoteModel());
                case EndpointDirectory.Target.Deployment(DeploymentDirectory.ServedDeployment deployment) ->
                    Optional.of(prices.deployment(deployment.id()));
            });
        }

        /**
         * The project the request is charged to: its key's; else the one the route noted (the router's or
         * deployment's); else the deployment's that answered; else the one the caller named.
         */
        private Optional<String> project(Optional<KeyScope> key) {
            return key.map(KeyScope::projectId)
                    .or(() -> Optional.ofNullable(ctx.<String>attribute(CHARGED_TO)))
                    .or(() -> target.filter(EndpointDirectory.Target.Deployment.class::isInstance)
                            .map(found -> ((EndpointDirectory.Target.Deployment) found)
                                    .deployment()
                                    .projectId()))
                    .or(() -> CurrentProject.HEADER.read(ctx));
        }

        /**
         * Reserves, in the budgets of the request's key, project and router, the most the attempt about to be made may
         * cost: the body's bytes bound its prompt's tokens, {@code max_tokens} (or the default) its completion's, at
         * the endpoint's price. An earlier attempt's reservation goes first.
         */
        synchronized void reserve() {
            var charge = new Budgets.Charge(key.map(KeyScope::keyId), project(key), attribution.routerId());
            if (!budgets.apply(charge)) {
                return;
            }
            ledger.settle(0, 0);
            long prompt = request.body().length;
            long completion = completionAllowance();
            long picos = price().map(p -> p.costPicoUsd(prompt, completion)).orElse(0L);
            ledger = budgets.reserve(charge, prompt + completion, picos);
        }

        private long completionAllowance() {
            if (request.operation() == Operation.EMBEDDINGS) {
                return 0;
            }
            var body = Json.read(request.body());
            for (String field : List.of("max_completion_tokens", "max_tokens")) {
                if (body.path(field).canConvertToLong() && body.path(field).asLong() >= 0) {
                    return body.path(field).asLong();
                }
            }
            return Budgets.DEFAULT_COMPLETION_TOKENS;
        }

        /** Queues the request's usage row, with its cost, and records its metrics; settles its budgets. */
        void finish(Outcome outcome, int status, TopLevel.Usage tokens) {
            long nanos = System.nanoTime() - started;
            OptionalLong cost = price().map(p -> OptionalLong.of(p.costPicoUsd(
                            tokens.promptTokens().orElse(0),
                            tokens.cachedTokens().orElse(0),
                            tokens.completionTokens().orElse(0))))
                    .orElse(OptionalLong.empty());
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
                    nanos / 1000,
                    project(key),
                    key.map(KeyScope::keyId),
                    cost);
            long used =
                    tokens.promptTokens().orElse(0) + tokens.completionTokens().orElse(0);
            ledger.settle(used, cost.orElse(0));
            admission.spent(used);
            usage.record(entry);
            metrics.record(entry, nanos);
            spendMetrics.record(
                    entry.projectId(),
                    entry.endpoint(),
                    entry.keyId(),
                    cost,
                    tokens.promptTokens(),
                    tokens.completionTokens());
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

    /**
     * A stream whose first events arrived (those the step holds back, read into {@code held}): from here on it is the
     * caller's, whatever happens. {@code ended} when the endpoint's stream ended already; {@code refused} when the
     * stream's edit refused what it sent while it was held back.
     */
    private record Streaming(
            InputStream body,
            byte[] held,
            SseRelay relay,
            boolean ended,
            Optional<ApiException> refused,
            AttemptClock clock)
            implements Attempt {}

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

    /** One endpoint's turn: what it came to, its state, when its last attempt began, and whether it was a hedge's. */
    private record Tried(String endpoint, EndpointState state, long started, Attempt attempt, boolean hedgeTaken) {
        Tried withHedgeTaken() {
            return new Tried(endpoint, state, started, attempt, true);
        }
    }

    /** Whether a hedged attempt lost (its rival started answering first): its clock is stopped, its answer unused. */
    private static final class Race {
        private volatile boolean lost;
        private volatile @Nullable AttemptClock clock;

        boolean lost() {
            return lost;
        }

        void lose() {
            lost = true;
            AttemptClock running = clock;
            if (running != null) {
                running.cancel();
            }
        }

        void running(AttemptClock attempt) {
            clock = attempt;
            if (lost) {
                attempt.cancel();
            }
        }
    }

    /** One endpoint's attempt, as a span of the request's trace: the endpoint, and the failure that passed it over. */
    private Attempt attempt(
            Call call,
            EndpointDirectory.Target target,
            InferenceRequest request,
            AttemptPolicy.Deadlines deadlines,
            Forwarding forwarding,
            Race race) {
        try (Traced span = EndpointSpans.attempt(request.operation(), call.endpoint, call.attempts)) {
            Attempt attempt;
            try {
                attempt = reach(call, target, request, deadlines, forwarding, race);
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
            AttemptPolicy.Deadlines deadlines,
            Forwarding forwarding,
            Race race) {
        return switch (target) {
            case EndpointDirectory.Target.CloudModel cloud ->
                remote(cloud.endpoint(), request, deadlines, forwarding, race);
            case EndpointDirectory.Target.Deployment(DeploymentDirectory.ServedDeployment deployment) ->
                switch (deployment.backend()) {
                    case DeploymentDirectory.Backend.Endpoint remote ->
                        remote(remote.endpoint(), request, deadlines, forwarding, race);
                    case DeploymentDirectory.Backend.Replicas local ->
                        served(call, local.replicas(), request, deadlines.firstByte(), forwarding.streamEdit());
                    case DeploymentDirectory.Backend.OtherServer other ->
                        passedOn(call, deployment, other, request, deadlines, forwarding, race);
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

    /**
     * Calls an OpenAI-compatible endpoint under the attempt's deadlines (a timer aborts the call when one passes) and
     * reads its answer up to the point where it becomes the caller's: all of it when it does not stream, else the
     * events the step holds back.
     */
    private Attempt remote(
            RemoteEndpoint endpoint,
            InferenceRequest request,
            AttemptPolicy.Deadlines deadlines,
            Forwarding forwarding,
            Race race) {
        var builder = HttpRequest.newBuilder(
                        endpoint.operation(request.operation().path()))
                .timeout(deadlines.total()) // the timer keeps the others; this bounds the call whatever happens
                .header("content-type", "application/json")
                .header("accept", request.stream() ? "text/event-stream" : "application/json");
        endpoint.apiKey().ifPresent(key -> builder.header("authorization", "Bearer " + key));
        String where = "Endpoint '" + endpoint.modelId() + "'";
        HttpRequest call = builder.POST(HttpRequest.BodyPublishers.noBody()).build();
        byte[] body = request.bodyFor(endpoint.remoteModel());
        var clock = new AttemptClock(timer, deadlines);
        race.running(clock);
        boolean handedOn = false;
        try {
            OutboundClient.Pending pending = outbound.begin(call, body);
            clock.watch(pending::abort, pending::connected);
            Attempt attempt = opened(where, pending.head(), request, clock, forwarding);
            handedOn = attempt instanceof Streaming;
            return attempt;
        } catch (OutboundRefusedException e) {
            return new Failed(
                    Outcome.UNAVAILABLE, where + " may not be called: " + e.getMessage() + ".", Optional.empty());
        } catch (IOException e) {
            return transportFailure(where, e, clock);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Failed(Outcome.UNAVAILABLE, where + ": the call was interrupted.", Optional.empty());
        } finally {
            if (!handedOn) {
                clock.close();
            }
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

    /**
     * An opened answer: a stream's first events when it streams, else the whole answer judged, read within the first
     * byte's deadline.
     */
    private static Attempt opened(
            String where,
            OutboundClient.StreamedAnswer answer,
            InferenceRequest request,
            AttemptClock clock,
            Forwarding forwarding)
            throws IOException {
        clock.connected();
        if (answer.status() / 100 == 2 && isEventStream(answer)) {
            return firstEvents(where, answer.body(), request, clock, forwarding);
        }
        try (InputStream rest = answer.body()) {
            byte[] bytes = rest.readNBytes(MAX_ANSWER_BYTES + 1);
            clock.firstByte();
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
            AttemptPolicy.Deadlines deadlines,
            Forwarding forwarding,
            Race race) {
        if (other.address().isEmpty()) {
            return elsewhere(deployment, other, "is gone");
        }
        if (hop.passed(call.ctx, deployment.id())) {
            return elsewhere(deployment, other, "runs them no more");
        }
        String where = "The server of deployment '" + deployment.name() + "' (" + other.server() + ")";
        var clock = new AttemptClock(timer, deadlines);
        race.running(clock);
        boolean handedOn = false;
        try {
            HttpResponse<InputStream> response = hop.pass(
                    call.ctx,
                    deployment.id(),
                    other.address().get().resolve("/v1/" + request.operation().path()),
                    request.bodyFor(deployment.id()),
                    request.stream() ? "text/event-stream" : "application/json",
                    deadlines.firstByte(),
                    List.of("authorization", "x-project-id"));
            clock.watch(cause -> closeQuietly(response.body()), () -> true);
            Attempt attempt = opened(
                    where,
                    new OutboundClient.StreamedAnswer(response.statusCode(), response.headers(), response.body()),
                    request,
                    clock,
                    forwarding);
            handedOn = attempt instanceof Streaming;
            return attempt;
        } catch (ConnectException e) {
            return elsewhere(deployment, other, "does not answer");
        } catch (IOException e) {
            return transportFailure(where, e, clock);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Failed(Outcome.UNAVAILABLE, where + ": the call was interrupted.", Optional.empty());
        } finally {
            if (!handedOn) {
                clock.close();
            }
        }
    }

    /**
     * A stream's first events, read before anything is sent to the caller, so that a failure here may still fall back:
     * the first event at least, and as many more as the step holds back. A first event that is an error, a malformed
     * one, or a stream that ends before its answer is complete, is a failed attempt.
     */
    private static Attempt firstEvents(
            String where, InputStream body, InferenceRequest request, AttemptClock clock, Forwarding forwarding) {
        AttemptPolicy.HoldBack holdBack = forwarding.policy().holdBack();
        var relay = new SseRelay(request.quotedModel(), request.model(), forwarding.streamEdit());
        var held = new ByteArrayOutputStream();
        byte[] buffer = new byte[CHUNK];
        long first = 0;
        try {
            while (true) {
                int read = body.read(buffer);
                if (read < 0) {
                    relay.finish(held);
                    Optional<Failed> failed = streamFailure(where, relay);
                    if (failed.isPresent()) {
                        closeQuietly(body);
                        return failed.get();
                    }
                    if (!relay.complete()) {
                        closeQuietly(body);
                        return new Failed(
                                Outcome.UNAVAILABLE,
                                where + " ended its stream before its answer was complete.",
                                Optional.empty());
                    }
                    clock.firstByte();
                    return new Streaming(body, held.toByteArray(), relay, true, Optional.empty(), clock);
                }
                clock.progress();
                relay.relay(buffer, read, held);
                Optional<Failed> failed = streamFailure(where, relay);
                if (failed.isPresent()) {
                    closeQuietly(body);
                    return failed.get();
                }
                if (relay.chunks() == 0 && !relay.done()) {
                    continue;
                }
                if (first == 0) {
                    first = System.nanoTime();
                    clock.firstByte();
                }
                if (relay.done()
                        || relay.chunks() >= Math.max(1, holdBack.tokens())
                                && System.nanoTime() - first >= holdBack.time().toNanos()) {
                    return new Streaming(body, held.toByteArray(), relay, false, Optional.empty(), clock);
                }
            }
        } catch (IOException e) {
            closeQuietly(body);
            return transportFailure(where, e, clock);
        } catch (ApiException refused) { // the stream's edit refused what was held back: the caller sees why
            closeQuietly(body);
            return new Streaming(body, held.toByteArray(), relay, true, Optional.of(refused), clock);
        }
    }

    /** A stream's failure as an attempt's: an error event the endpoint sent, or a malformed chunk. */
    private static Optional<Failed> streamFailure(String where, SseRelay relay) {
        return relay.failure()
                .map(failure -> new Failed(
                        failure.startsWith("an error event") ? Outcome.UPSTREAM_ERROR : Outcome.INVALID_RESPONSE,
                        where + " streamed " + failure + ".",
                        Optional.empty()));
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
        if (status / 100 == 2 && fields.error().isPresent()) {
            // a success that is an error: the caller gets the endpoint's error as a 502, the chain goes on
            var whole = new Whole(502, bytes, retryAfter, TopLevel.Usage.NONE, Outcome.UPSTREAM_ERROR);
            return new Failed(
                    Outcome.UPSTREAM_ERROR,
                    where + " answered " + status + " with an error: "
                            + fields.error().get(),
                    Optional.of(whole));
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

    private static Failed transportFailure(String where, IOException e, AttemptClock clock) {
        if (clock.expired().isPresent() || timedOut(e)) {
            return new Failed(Outcome.TIMEOUT, where + " " + clock.describe() + ".", Optional.empty());
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

    /**
     * Relays a stream to its end. Once its first byte went to the caller, a failure cannot fall back: the endpoint
     * breaking off, stalling past the idle timeout, sending a malformed chunk or an error event, or ending before its
     * answer is complete, ends the stream with an error event in OpenAI's shape instead of {@code [DONE]} (its clients
     * raise it), and the usage row says {@code truncated}.
     */
    private void stream(Call call, Streaming streaming, EndpointState state, long firstByteNanos) {
        SseRelay relay = streaming.relay();
        AttemptClock clock = streaming.clock();
        Outcome outcome = Outcome.OK;
        Context ctx = call.ctx;
        try (InputStream in = streaming.body();
                clock) {
            OutputStream out = startStream(ctx);
            out.write(streaming.held());
            out.flush();
            if (streaming.refused().isPresent()) {
                throw streaming.refused().get();
            }
            byte[] buffer = new byte[CHUNK];
            int read = streaming.ended() ? -1 : 0;
            while (read >= 0 && relay.failure().isEmpty()) {
                if (read > 0) {
                    clock.progress();
                    relay.relay(buffer, read, out);
                    out.flush();
                }
                try {
                    read = in.read(buffer);
                } catch (IOException e) {
                    outcome = Outcome.TRUNCATED;
                    breakOff(
                            out,
                            clock.expired().isPresent() || timedOut(e)
                                    ? ErrorCode.UPSTREAM_TIMEOUT
                                    : ErrorCode.UPSTREAM_UNAVAILABLE,
                            "Endpoint '" + call.endpoint + "' "
                                    + (clock.expired().isPresent() || timedOut(e)
                                            ? "stopped sending its stream: it " + clock.describe()
                                            : "broke off its stream (" + describe(e) + ")")
                                    + ".");
                    break;
                }
            }
            if (outcome == Outcome.OK) {
                if (read < 0) {
                    relay.finish(out);
                }
                outcome = ended(call, relay, out);
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

    /**
     * How a stream the endpoint stopped sending ended: complete ({@code [DONE]} added when the endpoint ended with a
     * finished chunk but without it), or truncated, told with an error event: a malformed chunk, an error event of the
     * endpoint's, or an end before the answer was complete.
     */
    private static Outcome ended(Call call, SseRelay relay, OutputStream out) throws IOException {
        String where = "Endpoint '" + call.endpoint + "' ";
        if (relay.failure().isPresent()) {
            boolean error = relay.failure().get().startsWith("an error event");
            breakOff(
                    out,
                    error ? ErrorCode.UPSTREAM_ERROR : ErrorCode.UPSTREAM_INVALID_RESPONSE,
                    where + "streamed " + relay.failure().get() + " part-way through its answer.");
            return Outcome.TRUNCATED;
        }
        if (!relay.complete()) {
            breakOff(
                    out,
                    ErrorCode.UPSTREAM_UNAVAILABLE,
                    where + "ended its stream before its answer was complete (no [DONE], no finish_reason).");
            return Outcome.TRUNCATED;
        }
        if (!relay.done()) {
            out.write("data: [DONE]\n\n".getBytes(StandardCharsets.US_ASCII));
        }
        return Outcome.OK;
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

    /** The stream's last event when the endpoint broke off, stalled or sent what is not a stream's. */
    private static void breakOff(OutputStream out, ErrorCode code, String message) throws IOException {
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
        timer.shutdownNow();
        racers.shutdownNow();
        hop.close();
        usage.close();
    }
}
