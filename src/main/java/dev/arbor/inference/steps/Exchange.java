package dev.arbor.inference.steps;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.arbor.inference.cache.AnswerCache;
import dev.arbor.inference.cache.CacheRequest;
import dev.arbor.inference.openai.InferenceRequest;
import dev.arbor.inference.openai.Operation;
import dev.arbor.platform.actions.Expressions;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.tracing.Traced;
import io.opentelemetry.api.trace.SpanKind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * A request on its way through a router (and the routers it delegates to): its body as the steps have changed it, its
 * headers (lower-case names), the model it asks a provider for, the tags earlier steps set, and the routers and steps
 * walked so far. Only the walking thread touches it.
 */
final class Exchange {
    private final InferenceRequest original;
    private final Optional<String> askedModel;
    private @Nullable ObjectNode
            body; // read when a step first needs it: a router that only routes forwards the bytes as sent
    private final Map<String, String> headers;
    private final Set<String> tags = new LinkedHashSet<>();
    private final List<String> routers = new ArrayList<>();
    private final List<String> walked = new ArrayList<>();
    private final List<OutputRule> outputRules = new ArrayList<>();
    private final List<PlanStep.Pii> piiOutput = new ArrayList<>();
    private boolean changed;
    private Optional<CacheMiss> cacheMiss = Optional.empty();
    private @Nullable Traced step;

    Exchange(InferenceRequest original, Optional<String> askedModel, Map<String, String> headers) {
        this.original = requireNonNull(original, "original");
        this.askedModel = requireNonNull(askedModel, "askedModel");
        var lower = new LinkedHashMap<String, String>();
        headers.forEach((name, value) -> lower.putIfAbsent(name.toLowerCase(Locale.ROOT), value));
        this.headers = Map.copyOf(lower);
    }

    Operation operation() {
        return original.operation();
    }

    boolean stream() {
        return original.stream();
    }

    ObjectNode body() {
        if (body == null) {
            body = Json.parseObject(original.body());
        }
        return body;
    }

    /** Notes that a step changed the body, so that the endpoint gets the changed one. */
    void changed() {
        changed = true;
    }

    Map<String, String> headers() {
        return headers;
    }

    /** The model the caller asked a provider for: what follows the router's name and a slash in {@code model}. */
    Optional<String> askedModel() {
        return askedModel;
    }

    void tag(String tag) {
        tags.add(tag);
    }

    /** The tags the steps set so far. */
    Set<String> tags() {
        return Set.copyOf(tags);
    }

    /** A cache step that missed: where the answer the request gets is to be kept. */
    record CacheMiss(
            AnswerCache.Place place, CacheRequest request, AnswerCache.Settings settings, AnswerCache.Miss miss) {}

    /** Notes that a cache step missed: the answer is kept once it comes (the last cache step's, if several missed). */
    void cacheMissed(CacheMiss miss) {
        cacheMiss = Optional.of(miss);
    }

    Optional<CacheMiss> cacheMiss() {
        return cacheMiss;
    }

    /** Notes that the request enters a router (the one named, or one a step delegates to). */
    void enter(String routerId) {
        routers.add(routerId);
    }

    /** The ids of the routers entered so far, in order. */
    List<String> routers() {
        return List.copyOf(routers);
    }

    /** A content rule that applies to the answer, with its step (for its block message and the error's step). */
    record OutputRule(PlanStep.ContentRules step, PlanStep.ContentRule rule) {}

    /** Keeps a rule to apply to the answer once it comes. */
    void checkOutput(PlanStep.ContentRules step, PlanStep.ContentRule rule) {
        outputRules.add(new OutputRule(step, rule));
    }

    List<OutputRule> outputRules() {
        return List.copyOf(outputRules);
    }

    /** Keeps a pii step to apply to the answer once it comes. */
    void checkOutput(PlanStep.Pii step) {
        piiOutput.add(step);
    }

    List<PlanStep.Pii> piiOutput() {
        return List.copyOf(piiOutput);
    }

