package dev.arbor.inference.steps;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.access.Access;
import dev.arbor.access.Principal;
import dev.arbor.inference.Attribution;
import dev.arbor.inference.DeploymentDirectory;
import dev.arbor.inference.Forwarding;
import dev.arbor.inference.Routing;
import dev.arbor.inference.cache.AnswerCache;
import dev.arbor.inference.cache.CacheRequest;
import dev.arbor.inference.cache.Replay;
import dev.arbor.inference.cache.StreamCapture;
import dev.arbor.inference.endpoints.AttemptPolicy;
import dev.arbor.inference.endpoints.Strategy;
import dev.arbor.inference.openai.InferenceRequest;
import dev.arbor.inference.openai.OpenAiAnswers;
import dev.arbor.inference.openai.Operation;
import dev.arbor.inference.openai.StreamEdit;
import dev.arbor.keys.KeyScope;
import dev.arbor.keys.Keys;
import dev.arbor.platform.actions.Expressions;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problem;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.ratelimits.RateLimitHeaders;
import dev.arbor.platform.ratelimits.RateLimiter;
import dev.arbor.routers.ActiveRouters;
import dev.arbor.routers.RouterSnapshot;
import dev.arbor.routers.StepCounter;
import dev.arbor.studio.RoutedDecision;
import io.javalin.http.Context;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs requests through routers: a router's graph is compiled once per save (the cache is keyed by id and replaced
 * when {@code modified_at} moves), then each request walks from {@code entry_step} along {@code next_steps} and
 * branches until a step forwards it to an endpoint, answers it, or hands it to another router (up to
 * {@value #MAX_ROUTERS} routers, none twice). Every answer says which routers and steps it went through
 * ({@code x-router-id} the last router, {@code x-router-path} all of them, {@code x-router-steps}); a step that
 * cannot run answers in OpenAI's error shape with the step named, never a 500.
 */
public final class RouterRuntime {
    /** The most routers one request passes through: the one named and those delegated to after it. */
    static final int MAX_ROUTERS = 5;

    private static final Logger LOG = LoggerFactory.getLogger(RouterRuntime.class);

    private final Routing routing;
    private final ActiveRouters routers;
    private final ProviderModels providers;
    private final CredentialValues credentials;
    private final RouterDecider decider;
    private final DeploymentDirectory deployments;
    private final Expressions expressions;
    private final RateLimiter limits;
    private final Clock clock;
    private final Steps steps;
    private final ConcurrentHashMap<String, Compiled> plans = new ConcurrentHashMap<>();

    private record Compiled(Instant modifiedAt, RouterPlan plan) {}

    /** What steps keep and count beyond one request: the cache steps' answers, and every step's counts. */
    public record Steps(AnswerCache cache, StepCounter counter) {
        public Steps {
            requireNonNull(cache, "cache");
            requireNonNull(counter, "counter");
        }
    }

    public RouterRuntime(
            Routing routing,
            ActiveRouters routers,
            ProviderModels providers,
            CredentialValues credentials,
            DeploymentDirectory deployments,
            RouterDecider decider,
            Expressions expressions,
            RateLimiter limits,
            Clock clock,
            Steps steps) {
        this.routing = requireNonNull(routing, "routing");
        this.routers = requireNonNull(routers, "routers");
        this.providers = requireNonNull(providers, "providers");
        this.credentials = requireNonNull(credentials, "credentials");
        this.deployments = requireNonNull(deployments, "deployments");
        this.decider = requireNonNull(decider, "decider");
        this.expressions = requireNonNull(expressions, "expressions");
        this.limits = requireNonNull(limits, "limits");
        this.clock = requireNonNull(clock, "clock");
        this.steps = requireNonNull(steps, "steps");
    }

    /**
     * Walks the router's plan for this request, answering it through the step that ends the walk; {@code askedModel}
     * is the model the caller asks a provider_models step for ({@code model: "<router>/<model>"}).
     */
    public void serve(Context ctx, InferenceRequest request, RouterSnapshot router, Optional<String> askedModel) {
        var exchange = new Exchange(request, askedModel, ctx.headerMap());
        try {
            walk(ctx, router, exchange);
        } catch (RuntimeException e) {
            exchange.stepFailed(e);
            throw e;
        } finally {
            exchange.endStep();
            ctx.header("x-router-steps", String.join(",", exchange.walked()));
            ctx.header("x-router-path", String.join(",", exchange.routers()));
        }
    }

    private RouterPlan plan(RouterSnapshot router) {
        return plans.compute(
                        router.id(),
                        (id, known) -> known != null && known.modifiedAt().equals(router.modifiedAt())
                                ? known
                                : new Compiled(router.modifiedAt(), RouterPlan.compile(router.dagConfig())))
                .plan();
    }

    private void walk(Context ctx, RouterSnapshot router, Exchange exchange) {
        exchange.enter(router.id());
        ctx.header("x-router-id", router.id());
        RouterPlan plan = plan(router);
        String next = plan.entry();
        // a checked graph has no cycle; the bound keeps a walk finite whatever the graph
        for (int walked = 0; walked <= plan.steps().size(); walked++) {
            PlanStep step = plan.step(next);
            exchange.walk(step, router.id());
            switch (step) {
                case PlanStep.Route route -> {
                    forward(ctx, router, exchange, route.strategy(), Optional.empty(), route.policy());
                    return;
                }
                case PlanStep.LocalModel local -> {
                    forward(
                            ctx,
                            router,
                            exchange,
                            localModel(ctx, router, local),
                            Optional.empty(),
                            AttemptPolicy.DEFAULT);
                    return;
                }
                case PlanStep.ProviderModels provider -> {
                    String endpoint = exchange.askedModel()
                            .flatMap(asked -> providers.find(provider.provider(), asked))
                            .orElse(provider.defaultModel());
                    forward(ctx, router, exchange, new Strategy.Single(endpoint), key(provider), provider.policy());
                    return;
                }
                case PlanStep.Delegate delegate -> {
                    walk(ctx, delegatedTo(ctx, delegate, exchange), exchange);
                    return;
                }
                case PlanStep.CannedResponse canned -> {
                    answer(ctx, router, exchange, render(step, canned.template(), exchange));
                    return;
                }
                case PlanStep.Cache cache -> {
                    if (cached(ctx, router, cache, exchange)) {
                        return;
                    }
                    next = cache.next();
                }
                case PlanStep.Branches branches ->
                    next = branch(branches, branches.branches(), branches.next(), exchange.scope());
                case PlanStep.Decide decide -> next = decide(ctx, decide, exchange);
                case PlanStep.ContentRules rules -> next = contentRules(rules, exchange);
                case PlanStep.Pii pii -> next = pii(ctx, router, pii, exchange);
                case PlanStep.SystemPrompt prompt -> next = systemPrompt(prompt, exchange);
                case PlanStep.RequestLimits requestLimits -> next = requestLimits(requestLimits, exchange);
                case PlanStep.RateLimit rateLimit -> next = rateLimit(ctx, router, rateLimit, exchange);
            }
        }
        throw new IllegalStateException("router " + router.id() + " walked more steps than it has");
    }

    /**
     * Sends the request to the endpoint(s) the strategy picks, the answer through the output rules: a whole answer is
     * rewritten once read, a stream as it passes. The usage is the router's whose step forwarded it.
     */
    private void forward(
            Context ctx,
            RouterSnapshot router,
            Exchange exchange,
            Strategy strategy,
            Optional<String> apiKey,
            AttemptPolicy policy) {
        var headers = new LinkedHashMap<String, String>();
        headers.put("x-router-steps", String.join(",", exchange.walked()));
        headers.put("x-router-path", String.join(",", exchange.routers()));
        if (!exchange.tags().isEmpty()) {
            headers.put("x-router-tags", String.join(",", exchange.tags()));
        }
        Optional<AnswerRules> output = exchange.outputRules().isEmpty()
                ? Optional.empty()
                : Optional.of(new AnswerRules(exchange.outputRules(), exchange.operation()));
        Optional<PiiAnswers> pii = exchange.piiOutput().isEmpty()
                ? Optional.empty()
                : Optional.of(new PiiAnswers(
                        exchange.piiOutput(),
                        exchange.operation(),
                        output.filter(rules -> exchange.stream()).map(StreamEdit.class::cast),
                        (step, name) -> steps.counter().count(router.id(), step.id(), name, 1)));
        Optional<StreamEdit> rulesEdit = (pii.isPresent()
                        ? pii.map(StreamEdit.class::cast)
                        : output.map(StreamEdit.class::cast))
                .filter(edit -> exchange.stream());
        // a stream that may be kept is read as it passes, after the output rules changed it
        Optional<StreamCapture> capture = exchange.cacheMiss()
                .filter(miss -> exchange.stream())
                .map(miss -> new StreamCapture(
                        rulesEdit, exchange.operation(), exchange.request().model()));
        Optional<StreamEdit> streamEdit = capture.isPresent() ? capture.map(StreamEdit.class::cast) : rulesEdit;
        routing.forward(
                ctx,
                exchange.request(),
                strategy,
                reachable(ctx, router),
                Attribution.router(router.id(), headers),
                new Forwarding(apiKey, streamEdit, policy));
        if (!exchange.stream() && ctx.statusCode() / 100 == 2 && (output.isPresent() || pii.isPresent())) {
            filterOutput(ctx, text -> {
                String ruled = output.map(rules -> rules.whole(text)).orElse(text);
                return pii.map(scan -> scan.whole(ruled)).orElse(ruled);
            });
            var tags = new LinkedHashSet<>(exchange.tags());
            output.ifPresent(rules -> tags.addAll(rules.tags()));
            pii.ifPresent(scan -> tags.addAll(scan.tags()));
            if (!tags.isEmpty()) {
                ctx.header("x-router-tags", String.join(",", tags));
            }
        }
        if (exchange.cacheMiss().isPresent() && ctx.statusCode() == 200) {
            Optional<ObjectNode> answer = exchange.stream() ? capture.flatMap(StreamCapture::answer) : whole(ctx);
            answer.filter(a -> Replay.replayable(a, exchange.operation()))
                    .ifPresent(a -> keep(exchange.cacheMiss().get(), a));
        }
    }

    /**
     * Answers from the cache step's kept answers when one fits the request (whole, or replayed as the stream it
     * asks for), saying so in {@code x-cache} ({@code hit}, {@code semantic} with {@code x-cache-similarity}); on a
     * miss, notes where the answer is to be kept. A request that samples ({@code temperature} above 0) misses unless
     * the step caches those too, and its answer is not kept.
     */
    private boolean cached(Context ctx, RouterSnapshot router, PlanStep.Cache step, Exchange exchange) {
        ObjectNode body = exchange.body();
        if (!step.cacheSampled() && body.path("temperature").asDouble(0) > 0) {
            ctx.header("x-cache", "miss");
            steps.counter().count(router.id(), step.id(), "cache_miss", 1);
            return false;
        }
        var place = new AnswerCache.Place(router.id(), step.id(), cacheScope(ctx, router, step.per()));
        var request = CacheRequest.of(
                exchange.operation(), body, Long.toString(router.modifiedAt().toEpochMilli()));
        switch (steps.cache().find(place, request, step.settings())) {
            case AnswerCache.Hit hit -> {
                boolean semantic = hit.similarity().isPresent();
                ctx.header("x-cache", semantic ? "semantic" : "hit");
                hit.similarity()
                        .ifPresent(similarity ->
                                ctx.header("x-cache-similarity", String.format(Locale.ROOT, "%.4f", similarity)));
                steps.counter().count(router.id(), step.id(), semantic ? "cache_semantic_hit" : "cache_hit", 1);
                steps.counter().count(router.id(), step.id(), "cache_saved_tokens", hit.savedTokens());
                replay(ctx, exchange, hit.answer());
                return true;
            }
            case AnswerCache.Miss miss -> {
                ctx.header("x-cache", "miss");
                steps.counter().count(router.id(), step.id(), "cache_miss", 1);
                exchange.cacheMissed(new Exchange.CacheMiss(place, request, step.settings(), miss));
                return false;
            }
        }
    }

    /**
     * Whose answers a request shares: its project's (its key's project, else the router's, which its caller may act
     * in), or its key's alone (its token's, called without a key). Never another project's.
     */
    private static String cacheScope(Context ctx, RouterSnapshot router, PlanStep.CacheScope per) {
        Optional<KeyScope> key = Keys.scope(ctx);
        return switch (per) {
            case PROJECT -> "project:" + key.map(KeyScope::projectId).orElse(router.projectId());
            case KEY ->
                key.map(k -> "key:" + k.keyId())
                        .orElseGet(() -> "token:" + Access.principal(ctx).tokenId());
        };
    }

    /** A kept answer, sent as the request asks: whole, or as a stream of chunks. */
    private static void replay(Context ctx, Exchange exchange, ObjectNode answer) {
        if (!exchange.stream() || exchange.operation() == Operation.EMBEDDINGS) {
            ctx.status(200).contentType("application/json").result(Json.write(answer));
            return;
        }
        boolean usage =
                exchange.body().path("stream_options").path("include_usage").asBoolean(false);
        ctx.status(200)
                .contentType("text/event-stream")
                .header("cache-control", "no-cache")
                .result(Replay.events(answer, exchange.operation(), usage));
    }

    /** Keeps the answer a request that missed got; a cache that cannot keep it costs the caller nothing. */
    private void keep(Exchange.CacheMiss miss, ObjectNode answer) {
        JsonNode usage = answer.path("usage");
        long tokens = usage.path("total_tokens").isNumber()
                ? usage.path("total_tokens").asLong()
                : usage.path("prompt_tokens").asLong(0)
                        + usage.path("completion_tokens").asLong(0);
        try {
            steps.cache().keep(miss.place(), miss.request(), miss.settings(), miss.miss(), answer, tokens);
        } catch (RuntimeException e) {
            LOG.warn(
                    "Router {} could not keep an answer in cache step {}",
                    miss.place().routerId(),
                    miss.place().stepId(),
                    e);
        }
    }

    /** A whole answer as sent, when it is a JSON object; the reply stays as it is. */
    private static Optional<ObjectNode> whole(Context ctx) {
        byte[] bytes;
        try (var in = ctx.resultInputStream()) {
            if (in == null) {
                return Optional.empty();
            }
            bytes = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ctx.result(bytes);
        try {
            return Json.read(bytes) instanceof ObjectNode object ? Optional.of(object) : Optional.empty();
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * The projects a router's deployments are found in: its own, and only while the caller may act in it. Whoever saved
     * the router (an admin too), a reference to another project's deployment reaches nothing when a request comes.
     */
    private static Predicate<String> reachable(Context ctx, RouterSnapshot router) {
        Principal caller = Access.principal(ctx);
        return project -> project.equals(router.projectId()) && caller.mayActIn(project);
    }

    /** The value of the step's credential, sent in place of each model's own key. */
    private Optional<String> key(PlanStep.ProviderModels step) {
        return step.credential()
                .map(reference -> credentials
                        .open(reference)
                        .orElseThrow(() -> stepError(
                                ErrorCode.ROUTER_STEP_FAILED,
                                step,
                                "Step '" + step.id() + "' sends credential '" + reference
                                        + "' as the key, and there is no such credential (any more).")));
    }

    /**
     * The router a delegate step hands the request to: active, in a project the caller's token may act in (the step's
     * author chose the project, but a request gets no further than its token), not yet on the request's path, and
     * within {@value #MAX_ROUTERS} routers.
     */
    private RouterSnapshot delegatedTo(Context ctx, PlanStep.Delegate step, Exchange exchange) {
        if (!Access.principal(ctx).mayActIn(step.project())) {
            throw stepError(
                    ErrorCode.PROJECT_FORBIDDEN,
                    step,
                    "Step '" + step.id() + "' hands the request to a router of project '" + step.project()
                            + "', which this token may not act in.");
        }
        List<RouterSnapshot> found = routers.find(step.project()::equals, step.router());
        if (found.isEmpty()) {
            throw stepError(
                    ErrorCode.ROUTER_NOT_FOUND,
                    step,
                    "Step '" + step.id() + "' hands the request to router '" + step.router() + "' of project '"
                            + step.project() + "', which is not an active router there.");
        }
        RouterSnapshot target = found.getFirst();
        List<String> path = exchange.routers();
        if (path.contains(target.id())) {
            throw stepError(
                    ErrorCode.ROUTER_LOOP,
                    step,
                    "Step '" + step.id() + "' hands the request back to router '" + target.name()
                            + "', which it passed already: " + String.join(" → ", path) + " → " + target.id() + ".");
        }
        if (path.size() >= MAX_ROUTERS) {
            throw stepError(
                    ErrorCode.DELEGATION_TOO_DEEP,
                    step,
                    "Step '" + step.id() + "' would hand the request to a router past the " + MAX_ROUTERS
                            + " one request may pass: " + String.join(" → ", path) + ".");
        }
        return target;
    }

    /**
     * The running deployments of the step's model on its cluster in the router's project, the least busy first; 503
     * {@code model_not_deployed} when none runs.
     */
    private Strategy localModel(Context ctx, RouterSnapshot router, PlanStep.LocalModel step) {
        List<String> running = deployments.ofModel(reachable(ctx, router), step.model(), step.cluster()).stream()
                .map(DeploymentDirectory.ServedDeployment::id)
                .toList();
        if (running.isEmpty()) {
            throw stepError(
                    ErrorCode.MODEL_NOT_DEPLOYED,
                    step,
                    "Step '" + step.id() + "' answers with model '" + step.model() + "' on cluster '" + step.cluster()
                            + "', and no deployment of it runs there in this router's project; deploy it "
                            + "(POST /deployments) or wait until its deployment is running.");
        }
        return new Strategy.LeastBusy(running);
    }

    private String branch(
            PlanStep step, List<PlanStep.Branch> branches, Optional<String> otherwise, Map<String, Object> scope) {
        for (PlanStep.Branch branch : branches) {
            if (branch.condition().isEmpty()) {
                return branch.next();
            }
            try {
                if (expressions.holds(branch.condition().get(), scope)) {
                    return branch.next();
                }
            } catch (Expressions.ExpressionException e) {
                throw stepError(
                        ErrorCode.ROUTER_STEP_FAILED,
                        step,
                        "Step '" + step.id() + "' could not work out branch '" + branch.name() + "': " + e.getMessage()
                                + ".");
            }
        }
        return otherwise.orElseThrow(() -> stepError(
                ErrorCode.ROUTER_STEP_FAILED, step, "Step '" + step.id() + "' has no branch for this request."));
    }

    /** Asks the studio; an answer it would not act on goes to the fallback step, any other down the branches. */
    private String decide(Context ctx, PlanStep.Decide step, Exchange exchange) {
        String situation = render(step, step.input(), exchange);
        RoutedDecision decision;
        try {
            decision = decider.decide(step.template(), situation, Requests.id(ctx));
        } catch (ApiException e) {
            throw stepError(
                    e.code(),
                    step,
                    "Step '" + step.id() + "' could not ask template '" + step.template() + "': " + e.getMessage());
        }
        decision.decisionId().ifPresent(id -> ctx.header("x-router-decision-id", id));
        if (!decision.act()) {
            return step.fallback();
        }
        var scope = new LinkedHashMap<String, Object>(exchange.scope());
        scope.put("decide", Map.of("answer", decision.answer(), "probability", decision.probability()));
        return branch(step, step.branches(), step.next(), scope);
    }

    /**
     * Scans the request's texts for personal data and secrets: a block names the kinds found (never what was found),
     * a redaction replaces each finding before the endpoint sees it, a tag adds {@code pii:<kind>} for each kind.
     */
    private String pii(Context ctx, RouterSnapshot router, PlanStep.Pii step, Exchange exchange) {
        if (step.onOutput()) {
            exchange.checkOutput(step);
        }
        if (!step.onInput()) {
            return step.next();
        }
        var found = new java.util.TreeSet<String>();
        exchange.texts()
                .forEach(text -> PiiScanner.find(text, step.kinds())
                        .forEach(hit -> found.add(hit.kind().wire())));
        found.forEach(kind -> steps.counter().count(router.id(), step.id(), "pii:" + kind, 1));
        switch (step.action()) {
            case BLOCK -> {
                if (!found.isEmpty()) {
                    steps.counter().count(router.id(), step.id(), "blocked", 1);
                    throw stepError(
                            ErrorCode.CONTENT_BLOCKED,
                            step,
                            step.blockMessage() + " (found: " + String.join(", ", found) + ")");
                }
            }
            case REDACT -> exchange.rewriteTexts(text -> PiiScanner.redact(text, PiiScanner.find(text, step.kinds())));
            case TAG -> found.forEach(kind -> exchange.tag("pii:" + kind));
        }
        return step.next();
    }

    private String contentRules(PlanStep.ContentRules step, Exchange exchange) {
        for (PlanStep.ContentRule rule : step.rules()) {
            if (rule.onOutput()) {
                exchange.checkOutput(step, rule);
            }
            if (!rule.onInput()) {
                continue;
            }
            switch (rule.action()) {
                case BLOCK -> {
                    if (exchange.texts().stream()
                            .anyMatch(t -> rule.pattern().matcher(t).find())) {
                        throw stepError(ErrorCode.CONTENT_BLOCKED, step, step.blockMessage());
                    }
                }
                case REDACT ->
                    exchange.rewriteTexts(t -> rule.pattern().matcher(t).replaceAll(AnswerRules.REDACTED));
                case TAG -> {
                    if (exchange.texts().stream()
                            .anyMatch(t -> rule.pattern().matcher(t).find())) {
                        exchange.tag(rule.tag());
                    }
                }
            }
        }
        return step.next();
    }

    /** Applies the output rules to a whole answer's text: its messages' content, or its completions' text. */
    private static void filterOutput(Context ctx, java.util.function.UnaryOperator<String> rules) {
        JsonNode answer;
        try (var in = ctx.resultInputStream()) {
            answer = Json.read(in == null ? new byte[0] : in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (JsonNode choice : answer.path("choices")) {
            if (choice.path("message") instanceof ObjectNode message
                    && message.path("content").isTextual()) {
                message.put("content", rules.apply(message.path("content").textValue()));
            }
            if (choice instanceof ObjectNode text && text.path("text").isTextual()) {
                text.put("text", rules.apply(text.path("text").textValue()));
            }
        }
        ctx.result(Json.write(answer));
    }

    private String systemPrompt(PlanStep.SystemPrompt step, Exchange exchange) {
        String prompt = render(step, step.template(), exchange);
        ObjectNode body = exchange.body();
        switch (exchange.operation()) {
            case CHAT_COMPLETIONS -> {
                ArrayNode kept = Json.mapper().createArrayNode();
                body.path("messages").forEach(message -> {
                    if (step.mode() != PlanStep.PromptMode.REPLACE
                            || !message.path("role").asText().equals("system")) {
                        kept.add(message);
                    }
                });
                ObjectNode system = Json.object().put("role", "system").put("content", prompt);
                if (step.mode() == PlanStep.PromptMode.APPEND) {
                    kept.add(system);
                } else {
                    kept.insert(0, system);
                }
                body.set("messages", kept);
            }
            // a completion has no messages: the prompt text goes before (or, appended, after) the caller's
            case COMPLETIONS ->
                exchange.rewriteTexts(text ->
                        step.mode() == PlanStep.PromptMode.APPEND ? text + "\n\n" + prompt : prompt + "\n\n" + text);
            case EMBEDDINGS -> {}
        }
        exchange.changed();
        return step.next();
    }

    private String requestLimits(PlanStep.RequestLimits step, Exchange exchange) {
        ObjectNode body = exchange.body();
        var problems = new ArrayList<Problem>();
        for (String param : step.blockedParams()) {
            if (body.has(param)) {
                problems.add(new Problem(
                        ErrorCode.PARAM_BLOCKED,
                        param,
                        "`" + param + "` may not be set through this router (step '" + step.id() + "')."));
            }
        }
        if (!problems.isEmpty()) {
            throw ApiException.of(problems).withField("step", step.id());
        }
        step.maxTokens().ifPresent(cap -> {
            for (String field : List.of("max_tokens", "max_completion_tokens")) {
                if (body.path(field).isNumber() && body.path(field).asLong() > cap) {
                    body.put(field, cap);
                }
            }
            if (!body.has("max_tokens") && !body.has("max_completion_tokens")) {
                body.put("max_tokens", cap);
            }
        });
        step.temperature().ifPresent(range -> {
            if (body.path("temperature").isNumber()) {
                double asked = body.path("temperature").asDouble();
                body.put("temperature", Math.min(range.max(), Math.max(range.min(), asked)));
            }
        });
        step.defaults().properties().forEach(field -> {
            if (!field.getKey().equals("model") && !body.has(field.getKey())) {
                body.set(field.getKey(), field.getValue());
            }
        });
        exchange.changed();
        return step.next();
    }

    private String rateLimit(Context ctx, RouterSnapshot router, PlanStep.RateLimit step, Exchange exchange) {
        String key = "router/" + router.id() + "/" + step.id() + "/"
                + switch (step.per()) {
                    case ROUTER -> "";
                    case TOKEN -> Access.principal(ctx).tokenId();
                    case HEADER -> exchange.headers().getOrDefault(step.header().orElse(""), "");
                };
        RateLimiter.Verdict verdict = limits.take(key, step.limit());
        RateLimitHeaders.write(ctx, verdict);
        if (!verdict.allowed()) {
            throw RateLimitHeaders.refusal(
                            verdict,
                            "Router '" + router.name() + "' lets "
                                    + step.limit().requests() + " requests through a "
                                    + step.limit().window().wire() + " (step '" + step.id() + "'); try again in "
                                    + RateLimitHeaders.retryAfterSeconds(verdict) + " s.")
                    .withField("step", step.id());
        }
        return step.next();
    }

    private String render(PlanStep step, String template, Exchange exchange) {
        try {
            return expressions
                    .render(Json.mapper().valueToTree(template), exchange.scope())
                    .asText();
        } catch (Expressions.ExpressionException e) {
            throw stepError(
                    ErrorCode.ROUTER_STEP_FAILED,
                    step,
                    "Step '" + step.id() + "' could not render its template: " + e.getMessage() + ".");
        }
    }

    /** A canned answer: a chat completion (or a text completion) object, or its stream of one chunk. */
    private void answer(Context ctx, RouterSnapshot router, Exchange exchange, String message) {
        long created = clock.millis() / 1000;
        Map<String, Object> answer = switch (exchange.operation()) {
            case CHAT_COMPLETIONS -> {
                var identity = OpenAiAnswers.Identity.chat(created, router.name());
                yield exchange.stream()
                        ? OpenAiAnswers.chatChunk(identity, Map.of("role", "assistant", "content", message), "stop")
                        : OpenAiAnswers.chatCompletion(identity, message, "stop", 0, 0);
            }
            case COMPLETIONS ->
                OpenAiAnswers.textCompletion(
                        OpenAiAnswers.Identity.text(created, router.name()), message, "stop", 0, 0);
            case EMBEDDINGS ->
                throw ApiException.of(
                        ErrorCode.MODEL_CAPABILITY_UNSUPPORTED,
                        "model",
                        "Router '" + router.name() + "' answers with a canned response, which is text: it cannot "
                                + "answer an embeddings request.");
        };
        if (!exchange.stream()) {
            ctx.status(200).contentType("application/json").result(Json.write(answer));
            return;
        }
        var events = new ByteArrayOutputStream();
        events.writeBytes(OpenAiAnswers.event(answer));
        events.writeBytes(OpenAiAnswers.done());
        ctx.status(200)
                .contentType("text/event-stream")
                .header("cache-control", "no-cache")
                .result(events.toByteArray());
    }

    private static ApiException stepError(ErrorCode code, PlanStep step, String message) {
        return ApiException.of(code, message).withField("step", step.id());
    }
}
