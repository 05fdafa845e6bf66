package dev.arbor.inference.steps;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.re2j.Pattern;
import dev.arbor.inference.cache.AnswerCache;
import dev.arbor.inference.endpoints.AttemptPolicy;
import dev.arbor.inference.endpoints.Strategy;
import dev.arbor.platform.ratelimits.RateLimiter;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/** One step of a compiled router, as the runtime runs it: its action with typed params and the step after it. */
sealed interface PlanStep {
    /** The step's {@code step_id}. */
    String id();

    /**
     * Picks the endpoint (or the fallback order) and forwards the request under the step's attempt policy: the route
     * ends here.
     */
    record Route(String id, Strategy strategy, AttemptPolicy policy) implements PlanStep {
        public Route {
            requireNonNull(id, "id");
            requireNonNull(strategy, "strategy");
            requireNonNull(policy, "policy");
        }
    }

    /**
     * Answers with the provider's cloud model the request asks for ({@code model: "<router>/<model>"}), else the
     * default one; with a credential, its value is the key sent instead of the model's own.
     */
    record ProviderModels(
            String id, String provider, String defaultModel, Optional<String> credential, AttemptPolicy policy)
            implements PlanStep {
        public ProviderModels {
            requireNonNull(id, "id");
            requireNonNull(policy, "policy");
            requireNonNull(provider, "provider");
            requireNonNull(defaultModel, "defaultModel");
            requireNonNull(credential, "credential");
        }
    }

    /** Hands the request to another active router, by name in a project: the route goes on there. */
    record Delegate(String id, String project, String router) implements PlanStep {
        public Delegate {
            requireNonNull(id, "id");
            requireNonNull(project, "project");
            requireNonNull(router, "router");
        }
    }

    /** Goes to the first branch whose condition holds; a branch without one always holds. */
    record Branches(String id, List<Branch> branches, Optional<String> next) implements PlanStep {
        public Branches {
            requireNonNull(id, "id");
            branches = List.copyOf(branches);
            requireNonNull(next, "next");
        }
    }

    record Branch(String name, Optional<String> condition, String next) {
        public Branch {
            requireNonNull(name, "name");
            requireNonNull(condition, "condition");
            requireNonNull(next, "next");
        }
    }

    /** Blocks, redacts or tags what the rules match in the request's text. */
    record ContentRules(String id, List<ContentRule> rules, String blockMessage, String next) implements PlanStep {
        public ContentRules {
            requireNonNull(id, "id");
            rules = List.copyOf(rules);
            requireNonNull(blockMessage, "blockMessage");
            requireNonNull(next, "next");
        }
    }

    /**
     * One rule; {@code streamWindow} is how many of a stream's last characters may hold the start of a match not yet
     * complete: a keyword's length, or a regular expression's bounded window.
     */
    record ContentRule(
            Pattern pattern, RuleAction action, String tag, boolean onInput, boolean onOutput, int streamWindow) {
        public ContentRule {
            requireNonNull(pattern, "pattern");
            requireNonNull(action, "action");
            requireNonNull(tag, "tag");
            if (streamWindow < 1) {
                throw new IllegalArgumentException("a rule's stream window holds at least one character");
            }
        }
    }

    enum RuleAction {
        BLOCK,
        REDACT,
        TAG
    }

    /**
     * Finds personal data and secrets in the request's text, the answer's, or both ({@link PiiScanner}) and redacts
     * them, refuses the request (or the answer), or tags it ({@code pii:<kind>} for each kind found).
     */
    record Pii(
            String id,
            Set<PiiScanner.Kind> kinds,
            RuleAction action,
            String blockMessage,
            boolean onInput,
            boolean onOutput,
            String next)
            implements PlanStep {
        public Pii {
            requireNonNull(id, "id");
            kinds = Set.copyOf(kinds);
            requireNonNull(action, "action");
            requireNonNull(blockMessage, "blockMessage");
            requireNonNull(next, "next");
        }
    }

    /** Adds (or puts in place of the caller's) a system message rendered from a template. */
    record SystemPrompt(String id, String template, PromptMode mode, String next) implements PlanStep {
        public SystemPrompt {
            requireNonNull(id, "id");
            requireNonNull(template, "template");
            requireNonNull(mode, "mode");
            requireNonNull(next, "next");
        }
    }

    enum PromptMode {
        PREPEND,
        APPEND,
        REPLACE
    }

    /** Caps, refuses, clamps and fills request fields. */
    record RequestLimits(
            String id,
            OptionalInt maxTokens,
            List<String> blockedParams,
            Optional<Range> temperature,
            ObjectNode defaults,
            String next)
            implements PlanStep {
        public RequestLimits {
            requireNonNull(id, "id");
            requireNonNull(maxTokens, "maxTokens");
            blockedParams = List.copyOf(blockedParams);
            requireNonNull(temperature, "temperature");
            defaults = requireNonNull(defaults, "defaults").deepCopy();
            requireNonNull(next, "next");
        }

        @Override
        public ObjectNode defaults() {
            return defaults.deepCopy();
        }
    }

    record Range(double min, double max) {}

    /** Answers itself, from a template, without any endpoint: the route ends here. */
    record CannedResponse(String id, String template) implements PlanStep {
        public CannedResponse {
            requireNonNull(id, "id");
            requireNonNull(template, "template");
        }
    }

    /** Lets so many requests through per window and key, then answers 429 until the window ends. */
    record RateLimit(String id, RateLimiter.Limit limit, LimitKey per, Optional<String> header, String next)
            implements PlanStep {
        public RateLimit {
            requireNonNull(id, "id");
            requireNonNull(limit, "limit");
            requireNonNull(per, "per");
            requireNonNull(header, "header");
            requireNonNull(next, "next");
        }
    }

    enum LimitKey {
        ROUTER,
        TOKEN,
        HEADER
    }

    /**
     * Asks the studio a template's question about the request and branches on the answer ({@code decide.answer},
     * {@code decide.probability}); goes to {@code fallback} when the studio would not act on it.
     */
    record Decide(
            String id, String template, String input, List<Branch> branches, String fallback, Optional<String> next)
            implements PlanStep {
        public Decide {
            requireNonNull(id, "id");
            requireNonNull(template, "template");
            requireNonNull(input, "input");
            branches = List.copyOf(branches);
            requireNonNull(fallback, "fallback");
            requireNonNull(next, "next");
        }
    }

    /** Forwards to a running deployment of a registry model on a cluster, the least busy when there are several. */
    record LocalModel(String id, String model, String cluster) implements PlanStep {
        public LocalModel {
            requireNonNull(id, "id");
            requireNonNull(model, "model");
            requireNonNull(cluster, "cluster");
        }
    }

    /**
     * Answers from the router's cache when it kept an answer to the request (the walk ends there); otherwise goes on
     * to {@code next}, and the answer the request gets is kept.
     */
    record Cache(String id, AnswerCache.Settings settings, CacheScope per, boolean cacheSampled, String next)
            implements PlanStep {
        public Cache {
            requireNonNull(id, "id");
            requireNonNull(settings, "settings");
            requireNonNull(per, "per");
            requireNonNull(next, "next");
        }
    }

    /** Whose answers a cache step shares: a project's callers', or one key's. */
    enum CacheScope {
        PROJECT,
        KEY
    }
}
