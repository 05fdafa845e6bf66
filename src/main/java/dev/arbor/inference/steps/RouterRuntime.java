package dev.arbor.inference.steps;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.access.Access;
import dev.arbor.inference.Attribution;
import dev.arbor.inference.DeploymentDirectory;
import dev.arbor.inference.InferenceRequest;
import dev.arbor.inference.OpenAiAnswers;
import dev.arbor.inference.Routing;
import dev.arbor.inference.Strategy;
import dev.arbor.platform.actions.Expressions;
import dev.arbor.platform.http.ApiException;
import dev.arbor.platform.http.ErrorCode;
import dev.arbor.platform.http.Json;
import dev.arbor.platform.http.Problem;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.ratelimits.RateLimitHeaders;
import dev.arbor.platform.ratelimits.RateLimiter;
import dev.arbor.routers.RouterSnapshot;
import dev.arbor.studio.RoutedDecision;
import io.javalin.http.Context;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs requests through routers: a router's graph is compiled once per save (the cache is keyed by id and replaced
 * when {@code modified_at} moves), then each request walks from {@code entry_step} along {@code next_steps} and
 * branches until a step forwards it to an endpoint or answers it. Every answer says which router and steps it went
 * through ({@code x-router-id}, {@code x-router-steps}); a step that cannot run answers in OpenAI's error shape with
 * the step named, never a 500.
 */
public final class RouterRuntime {
    private static final String REDACTED = "[REDACTED]";

    private final Routing routing;
    private final RouterDecider decider;
    private final DeploymentDirectory deployments;
    private final Expressions expressions;
    private final RateLimiter limits;
    private final Clock clock;
    private final ConcurrentHashMap<String, Compiled> plans = new ConcurrentHashMap<>();

    private record Compiled(Instant modifiedAt, RouterPlan plan) {}

    public RouterRuntime(
            Routing routing,
            DeploymentDirectory deployments,
            RouterDecider decider,
            Expressions expressions,
            RateLimiter limits,
            Clock clock) {
        this.routing = requireNonNull(routing, "routing");
        this.deployments = requireNonNull(deployments, "deployments");
        this.decider = requireNonNull(decider, "decider");
        this.expressions = requireNonNull(expressions, "expressions");
        this.limits = requireNonNull(limits, "limits");
        this.clock = requireNonNull(clock, "clock");
    }

    /** Walks the router's plan for this request, answering it through the step that ends the walk. */
    public void serve(Context ctx, InferenceRequest request, RouterSnapshot router) {
        RouterPlan plan = plan(router);
        var exchange = new Exchange(request, ctx.headerMap());
        ctx.header("x-router-id", router.id());
        try {
            walk(ctx, router, plan, exchange);
        } finally {
            ctx.header("x-router-steps", String.join(",", exchange.walked()));
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

    private void walk(Context ctx, RouterSnapshot router, RouterPlan plan, Exchange exchange) {
        String next = plan.entry();
        // a checked graph has no cycle; the bound keeps a walk finite whatever the graph
        for (int walked = 0; walked <= plan.steps().size(); walked++) {
            PlanStep step = plan.step(next);
            exchange.walk(step.id());
            switch (step) {
                case PlanStep.Route route -> {
                    forward(ctx, router, exchange, route.strategy());
                    return;
                }
                case PlanStep.LocalModel local -> {
                    forward(ctx, router, exchange, localModel(router, local));
                    return;
                }
                case PlanStep.CannedResponse canned -> {
                    answer(ctx, router, exchange, render(step, canned.template(), exchange));
                    return;
                }
                case PlanStep.Unavailable unavailable ->
                    throw stepError(
                            ErrorCode.ACTION_UNAVAILABLE,
                            step,
                            "Step '" + step.id() + "' is a " + unavailable.actionType()
                                    + " step, which this server does not run yet.");
                case PlanStep.Branches branches ->
                    next = branch(branches, branches.branches(), branches.next(), exchange.scope());
                case PlanStep.Decide decide -> next = decide(ctx, decide, exchange);
                case PlanStep.ContentRules rules -> next = contentRules(rules, exchange);
                case PlanStep.SystemPrompt prompt -> next = systemPrompt(prompt, exchange);
                case PlanStep.RequestLimits requestLimits -> next = requestLimits(requestLimits, exchange);
                case PlanStep.RateLimit rateLimit -> next = rateLimit(ctx, router, rateLimit, exchange);
            }
        }
        throw new IllegalStateException("router " + router.id() + " walked more steps than it has");
    }

    private void forward(Context ctx, RouterSnapshot router, Exchange exchange, Strategy strategy) {
        routing.forward(
                ctx,
                exchange.request(),
                strategy,
                Attribution.router(router.id(), Map.of("x-router-steps", String.join(",", exchange.walked()))));
        if (!exchange.stream()
                && ctx.statusCode() / 100 == 2
                && !exchange.outputRules().isEmpty()) {
            filterOutput(ctx, exchange);
        }
    }

    /**
     * The running deployments of the step's model on its cluster in the router's project, the least busy first; 503
     * {@code model_not_deployed} when none runs.
     */
    private Strategy localModel(RouterSnapshot router, PlanStep.LocalModel step) {
        List<String> running =
                deployments
                        .ofModel(project -> project.equals(router.projectId()), step.model(), step.cluster())
                        .stream()
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
                    exchange.rewriteTexts(t -> rule.pattern().matcher(t).replaceAll(REDACTED));
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

    /**
     * Applies the output rules to a whole answer's text (a stream goes to the caller as it comes, unchecked): a redact
     * rule replaces what it matches, a block rule refuses the answer; a tag has nothing after it to inform.
     */
    private static void filterOutput(Context ctx, Exchange exchange) {
        JsonNode answer;
        try (var in = ctx.resultInputStream()) {
            answer = Json.read(in == null ? new byte[0] : in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (JsonNode choice : answer.path("choices")) {
            if (choice.path("message") instanceof ObjectNode message
                    && message.path("content").isTextual()) {
                message.put("content", filtered(message.path("content").textValue(), exchange));
            }
            if (choice instanceof ObjectNode text && text.path("text").isTextual()) {
                text.put("text", filtered(text.path("text").textValue(), exchange));
            }
        }
        ctx.result(Json.write(answer));
    }

    private static String filtered(String text, Exchange exchange) {
        String result = text;
        for (Exchange.OutputRule output : exchange.outputRules()) {
            PlanStep.ContentRule rule = output.rule();
            switch (rule.action()) {
                case BLOCK -> {
                    if (rule.pattern().matcher(result).find()) {
                        throw stepError(
                                ErrorCode.CONTENT_BLOCKED,
                                output.step(),
                                output.step().blockMessage());
                    }
                }
                case REDACT -> result = rule.pattern().matcher(result).replaceAll(REDACTED);
                case TAG -> {}
            }
        }
        return result;
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
                        ErrorCode.ACTION_UNAVAILABLE,
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
        return ApiException.of(code, null, message).withField("step", step.id());
    }
}
