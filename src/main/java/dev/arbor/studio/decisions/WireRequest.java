package dev.arbor.studio.decisions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.errors.WarningCode;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.Metadata;
import dev.arbor.studio.history.StoreLevel;
import dev.arbor.studio.planning.DecisionRequest;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A single-request body ({@code POST /v1/decide}) read as the studio's decision body: {@code model}, {@code state}
 * and {@code questions} are required; {@code media} is kept; of {@code settings} only {@code temperature} and an
 * {@code act_threshold} in range; {@code store} and {@code metadata} (with their headers, {@code X-Studio-Store}
 * and {@code X-Studio-Metadata}) only where the studio would take them, the rest ignored with a warning.
 *
 * @param model the model as the caller named it (a deployment, perhaps)
 * @param warnings the codes of what was ignored, for {@code x-studio-warning}
 */
record WireRequest(JsonNode model, ObjectNode studioBody, List<String> warnings) {
    WireRequest {
        warnings = List.copyOf(warnings); // in the order they arose, as x-studio-warning lists them
    }

    /** Reads {@code sent} and the two headers; refuses a body without a model, a state or questions. */
    static WireRequest read(ObjectNode sent, @Nullable String storeHeader, @Nullable String metadataHeader) {
        var warnings = new LinkedHashSet<String>();
        var problems = new Problems();
        JsonNode model = sent.get("model");
        if (model == null || model.isNull()) {
            problems.add(ErrorCode.MISSING_FIELD, "model", "`model` is required: a model id.");
        }
        if (sent.get("state") == null || sent.get("state").isNull()) {
            problems.add(ErrorCode.MISSING_FIELD, "state", "`state` is required: the situation to decide about.");
        }
        if (sent.get("questions") == null || sent.get("questions").isNull()) {
            problems.add(ErrorCode.MISSING_FIELD, "questions", "`questions` is required.");
        }
        problems.throwIfAny();
        ObjectNode body = Json.object();
        body.set("model", model);
        body.set("state", sent.get("state"));
        body.set("questions", sent.get("questions"));
        if (sent.has("media")) {
            body.set("media", sent.get("media"));
        }
        settings(sent.get("settings")).ifPresent(settings -> body.set("settings", settings));
        store(sent, storeHeader, warnings).ifPresent(level -> body.put("store", level.wire()));
        metadata(sent, metadataHeader, warnings).ifPresent(metadata -> body.set("metadata", metadata));
        return new WireRequest(requireModel(model), body, List.copyOf(warnings));
    }

    /** The model as the caller named it, when it is a name (a deployment's, perhaps). */
    Optional<String> modelName() {
        return model.isTextual() ? Optional.of(model.textValue()) : Optional.empty();
    }

    /** The studio's decision request, for {@code modelId} when a deployment serves the model named. */
    DecisionRequest decisionRequest(Optional<String> modelId) {
        ObjectNode body = studioBody.deepCopy();
        modelId.ifPresent(id -> body.put("model", id));
        return DecisionRequest.parse(body);
    }

    private static JsonNode requireModel(@Nullable JsonNode model) {
        if (model == null) {
            throw new IllegalStateException("checked above");
        }
        return model;
    }

    /** {@code temperature}, and {@code act_threshold} for the stored gate when it is in range; the rest ignored. */
    private static Optional<ObjectNode> settings(JsonNode sent) {
        if (sent == null || !sent.isObject()) {
            return Optional.empty();
        }
        ObjectNode settings = Json.object();
        if (sent.has("temperature")) {
            settings.set("temperature", sent.get("temperature"));
        }
        JsonNode act = sent.path("act_threshold");
        if (act.isNumber() && act.doubleValue() > 0 && act.doubleValue() <= 1) {
            settings.set("act_threshold", act);
        }
        return Optional.of(settings);
    }

    /** The more private of the body's {@code store} and {@code X-Studio-Store}; unusable values are ignored. */
    private static Optional<StoreLevel> store(ObjectNode sent, @Nullable String storeHeader, Set<String> warnings) {
        Optional<StoreLevel> level = Optional.empty();
        for (JsonNode value : new JsonNode[] {sent.get("store"), header(storeHeader)}) {
            if (value == null || value.isNull()) {
                continue;
            }
            Optional<StoreLevel> parsed = StoreLevel.parse(value);
            if (parsed.isEmpty()) {
                warnings.add(WarningCode.STORE_IGNORED.code());
            } else {
                level = Optional.of(level.map(l -> l.mostPrivate(parsed.get())).orElse(parsed.get()));
            }
        }
        return level;
    }

    /** The body's {@code metadata} over {@code X-Studio-Metadata} ({@code k=v; k2=v2}); unusable ones ignored. */
    private static Optional<ObjectNode> metadata(ObjectNode sent, @Nullable String header, Set<String> warnings) {
        ObjectNode merged = Json.object();
        if (header != null && !header.isBlank()) {
            ObjectNode fromHeader = Json.object();
            boolean ok = true;
            for (String pair : header.split(";")) {
                int eq = pair.indexOf('=');
                if (eq <= 0) {
                    ok = false;
                    break;
                }
                try {
                    fromHeader.put(
                            pair.substring(0, eq).trim(),
                            URLDecoder.decode(pair.substring(eq + 1).trim(), StandardCharsets.UTF_8));
                } catch (IllegalArgumentException e) {
                    ok = false;
                    break;
                }
            }
            if (ok && Metadata.check(fromHeader, "metadata", new Problems()).isPresent()) {
                merged.setAll(fromHeader);
            } else {
                warnings.add(WarningCode.METADATA_IGNORED.code());
            }
        }
        JsonNode body = sent.get("metadata");
        if (body != null && !body.isNull()) {
            if (Metadata.check(body, "metadata", new Problems()).isPresent()) {
                merged.setAll((ObjectNode) body);
            } else {
                warnings.add(WarningCode.METADATA_IGNORED.code());
            }
        }
        if (merged.isEmpty()) {
            return Optional.empty();
        }
        if (Metadata.check(merged, "metadata", new Problems()).isEmpty()) {
            warnings.add(WarningCode.METADATA_IGNORED.code());
            return Optional.empty();
        }
        return Optional.of(merged);
    }

    private static @Nullable JsonNode header(@Nullable String value) {
        return value == null ? null : Json.mapper().valueToTree(value);
    }
}
