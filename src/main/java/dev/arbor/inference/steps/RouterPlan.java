package dev.arbor.inference.steps;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import dev.arbor.inference.cache.AnswerCache;
import dev.arbor.inference.endpoints.AttemptPolicy;
import dev.arbor.inference.endpoints.Strategy;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.ratelimits.RateLimiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * A router's graph compiled for the runtime: each step's action with its params read once into typed values. The
 * graph was checked when it was saved (every param, every link, no cycle), so compiling reads it without checking it
 * again; a param left out takes the catalog's default.
 */
record RouterPlan(String entry, Map<String, PlanStep> steps) {
    RouterPlan {
        requireNonNull(entry, "entry");
        steps = Map.copyOf(steps);
    }

    /** The step with this id; the graph's checks make sure every link names one. */
    PlanStep step(String id) {
        PlanStep step = steps.get(id);
        if (step == null) {
            throw new IllegalStateException("a checked graph links only to its steps: " + id);
        }
        return step;
    }

    static RouterPlan compile(JsonNode dag) {
        var steps = new LinkedHashMap<String, PlanStep>();
        for (JsonNode step : dag.path("steps")) {
            String id = step.path("step_id").asText();
            steps.put(id, compile(id, step));
        }
        return new RouterPlan(dag.path("entry_step").asText(), steps);
    }

    private static PlanStep compile(String id, JsonNode step) {
        JsonNode params = step.path("params");
        String next = step.path("next_steps").path(0).asText("");
        return switch (step.path("action_type").asText()) {
            case "single_endpoint" ->
                new PlanStep.Route(
                        id, new Strategy.Single(params.path("endpoint").asText()), policy(params));
            case "weighted_routing" -> {
                var weights = new ArrayList<Strategy.Weight>();
                params.path("weights")
                        .forEach(w -> weights.add(new Strategy.Weight(
                                w.path("endpoint").asText(), w.path("weight").asDouble())));
                yield new PlanStep.Route(id, new Strategy.Weighted(weights), policy(params));
            }
            case "ordered_fallback" -> {
                var order = new ArrayList<Strategy.Step>();
                params.path("endpoints")
                        .forEach(e -> order.add(new Strategy.Step(
                                e.path("endpoint").asText(),
                                e.path("timeout_seconds").isNumber()
                                        ? Optional.of(Duration.ofMillis(Math.round(
                                                e.path("timeout_seconds").asDouble() * 1000)))
                                        : Optional.empty())));
                Set<Strategy.Retry> retryOn = EnumSet.allOf(Strategy.Retry.class);
                if (params.path("retry_on").isArray()) {
                    retryOn = EnumSet.noneOf(Strategy.Retry.class);
                    for (JsonNode kind : params.path("retry_on")) {
                        retryOn.add(Strategy.Retry.valueOf(upper(kind.asText())));
                    }
                }
                yield new PlanStep.Route(id, new Strategy.Fallback(order, retryOn), policy(params));
            }
            case "local_model" ->
                new PlanStep.LocalModel(
                        id,
                        params.path("model").asText(),
                        params.path("cluster").asText("local"));
            case "least_busy" ->
                new PlanStep.Route(id, new Strategy.LeastBusy(texts(params.path("endpoints"))), policy(params));
            case "latency_aware" ->
                new PlanStep.Route(
                        id,
                        new Strategy.LatencyAware(
                                texts(params.path("endpoints")),
                                Strategy.Percentile.valueOf(
                                        upper(params.path("percentile").asText("p50")))),
                        policy(params));
            case "provider_models" ->
                new PlanStep.ProviderModels(
                        id,
                        params.path("provider").asText(),
                        params.path("default_model").asText(),
                        params.hasNonNull("credential")
                                ? Optional.of(params.path("credential").asText())
                                : Optional.empty(),
                        policy(params));
            case "delegate" ->
                new PlanStep.Delegate(
                        id,
                        params.path("project").asText(),
                        params.path("router").asText());
            case "decision_branches" ->
                new PlanStep.Branches(id, branches(params), next.isEmpty() ? Optional.empty() : Optional.of(next));
            case "decide" ->
                new PlanStep.Decide(
                        id,
                        params.path("template").asText(),
                        params.path("input").asText("{{ request.text }}"),
                        branches(params),
                        params.path("fallback_step").asText(),
                        next.isEmpty() ? Optional.empty() : Optional.of(next));
            case "content_rules" -> contentRules(id, params, next);
            case "pii" -> {
                Set<PiiScanner.Kind> kinds = EnumSet.noneOf(PiiScanner.Kind.class);
                if (params.path("entities").isArray()) {
                    params.path("entities").forEach(kind -> kinds.add(PiiScanner.Kind.valueOf(upper(kind.asText()))));
                } else {
                    kinds.addAll(EnumSet.allOf(PiiScanner.Kind.class));
                }
                yield new PlanStep.Pii(
                        id,
                        kinds,
                        PlanStep.RuleAction.valueOf(upper(params.path("action").asText("redact"))),
                        params.path("block_message")
                                .asText("This request was blocked: it holds personal data or a secret."),
                        !params.path("on").asText("input").equals("output"),
                        !params.path("on").asText("input").equals("input"),
                        next);
            }
            case "system_prompt" ->
                new PlanStep.SystemPrompt(
                        id,
                        params.path("prompt").asText(),
                        PlanStep.PromptMode.valueOf(upper(params.path("mode").asText("prepend"))),
                        next);
            case "request_limits" ->
                new PlanStep.RequestLimits(
                        id,
                        params.path("max_tokens").isNumber()
                                ? OptionalInt.of(params.path("max_tokens").asInt())
                                : OptionalInt.empty(),
                        texts(params.path("blocked_params")),
                        params.path("temperature").isObject()
                                ? Optional.of(new PlanStep.Range(
                                        params.path("temperature").path("min").asDouble(),
                                        params.path("temperature").path("max").asDouble()))
                                : Optional.empty(),
                        params.path("default_params") instanceof ObjectNode defaults ? defaults : Json.object(),
                        next);
            case "cache" ->
                new PlanStep.Cache(
                        id,
                        new AnswerCache.Settings(
                                Duration.ofSeconds(params.path("ttl_seconds").asLong(3600)),
                                params.path("max_entries").asInt(1000),
                                params.path("mode").asText("exact").equals("semantic")
                                        ? Optional.of(new AnswerCache.Semantic(
                                                params.path("embedding_model").asText("minilm-decider"),
                                                params.path("similarity_threshold")
                                                        .asDouble(0.95)))
                                        : Optional.empty()),
                        PlanStep.CacheScope.valueOf(upper(params.path("per").asText("project"))),
                        params.path("cache_sampled").asBoolean(false),
                        next);
            case "canned_response" ->
                new PlanStep.CannedResponse(id, params.path("message").asText());
            case "rate_limit" ->
                new PlanStep.RateLimit(
                        id,
                        new RateLimiter.Limit(
                                RateLimiter.Algorithm.FIXED_WINDOW,
                                params.path("requests").asInt(),
                                RateLimiter.Window.of(params.path("window").asText())
                                        .orElse(RateLimiter.Window.MINUTE)),
                        PlanStep.LimitKey.valueOf(upper(params.path("per").asText("router"))),
                        params.hasNonNull("header")
                                ? Optional.of(params.path("header").asText().toLowerCase(Locale.ROOT))
                                : Optional.empty(),
                        next);
            // a saved router's steps were checked against the catalog, and the runtime runs every action of it
            default ->
                throw new IllegalStateException("step " + id + " has action " + step.path("action_type")
                        + ", which the router catalog does not list");
        };
    }

