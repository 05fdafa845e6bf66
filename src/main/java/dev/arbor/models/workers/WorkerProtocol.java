package dev.arbor.models.workers;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.models.engines.ReplicaSet;
import dev.arbor.models.engines.Scoring;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.json.Json;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The messages a worker answers ({@link WorkerWire} frames of JSON), as the server writes them and reads their
 * replies; {@link Worker} is the other side. A request's {@code kind} says what it asks:
 *
 * <ul>
 *   <li>{@code score} (also when absent): {@code {state, media, questions}} → {@code {probabilities, usage:
 *       {input_tokens}}};
 *   <li>{@code embed}: {@code {inputs: [..]}} → {@code {vectors: ["..", ..], usage: {input_tokens}}}, each vector
 *       base64 of its little-endian float32 values (a reply of one vector as JSON numbers took 75–105 µs of CPU to
 *       write and read, as base64 10–12 µs);
 *   <li>{@code generate}: {@code {messages: [{role, content}], max_tokens, temperature, top_p, stop, seed}} → frames
 *       {@code {delta}} as the text comes, then {@code {text, finish_reason, usage: {prompt_tokens,
 *       completion_tokens}}}.
 * </ul>
 *
 * Every last frame has an {@code outcome}: {@code answered}, {@code refused} (the input), {@code unsupported} (a kind
 * the engine does not serve), {@code timed_out} (the server's patience passed between inputs) or {@code failed} (the
 * engine), with {@code error} saying why when not answered.
 */
public final class WorkerProtocol {
    private WorkerProtocol() {}

    enum Kind {
        SCORE,
        EMBED,
        GENERATE;

        String wire() {
            return name().toLowerCase(Locale.ROOT);
        }

        static Optional<Kind> of(String wire) {
            for (Kind kind : values()) {
                if (kind.wire().equals(wire)) {
                    return Optional.of(kind);
                }
            }
            return Optional.empty();
        }
    }

    public static byte[] score(Scoring.Request request) {
        var body = new LinkedHashMap<String, Object>();
        body.put("state", request.state());
        body.put("media", request.media());
        body.put("questions", request.questions());
        return Json.write(body);
    }

    public static byte[] embed(List<String> inputs) {
        return Json.write(Map.of("kind", Kind.EMBED.wire(), "inputs", inputs));
    }

    /** An embed request the server waits {@code patience} for: past it, the worker stops at its next input. */
    public static byte[] embed(List<String> inputs, Duration patience) {
        return Json.write(Map.of("kind", Kind.EMBED.wire(), "inputs", inputs, "patience_ms", patience.toMillis()));
    }

    public static byte[] generate(ReplicaSet.GenerationRequest request) {
        var body = new LinkedHashMap<String, Object>();
        body.put("kind", Kind.GENERATE.wire());
        body.put("messages", request.messages());
        body.put("max_tokens", request.maxTokens());
        body.put("temperature", request.temperature());
        body.put("top_p", request.topP());
        body.put("stop", request.stop());
        request.seed().ifPresent(seed -> body.put("seed", seed));
        return Json.write(body);
    }

    /**
     * Sends a request and reads its reply, handing each streamed piece of text to {@code deltas}: the answered last
     * frame, or the models' codes ({@code model_timeout}, {@code model_rejected_input},
     * {@code model_capability_unsupported}, {@code model_crashed} for a worker that failed or answered nonsense).
     * {@code model} names the model (and replica) in messages. An {@link IOException} is a worker gone: the caller
     * knows which and what follows.
     */
    public static JsonNode exchange(
            WorkerLink link, byte[] request, Duration timeout, Consumer<String> deltas, String model)
            throws IOException {
        return exchange(link, request, timeout, timeout, deltas, model);
    }

