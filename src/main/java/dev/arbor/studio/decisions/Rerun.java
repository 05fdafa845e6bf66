package dev.arbor.studio.decisions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.QuestionType;
import dev.arbor.studio.history.StoredDecision;
import dev.arbor.studio.questions.Primitives;
import java.util.Set;

/**
 * Builds the create body that runs a stored decision again: the same template version (or state and questions),
 * variables, added and skipped questions, the caller's own settings and metadata, on the same model, unless the
 * rerun body changes {@code model}, {@code template}, {@code settings}, {@code variables}, {@code store} or
 * {@code include}. Sensitive values were never kept, so they must be sent again.
 */
final class Rerun {
    private static final Set<String> CHANGES = Set.of("model", "template", "settings", "variables", "store", "include");

    ObjectNode body(StoredDecision original, ObjectNode changes) {
        requireNonNull(original, "original");
        for (var names = changes.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!CHANGES.contains(name)) {
                throw ApiException.of(
                        ErrorCode.INVALID_FIELD,
                        name,
                        "`" + name + "` cannot be changed on a rerun; "
                                + "send model, template, settings, variables, store or include.");
            }
        }
        ObjectNode input = original.input()
                .orElseThrow(() -> unavailable(
                        original, "it was stored " + original.storage().wire() + ", so its input was not kept", null));
        if (input.has("redacted")) {
            throw unavailable(original, "its input was redacted", null);
        }
        ArrayNode media = media(original, input, changes);
        ObjectNode stored = original.body();
        ObjectNode body = Json.object();
        JsonNode template = stored.path("template");
        if (changes.has("template") || template.isObject()) {
            body.set(
                    "template",
                    changes.has("template")
                            ? changes.get("template")
                            : Json.mapper()
                                    .valueToTree(template.path("id").asText() + "@"
                                            + template.path("version").asInt()));
            JsonNode variables = input.path("variables");
            if (variables.isObject()) {
                ObjectNode merged = ((ObjectNode) variables).deepCopy();
                changes.path("variables").properties().forEach(e -> merged.set(e.getKey(), e.getValue()));
                merged.properties().forEach(e -> {
                    if (e.getValue().has("$redacted")) {
                        throw unavailable(
                                original,
                                "`" + e.getKey() + "` is sensitive and was not kept; send it in " + "`variables`",
                                ParamPath.key("variables", e.getKey()));
                    }
                });
                body.set("variables", merged);
            } else {
                body.set("state", input.get("state"));
            }
            JsonNode extensions = stored.path("extensions");
            if (!extensions.path("skipped").isEmpty()) {
                body.set("skip", extensions.get("skipped"));
            }
            ObjectNode asked = (ObjectNode) input.path("questions");
            if (!extensions.path("options").isEmpty()) {
                ObjectNode added = body.putObject("add_options");
                extensions.get("options").properties().forEach(e -> {
                    JsonNode criteria = asked.path(e.getKey()).path("criteria");
                    if (QuestionType.NUMBER
                            .wire()
                            .equals(asked.path(e.getKey()).path("type").asText())) {
                        var values = added.putArray(e.getKey());
                        e.getValue().forEach(v -> values.add(Json.mapper().valueToTree(Primitives.value(v.asText()))));
                    } else {
                        ObjectNode options = added.putObject(e.getKey());
                        e.getValue().forEach(name -> options.set(name.asText(), criteria.path(name.asText())));
                    }
                });
            }
            if (!extensions.path("questions").isEmpty()) {
                ObjectNode extras = body.putObject("questions");
                extensions.get("questions").forEach(key -> extras.set(key.asText(), asked.get(key.asText())));
            }
        } else {
            body.set("state", input.get("state"));
            body.set("questions", input.get("questions"));
            if (changes.has("variables")) {
                body.set("variables", changes.get("variables"));
            }
        }
        if (!media.isEmpty()) {
            body.set("media", media);
        }
        body.set("settings", changes.has("settings") ? changes.get("settings") : requestSettings(stored));
        JsonNode model = changes.has("model") ? changes.get("model") : stored.path("model");
        if (!model.isMissingNode() && !model.isNull()) {
            body.set("model", model);
        }
        body.set(
                "store",
                changes.has("store")
                        ? changes.get("store")
                        : Json.mapper().valueToTree(original.storage().wire()));
        if (changes.has("include")) {
            body.set("include", changes.get("include"));
        }
        body.set("metadata", original.metadata());
        return body;
    }

    /**
     * The media sent beside the variables, by the files history kept. A media variable travels in the variables
     * (as its file id); one whose bytes were not kept must be sent again, like a sensitive value.
     */
    private static ArrayNode media(StoredDecision original, ObjectNode input, ObjectNode changes) {
        ArrayNode media = Json.mapper().createArrayNode();
        for (JsonNode item : input.path("media")) {
            String variable = item.path("variable").textValue();
            boolean resent = variable != null && changes.path("variables").has(variable);
            if (!resent && !item.path("available").asBoolean()) {
                throw unavailable(
                        original,
                        variable == null
                                ? "its media were not kept (or were deleted)"
                                : "the file of `" + variable
                                        + "` was not kept (or was deleted); send it in `variables`",
                        variable == null ? "media" : ParamPath.key("variables", variable));
            }
            if (variable == null) {
                ObjectNode again = media.addObject();
                again.put("type", item.path("type").asText());
                again.put("file_id", item.path("file_id").asText());
                if (item.path("name").isTextual()) {
                    again.put("name", item.path("name").textValue());
                }
            }
        }
        return media;
    }

    /** The settings the caller sent, read back from where each effective setting came from. */
    private static ObjectNode requestSettings(ObjectNode stored) {
        JsonNode settings = stored.path("settings");
        ObjectNode request = Json.object();
        settings.path("sources").properties().forEach(e -> {
            String path = e.getKey();
            String layer = e.getValue().asText();
            if (layer.equals("request")) {
                request.set(path, settings.get(path));
            } else if (layer.equals("request.questions")) {
                String[] parts = path.split("\\.", 3); // questions.<key>.<setting>
                ObjectNode own = request.has("questions")
                        ? (ObjectNode) request.get("questions")
                        : request.putObject("questions");
                ObjectNode question = own.has(parts[1]) ? (ObjectNode) own.get(parts[1]) : own.putObject(parts[1]);
                question.set(parts[2], settings.path("questions").path(parts[1]).get(parts[2]));
            }
        });
        return request;
    }

    private static ApiException unavailable(StoredDecision original, String why, String param) {
        return ApiException.of(
                ErrorCode.INPUT_UNAVAILABLE, param, "Decision " + original.id() + " cannot be run again: " + why + ".");
    }
}
