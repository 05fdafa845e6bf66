package dev.arbor.inference.openai;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problem;
import dev.arbor.platform.json.Json;
import java.util.ArrayList;

/**
 * An OpenAI-compatible request as its caller sent it: the body's bytes, kept as they are (an upstream gets them with
 * only {@code model} replaced), and what routing reads of them.
 */
public final class InferenceRequest {
    private final Operation operation;
    private final byte[] body;
    private final TopLevel fields;
    private final String model;
    private final byte[] quotedModel;

    private InferenceRequest(Operation operation, byte[] body, TopLevel fields, String model) {
        this.operation = operation;
        this.body = body;
        this.fields = fields;
        this.model = model;
        this.quotedModel = quoted(model);
    }

    /**
     * Reads a request body: a JSON object with {@code model} a non-empty string and {@code stream}, when sent, true or
     * false, and an embeddings request's {@code input} within {@link EmbeddingInputs}' bounds; 400 {@code invalid_json},
     * or {@code missing_field} and {@code invalid_field} for every field wrong.
     */
    public static InferenceRequest read(Operation operation, byte[] body) {
        requireNonNull(operation, "operation");
        requireNonNull(body, "body");
        TopLevel fields;
        try {
            fields = TopLevel.scan(body, 0, body.length);
        } catch (TopLevel.NotAnObject e) {
            throw ApiException.of(ErrorCode.INVALID_JSON, "The body must be one JSON object; " + e.getMessage() + ".");
        }
        var problems = new ArrayList<Problem>();
        if (fields.modelToken() == JsonToken.NOT_AVAILABLE) {
            problems.add(new Problem(ErrorCode.MISSING_FIELD, "model", "`model` is required: the model to answer."));
        } else if (fields.model().filter(name -> !name.isBlank()).isEmpty()) {
            problems.add(new Problem(ErrorCode.INVALID_FIELD, "model", "`model` must be a non-empty string."));
        }
        if (fields.streamToken() != JsonToken.NOT_AVAILABLE
                && fields.streamToken() != JsonToken.VALUE_NULL
                && fields.stream().isEmpty()) {
            problems.add(new Problem(ErrorCode.INVALID_FIELD, "stream", "`stream` must be true or false."));
        }
        if (operation == Operation.EMBEDDINGS) {
            EmbeddingInputs.check(body).ifPresent(problems::add);
        }
        if (!problems.isEmpty()) {
            throw ApiException.of(problems);
        }
        String model = fields.model().orElseThrow();
        return new InferenceRequest(operation, body, fields, model);
    }

    public Operation operation() {
        return operation;
    }

    /** The model as the caller named it. */
    public String model() {
        return model;
    }

    /** Whether the caller asked for server-sent events. */
    public boolean stream() {
        return fields.stream().orElse(false);
    }

    /** A copy of the body as the caller sent it. */
    public byte[] body() {
        return body.clone();
    }

    /** The body an endpoint gets: the caller's, with {@code model} the endpoint's name for it. */
    public byte[] bodyFor(String remoteModel) {
        return fields.withModel(body, 0, body.length, quoted(remoteModel));
    }

    /** {@link #model()} as a JSON string, quotes included, to put back into answers. */
    public byte[] quotedModel() {
        return quotedModel;
    }

    static byte[] quoted(String text) {
        try {
            return Json.mapper().writeValueAsBytes(text);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a string is always JSON", e);
        }
    }

    @Override
    public String toString() {
        return "InferenceRequest[" + operation + ", " + model + ", " + body.length + " bytes]";
    }
}