    /**
     * {@link #exchange(WorkerLink, byte[], Duration, Consumer, String)} where the answer's first part, and each next
     * piece of a generation, must also come within {@code eachPart} ({@code model_timeout} otherwise; the connection
     * is closed, which ends a generation at its next piece).
     */
    public static JsonNode exchange(
            WorkerLink link, byte[] request, Duration timeout, Duration eachPart, Consumer<String> deltas, String model)
            throws IOException {
        JsonNode reply;
        try {
            var last = new JsonNode[1];
            link.call(request, timeout, eachPart, frame -> {
                JsonNode json = Json.read(frame);
                if (json.has("outcome")) {
                    last[0] = json;
                    return false;
                }
                deltas.accept(json.path("delta").asText());
                return true;
            });
            reply = last[0];
        } catch (SocketTimeoutException e) {
            throw ApiException.of(
                    ErrorCode.MODEL_TIMEOUT,
                    "model",
                    eachPart.compareTo(timeout) < 0
                            ? model + " sent no answer, or no next part of it, within " + eachPart.toSeconds()
                                    + " seconds."
                            : model + " took longer than " + timeout.toSeconds() + " seconds to answer.");
        } catch (IOException e) {
            throw e;
        } catch (ApiException e) {
            throw e;
        } catch (RuntimeException e) {
            throw ApiException.of(ErrorCode.MODEL_CRASHED, "model", model + " answered something that is not JSON.");
        }
        return switch (reply.path("outcome").asText()) {
            case "answered" -> reply;
            case "refused" ->
                throw ApiException.of(
                        ErrorCode.MODEL_REJECTED_INPUT,
                        model + " refused the input: " + reply.path("error").asText());
            case "unsupported" ->
                throw ApiException.of(
                        ErrorCode.MODEL_CAPABILITY_UNSUPPORTED,
                        "model",
                        model + " cannot serve this: " + reply.path("error").asText());
            case "timed_out" ->
                throw ApiException.of(
                        ErrorCode.MODEL_TIMEOUT,
                        "model",
                        model + " sent no answer within " + eachPart.toSeconds() + " seconds: "
                                + reply.path("error").asText() + ".");
            default ->
                throw ApiException.of(
                        ErrorCode.MODEL_CRASHED,
                        "model",
                        model + " failed while answering: "
                                + reply.path("error").asText());
        };
    }

    public static Scoring.Answer answer(JsonNode json) {
        var probabilities = new LinkedHashMap<String, List<Double>>();
        json.path("probabilities").properties().forEach(e -> {
            var values = new ArrayList<Double>();
            e.getValue().forEach(p -> values.add(p.asDouble()));
            probabilities.put(e.getKey(), values);
        });
        return new Scoring.Answer(
                probabilities, json.path("usage").path("input_tokens").asInt());
    }

    public static ReplicaSet.Embeddings embeddings(JsonNode json) {
        var vectors = new ArrayList<float[]>();
        for (JsonNode vector : json.path("vectors")) {
            vectors.add(vector(vector.asText()));
        }
        return new ReplicaSet.Embeddings(
                vectors, json.path("usage").path("input_tokens").asInt());
    }

    /** A vector as an embed reply carries it: base64 of its values as little-endian float32. */
    public static String vector(float[] values) {
        ByteBuffer bytes = ByteBuffer.allocate(values.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        bytes.asFloatBuffer().put(values);
        return Base64.getEncoder().encodeToString(bytes.array());
    }

    /** The values of a vector written by {@link #vector(float[])}. */
    public static float[] vector(String base64) {
        FloatBuffer floats = ByteBuffer.wrap(Base64.getDecoder().decode(base64))
                .order(ByteOrder.LITTLE_ENDIAN)
                .asFloatBuffer();
        float[] values = new float[floats.remaining()];
        floats.get(values);
        return values;
    }

    public static ReplicaSet.Generation generation(JsonNode json) {
        return new ReplicaSet.Generation(
                json.path("text").asText(),
                json.path("finish_reason").asText(),
                json.path("usage").path("prompt_tokens").asInt(),
                json.path("usage").path("completion_tokens").asInt());
    }
}
