package dev.arbor.inference;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.inference.openai.InferenceRequest;
import dev.arbor.inference.openai.OpenAiAnswers;
import dev.arbor.inference.openai.Operation;
import dev.arbor.inference.openai.StreamEdit;
import dev.arbor.inference.openai.TopLevel;
import dev.arbor.inference.usage.Outcome;
import dev.arbor.models.engines.ReplicaSet;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.json.Json;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Serves OpenAI-compatible requests from a deployment's replicas on this machine, in-process: a chat completion
 * (whole, or streamed as OpenAI's chunks) from a model that generates, embeddings (floats, or base64 of little-endian
 * float32 as OpenAI's clients ask by default) from one that embeds. What the model cannot serve is 400
 * {@code model_capability_unsupported}; a body it cannot read is 400 with every problem listed.
 */
final class ReplicaServing {
    /** The tokens a chat completion may generate when the request sets no limit. */
    static final int DEFAULT_MAX_TOKENS = 256;

    private static final Set<String> ROLES = Set.of("system", "developer", "user", "assistant");

    private final Clock clock;

    ReplicaServing(Clock clock) {
        this.clock = requireNonNull(clock, "clock");
    }

    /** A whole answer, and the tokens it came to. */
    record Answered(byte[] body, TopLevel.Usage usage) {}

    /** How a stream ended: it went to the caller whole, broke off after its first byte, or the caller left. */
    record Streamed(Outcome outcome, TopLevel.Usage usage) {}

    /** 400 {@code model_capability_unsupported} unless the deployment's model can serve this operation. */
    static void requireCapability(ReplicaSet replicas, Operation operation, String deployment) {
        ReplicaSet.Capability needed = switch (operation) {
            case CHAT_COMPLETIONS, COMPLETIONS -> ReplicaSet.Capability.GENERATE;
            case EMBEDDINGS -> ReplicaSet.Capability.EMBED;
        };
        if (!replicas.capabilities().contains(needed)) {
            throw ApiException.of(
                    ErrorCode.MODEL_CAPABILITY_UNSUPPORTED,
                    "model",
                    "Deployment '" + deployment + "' serves model '" + replicas.modelId() + "', which "
                            + capabilities(replicas) + ": it cannot answer " + operation.path() + ".");
        }
    }

    private static String capabilities(ReplicaSet replicas) {
        List<String> serves = replicas.capabilities().stream()
                .map(c -> switch (c) {
                    case SCORE -> "decides (/v1/decide)";
                    case EMBED -> "embeds (/v1/embeddings)";
                    case GENERATE -> "generates (/v1/chat/completions)";
                })
                .toList();
        return serves.isEmpty() ? "serves nothing" : String.join(" and ", serves);
    }

    /**
     * Answers a request whole: a chat completion, a text completion or embeddings. The routing timeout bounds the wait
     * for embeddings, and for each piece of a generation: past it, 504 {@code upstream_timeout} as from an endpoint.
     */
    Answered whole(ReplicaSet replicas, InferenceRequest request, Duration timeout) {
        try {
            return answered(replicas, request, timeout);
        } catch (ApiException e) {
            throw routed(e);
        }
    }

    private Answered answered(ReplicaSet replicas, InferenceRequest request, Duration timeout) {
        ObjectNode body = Json.parseObject(request.body());
        return switch (request.operation()) {
            case CHAT_COMPLETIONS ->
                generated(
                        replicas,
                        generation(body, chat(body)),
                        timeout,
                        request.model(),
                        OpenAiAnswers.Identity::chat,
                        OpenAiAnswers::chatCompletion);
            case COMPLETIONS ->
                generated(
                        replicas,
                        generation(body, prompt(body)),
                        timeout,
                        request.model(),
                        OpenAiAnswers.Identity::text,
                        OpenAiAnswers::textCompletion);
            case EMBEDDINGS -> embeddings(replicas, request, body, timeout);
        };
    }

    /** A whole completion's shape: {@link OpenAiAnswers#chatCompletion} or {@link OpenAiAnswers#textCompletion}. */
    @FunctionalInterface
    private interface Completion {
        Map<String, Object> of(
                OpenAiAnswers.Identity identity,
                String text,
                String finishReason,
                long promptTokens,
                long completionTokens);
    }

    /** Generates the whole answer; it is made, and named, when the model has finished. */
    private Answered generated(
            ReplicaSet replicas,
            ReplicaSet.GenerationRequest asked,
            Duration timeout,
            String model,
            BiFunction<Long, String, OpenAiAnswers.Identity> identity,
            Completion completion) {
        ReplicaSet.Generation generation = replicas.generate(asked, timeout, delta -> {});
        return new Answered(
                Json.write(completion.of(
                        identity.apply(clock.millis() / 1000, model),
                        generation.text(),
                        generation.finishReason(),
                        generation.promptTokens(),
                        generation.completionTokens())),
                usage(generation));
    }

    /**
     * Streams a chat completion: the role first, each piece of text as the model makes it, the finish reason, usage
     * when asked, then {@code [DONE]}. {@code open} commits the answer at the first piece: a failure before it throws
     * (the caller may still fall back), one after it ends the stream with an error event. A router's {@code edit}
     * (its output rules) sees every chunk, and ends the stream with its refusal ({@code blocked}) when it refuses one.
     */
    Streamed stream(
            ReplicaSet replicas,
            InferenceRequest request,
            Duration timeout,
            Supplier<OutputStream> open,
            Optional<StreamEdit> edit) {
        ObjectNode body = Json.parseObject(request.body());
        if (request.operation() != Operation.CHAT_COMPLETIONS) {
            throw ApiException.of(
                    ErrorCode.INVALID_FIELD,
                    "stream",
                    "A deployment streams chat completions only: send "
                            + request.operation().path() + " without `stream`.");
        }
        ReplicaSet.GenerationRequest asked = generation(body, chat(body));
        boolean includeUsage = body.path("stream_options").path("include_usage").asBoolean(false);
        var identity = OpenAiAnswers.Identity.chat(clock.millis() / 1000, request.model());
        var stream = new Stream(open, identity, edit);
        ReplicaSet.Generation generation;
        try {
            generation = replicas.generate(asked, timeout, stream::piece);
        } catch (UncheckedIOException e) {
            return new Streamed(Outcome.CLIENT_CLOSED, TopLevel.Usage.NONE);
        } catch (Refused refused) {
            return stream.brokeOff(refused.refusal, Outcome.BLOCKED);
        } catch (ApiException e) {
            ApiException failure = routed(e);
            if (!stream.started()) {
                throw failure;
            }
            return stream.brokeOff(
                    failure, failure.code() == ErrorCode.UPSTREAM_TIMEOUT ? Outcome.TIMEOUT : Outcome.STREAM_BROKEN);
        }
        try {
            stream.out();
            stream.write(OpenAiAnswers.chatChunk(identity, Map.of(), generation.finishReason()));
            if (includeUsage) {
                stream.write(
                        OpenAiAnswers.usageChunk(identity, generation.promptTokens(), generation.completionTokens()));
            }
            stream.end();
        } catch (UncheckedIOException e) {
            return new Streamed(Outcome.CLIENT_CLOSED, usage(generation));
        } catch (Refused refused) {
            return stream.brokeOff(refused.refusal, Outcome.BLOCKED);
        }
        return new Streamed(Outcome.OK, usage(generation));
    }

    /** A router's output rules refused a chunk: the stream ends with their refusal. */
    private static final class Refused extends RuntimeException {
        private final ApiException refusal;

        Refused(ApiException refusal) {
            super(refusal.getMessage(), null, false, false);
            this.refusal = refusal;
        }
    }

    /** A stream on its way: opened at its first piece, which carries the role as OpenAI's first chunk does. */
    private static final class Stream {
        private final Supplier<OutputStream> open;
        private final OpenAiAnswers.Identity identity;
        private final Optional<StreamEdit> edit;
        private @Nullable OutputStream out;
        private Optional<ObjectNode> last = Optional.empty();

        Stream(Supplier<OutputStream> open, OpenAiAnswers.Identity identity, Optional<StreamEdit> edit) {
            this.open = open;
            this.identity = identity;
            this.edit = edit.map(StreamEdit::forAttempt);
        }

        boolean started() {
            return out != null;
        }

        OutputStream out() {
            if (out == null) {
                out = open.get();
                write(OpenAiAnswers.chatChunk(identity, Map.of("role", "assistant", "content", ""), null));
            }
            return out;
        }

        void piece(String text) {
            out();
            if (!text.isEmpty()) {
                write(OpenAiAnswers.chatChunk(identity, Map.of("content", text), null));
            }
        }

        void write(Map<String, Object> chunk) {
            if (edit.isEmpty()) {
                send(chunk);
                return;
            }
            ObjectNode node = Json.mapper().valueToTree(chunk);
            last = Optional.of(node);
            try {
                send(edit.get().chunk(node));
            } catch (ApiException refusal) {
                throw new Refused(refusal);
            }
        }

        /** What the edit held back and its comments, then {@code [DONE]}. */
        void end() {
            if (edit.isPresent() && last.isPresent()) {
                StreamEdit.Ending ending = edit.get().finish(last.get());
                ending.heldBack().ifPresent(this::send);
                for (String comment : ending.comments()) {
                    raw((": " + comment.replaceAll("[\\r\\n]", " ") + "\n\n").getBytes(StandardCharsets.UTF_8));
                }
                edit.get().done();
            }
            raw(OpenAiAnswers.done());
        }

        private void send(Object chunk) {
            raw(OpenAiAnswers.event(chunk));
        }

        private void raw(byte[] bytes) {
            OutputStream open = requireNonNull(out, "opened by out()");
            try {
                open.write(bytes);
                open.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        Streamed brokeOff(ApiException e, Outcome outcome) {
            try {
                Routing.errorEvent(out(), e);
            } catch (IOException | UncheckedIOException gone) {
                return new Streamed(Outcome.CLIENT_CLOSED, TopLevel.Usage.NONE);
            }
            return new Streamed(outcome, TopLevel.Usage.NONE);
        }
    }

    /**
     * A model that did not answer in time, as an endpoint that did not: 504 {@code upstream_timeout}, whichever
     * timeout ended it (the routing timeout, or the model's own when that is shorter); other failures as they are.
     */
    private static ApiException routed(ApiException e) {
        if (e.code() != ErrorCode.MODEL_TIMEOUT) {
            return e;
        }
        return ApiException.of(
                ErrorCode.UPSTREAM_TIMEOUT, e.problems().getFirst().message());
    }

    private Answered embeddings(ReplicaSet replicas, InferenceRequest request, ObjectNode body, Duration timeout) {
        var problems = new Problems();
        List<String> inputs = texts(body.get("input"), "input", problems);
        JsonNode format = body.path("encoding_format");
        boolean base64 = format.isTextual() && format.textValue().equals("base64");
        if (!format.isMissingNode()
                && !format.isNull()
                && !(format.isTextual() && Set.of("float", "base64").contains(format.textValue()))) {
            problems.add(ErrorCode.INVALID_FIELD, "encoding_format", "`encoding_format` may be float or base64.");
        }
        problems.throwIfAny();
        ReplicaSet.Embeddings embeddings = replicas.embed(inputs, timeout);
        List<Object> vectors = new ArrayList<>();
        for (float[] vector : embeddings.vectors()) {
            vectors.add(base64 ? base64(vector) : floats(vector));
        }
        return new Answered(
                Json.write(OpenAiAnswers.embeddings(request.model(), vectors, embeddings.inputTokens())),
                new TopLevel.Usage(OptionalLong.of(embeddings.inputTokens()), OptionalLong.empty()));
    }

    private static List<Float> floats(float[] vector) {
        var floats = new ArrayList<Float>(vector.length);
        for (float value : vector) {
            floats.add(value);
        }
        return floats;
    }

    private static String base64(float[] vector) {
        ByteBuffer bytes = ByteBuffer.allocate(vector.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (float value : vector) {
            bytes.putFloat(value);
        }
        return Base64.getEncoder().encodeToString(bytes.array());
    }

    /** The conversation of a chat request: each message's role and text (text parts joined). */
    private static List<ReplicaSet.Message> chat(ObjectNode body) {
        var problems = new Problems();
        var messages = new ArrayList<ReplicaSet.Message>();
        JsonNode sent = body.get("messages");
        if (sent == null || !sent.isArray() || sent.isEmpty()) {
            problems.add(
                    sent == null ? ErrorCode.MISSING_FIELD : ErrorCode.INVALID_FIELD,
                    "messages",
                    "`messages` must be a non-empty list of {role, content}.");
        } else {
            for (int i = 0; i < sent.size(); i++) {
                message(sent.get(i), "messages[" + i + "]", problems).ifPresent(messages::add);
            }
        }
        problems.throwIfAny();
        return messages;
    }

    private static Optional<ReplicaSet.Message> message(JsonNode message, String at, Problems problems) {
        String role = message.path("role").asText("");
        if (!ROLES.contains(role)) {
            problems.add(ErrorCode.INVALID_FIELD, at + ".role", "`role` may be system, developer, user or assistant.");
            return Optional.empty();
        }
        JsonNode content = message.path("content");
        String text;
        if (content.isTextual()) {
            text = content.textValue();
        } else if (content.isNull() && role.equals("assistant")) {
            text = "";
        } else if (content.isArray()) {
            var joined = new StringBuilder();
            for (int p = 0; p < content.size(); p++) {
                JsonNode part = content.get(p);
                if (!part.path("type").asText().equals("text")
                        || !part.path("text").isTextual()) {
                    problems.add(
                            ErrorCode.INVALID_FIELD,
                            at + ".content[" + p + "]",
                            "A deployment reads text parts only ({type: text, text}).");
                    return Optional.empty();
                }
                joined.append(part.path("text").textValue());
            }
            text = joined.toString();
        } else {
            problems.add(ErrorCode.INVALID_FIELD, at + ".content", "`content` must be text or a list of text parts.");
            return Optional.empty();
        }
        return Optional.of(new ReplicaSet.Message(role.equals("developer") ? "system" : role, text));
    }

    /** A text completion's prompt, as the one user message of a conversation. */
    private static List<ReplicaSet.Message> prompt(ObjectNode body) {
        var problems = new Problems();
        JsonNode prompt = body.get("prompt");
        if (prompt == null || !prompt.isTextual()) {
            problems.add(
                    prompt == null ? ErrorCode.MISSING_FIELD : ErrorCode.INVALID_FIELD,
                    "prompt",
                    "`prompt` must be text (a deployment takes one prompt a request).");
        }
        problems.throwIfAny();
        return List.of(new ReplicaSet.Message("user", prompt.textValue()));
    }

    /** The sampling settings of a chat or text completion request; every problem of them at once. */
    private static ReplicaSet.GenerationRequest generation(ObjectNode body, List<ReplicaSet.Message> messages) {
        var problems = new Problems();
        int maxTokens = DEFAULT_MAX_TOKENS;
        for (String field : List.of("max_tokens", "max_completion_tokens")) {
            JsonNode value = body.get(field);
            if (value == null || value.isNull()) {
                continue;
            }
            if (!value.canConvertToInt() || !value.isIntegralNumber() || value.intValue() < 1) {
                problems.add(ErrorCode.INVALID_FIELD, field, "`" + field + "` must be a whole number from 1.");
            } else {
                maxTokens = value.intValue();
            }
        }
        double temperature = number(body, "temperature", 1.0, 0, 2, problems);
        double topP = number(body, "top_p", 1.0, 0, 1, problems);
        JsonNode n = body.get("n");
        if (n != null && !n.isNull() && !(n.isIntegralNumber() && n.intValue() == 1)) {
            problems.add(ErrorCode.INVALID_FIELD, "n", "A deployment answers one choice a request: `n` may be 1.");
        }
        List<String> stop = stop(body.get("stop"), problems);
        Optional<Long> seed = Optional.empty();
        JsonNode sentSeed = body.get("seed");
        if (sentSeed != null && !sentSeed.isNull()) {
            if (sentSeed.isIntegralNumber() && sentSeed.canConvertToLong()) {
                seed = Optional.of(sentSeed.longValue());
            } else {
                problems.add(ErrorCode.INVALID_FIELD, "seed", "`seed` must be a whole number.");
            }
        }
        problems.throwIfAny();
        return new ReplicaSet.GenerationRequest(messages, maxTokens, temperature, topP, stop, seed);
    }

    private static double number(ObjectNode body, String field, double otherwise, double min, double max, Problems p) {
        JsonNode value = body.get(field);
        if (value == null || value.isNull()) {
            return otherwise;
        }
        if (!value.isNumber() || value.doubleValue() < min || value.doubleValue() > max) {
            p.add(ErrorCode.INVALID_FIELD, field, "`" + field + "` must be a number from " + min + " to " + max + ".");
            return otherwise;
        }
        return value.doubleValue();
    }

    private static List<String> stop(JsonNode stop, Problems problems) {
        if (stop == null || stop.isNull()) {
            return List.of();
        }
        if (stop.isTextual()) {
            return List.of(stop.textValue());
        }
        List<String> texts = texts(stop, "stop", problems);
        if (texts.size() > 4) {
            problems.add(ErrorCode.INVALID_FIELD, "stop", "`stop` takes up to 4 sequences.");
        }
        return texts;
    }

    /** A text or a non-empty list of texts (each non-empty), as {@code input} and {@code stop} take them. */
    private static List<String> texts(JsonNode value, String field, Problems problems) {
        if (value == null) {
            problems.add(ErrorCode.MISSING_FIELD, field, "`" + field + "` is required: a text or a list of texts.");
            return List.of();
        }
        if (value.isTextual() && !value.textValue().isEmpty()) {
            return List.of(value.textValue());
        }
        if (!value.isArray() || value.isEmpty()) {
            problems.add(ErrorCode.INVALID_FIELD, field, "`" + field + "` must be a non-empty text or list of texts.");
            return List.of();
        }
        var texts = new ArrayList<String>();
        for (int i = 0; i < value.size(); i++) {
            JsonNode item = value.get(i);
            if (item.isTextual() && !item.textValue().isEmpty()) {
                texts.add(item.textValue());
            } else {
                problems.add(ErrorCode.INVALID_FIELD, field + "[" + i + "]", "Each item must be a non-empty text.");
            }
        }
        return texts;
    }

    private static TopLevel.Usage usage(ReplicaSet.Generation generation) {
        return new TopLevel.Usage(
                OptionalLong.of(generation.promptTokens()), OptionalLong.of(generation.completionTokens()));
    }
}