    /**
     * Walks into {@code step} of router {@code routerId}: its span (a child of the request's) is current until the
     * next step's or the walk's end, so that what the step does (an endpoint attempt, a decision) is traced under it.
     */
    void walk(PlanStep step, String routerId) {
        endStep();
        walked.add(step.id());
        String kind = step.getClass()
                .getSimpleName()
                .replaceAll("([a-z])([A-Z])", "$1_$2")
                .toLowerCase(Locale.ROOT);
        this.step = Traced.child("router step " + kind, SpanKind.INTERNAL)
                .with("arbor.router.id", routerId)
                .with("arbor.router.step", step.id())
                .with("arbor.router.step_kind", kind);
    }

    /** The walk failed in the current step. */
    void stepFailed(RuntimeException e) {
        if (step != null) {
            step.failed(
                    e instanceof ApiException api
                            ? api.code().code()
                            : e.getClass().getSimpleName(),
                    String.valueOf(e.getMessage()));
        }
    }

    /** Ends the current step's span: the walk moved on or ended. */
    void endStep() {
        if (step != null) {
            step.close();
            step = null;
        }
    }

    List<String> walked() {
        return List.copyOf(walked);
    }

    /** The request to forward: the caller's bytes as they came, or the changed body. */
    InferenceRequest request() {
        return changed ? InferenceRequest.read(original.operation(), Json.write(body())) : original;
    }

    /**
     * What conditions and templates see as {@code request}: {@code model}, {@code headers}, {@code tokens} (an
     * estimate: the characters of the messages, prompt or input over four), {@code metadata} (the body's
     * {@code metadata} object), {@code tags} and {@code text} (the messages' text, one a line).
     */
    Map<String, Object> scope() {
        String text = String.join("\n", texts());
        var request = new LinkedHashMap<String, Object>();
        request.put("model", original.model());
        request.put("headers", headers);
        request.put("tokens", (text.length() + 3) / 4);
        JsonNode metadata = body().path("metadata");
        request.put("metadata", metadata.isObject() ? Expressions.plain(metadata) : Map.of());
        request.put("tags", List.copyOf(tags));
        request.put("text", text);
        return Map.of("request", request);
    }

    /** The texts a caller sent: the messages' contents, the prompt or the input. */
    List<String> texts() {
        var texts = new ArrayList<String>();
        rewriteTexts(text -> {
            texts.add(text);
            return text;
        });
        return texts;
    }

    /** Passes every text of the request through {@code rewrite}, marking the body changed when one changes. */
    void rewriteTexts(UnaryOperator<String> rewrite) {
        switch (original.operation()) {
            case CHAT_COMPLETIONS -> {
                for (JsonNode message : body().path("messages")) {
                    if (message instanceof ObjectNode object) {
                        rewriteContent(object, "content", rewrite);
                    }
                }
            }
            case COMPLETIONS -> rewriteField(body(), "prompt", rewrite);
            case EMBEDDINGS -> rewriteField(body(), "input", rewrite);
        }
    }

    private void rewriteContent(ObjectNode message, String field, UnaryOperator<String> rewrite) {
        JsonNode content = message.path(field);
        if (content.isArray()) {
            for (JsonNode part : content) {
                if (part instanceof ObjectNode object && part.path("text").isTextual()) {
                    rewriteField(object, "text", rewrite);
                }
            }
        } else {
            rewriteField(message, field, rewrite);
        }
    }

    private void rewriteField(ObjectNode object, String field, UnaryOperator<String> rewrite) {
        JsonNode value = object.path(field);
        if (value.isTextual()) {
            String rewritten = rewrite.apply(value.textValue());
            if (!rewritten.equals(value.textValue())) {
                object.set(field, TextNode.valueOf(rewritten));
                changed = true;
            }
        } else if (value instanceof ArrayNode items) {
            for (int i = 0; i < items.size(); i++) {
                if (items.get(i).isTextual()) {
                    String rewritten = rewrite.apply(items.get(i).textValue());
                    if (!rewritten.equals(items.get(i).textValue())) {
                        items.set(i, TextNode.valueOf(rewritten));
                        changed = true;
                    }
                }
            }
        }
    }
}