    /**
     * A routing step's attempt policy: its timeouts (each one left out is the server's), retries, hedge (a fallback's)
     * and hold-back, each param left out taking the catalog's default.
     */
    static AttemptPolicy policy(JsonNode params) {
        var statuses = new LinkedHashSet<Integer>();
        params.path("retry_statuses").forEach(status -> statuses.add(Integer.parseInt(status.asText())));
        return new AttemptPolicy(
                new AttemptPolicy.Timeouts(
                        millis(params, "connect_timeout_ms"),
                        millis(params, "first_byte_timeout_ms"),
                        millis(params, "idle_timeout_ms"),
                        millis(params, "total_timeout_ms")),
                new AttemptPolicy.Retries(
                        statuses,
                        params.path("max_retries").asInt(2),
                        Duration.ofMillis(params.path("backoff_ms").asLong(200)),
                        Duration.ofSeconds(
                                params.path("retry_after_cap_seconds").asLong(10))),
                millis(params, "hedge_after_ms"),
                new AttemptPolicy.HoldBack(
                        params.path("hold_back_tokens").asInt(0),
                        Duration.ofMillis(params.path("hold_back_ms").asLong(0))));
    }

    private static Optional<Duration> millis(JsonNode params, String name) {
        return params.path(name).isNumber()
                ? Optional.of(Duration.ofMillis(params.path(name).asLong()))
                : Optional.empty();
    }

    private static PlanStep contentRules(String id, JsonNode params, String next) {
        boolean caseSensitive = params.path("case_sensitive").asBoolean(false);
        var rules = new ArrayList<PlanStep.ContentRule>();
        for (JsonNode rule : params.path("rules")) {
            String pattern = rule.path("pattern").asText();
            boolean regex = rule.path("match").asText("keyword").equals("regex");
            String on = rule.path("on").asText("input");
            rules.add(new PlanStep.ContentRule(
                    rulePattern(id, regex ? pattern : Pattern.quote(pattern), caseSensitive),
                    PlanStep.RuleAction.valueOf(upper(rule.path("action").asText())),
                    rule.path("tag").asText(rule.path("pattern").asText()),
                    !on.equals("output"),
                    !on.equals("input"),
                    regex ? AnswerRules.REGEX_WINDOW : Math.max(1, pattern.length())));
        }
        return new PlanStep.ContentRules(
                id, rules, params.path("block_message").asText("This request was blocked by a content rule."), next);
    }

    /**
     * A rule's pattern on RE2/J (linear time, whatever the pattern). One saved before patterns were RE2 syntax that RE2
     * cannot run fails the step rather than let what it guards through.
     */
    private static Pattern rulePattern(String id, String pattern, boolean caseSensitive) {
        try {
            return Pattern.compile(pattern, caseSensitive ? 0 : Pattern.CASE_INSENSITIVE);
        } catch (PatternSyntaxException e) {
            throw ApiException.of(
                    ErrorCode.ROUTER_STEP_FAILED,
                    "Step '" + id + "' has a content rule pattern RE2 cannot run (" + e.getDescription()
                            + "): save the router again with an RE2 pattern.");
        }
    }

    private static List<PlanStep.Branch> branches(JsonNode params) {
        var branches = new ArrayList<PlanStep.Branch>();
        params.path("branches")
                .forEach(b -> branches.add(new PlanStep.Branch(
                        b.path("name").asText(""),
                        b.hasNonNull("condition")
                                ? Optional.of(b.path("condition").asText())
                                : Optional.empty(),
                        b.path("next_step").asText())));
        return branches;
    }

    private static List<String> texts(JsonNode list) {
        var texts = new ArrayList<String>();
        list.forEach(item -> texts.add(item.asText()));
        return texts;
    }

    private static String upper(String text) {
        return text.toUpperCase(Locale.ROOT);
    }
}
