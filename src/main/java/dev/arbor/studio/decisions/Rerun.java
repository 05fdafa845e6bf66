package dev.arbor.studio.decisions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.QuestionType;
import dev.arbor.studio.history.Decided;
import dev.arbor.studio.history.DecisionInput;
import dev.arbor.studio.history.Extensions;
import dev.arbor.studio.history.StoredDecision;
import dev.arbor.studio.planning.DecisionRequest;
import dev.arbor.studio.planning.MediaInput;
import dev.arbor.studio.questions.Primitives;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The request that runs a stored decision again, built from what history kept of it: the same template version (or
 * state and questions), variables, added and skipped questions, the caller's own settings and metadata, on the same
 * model, unless the rerun body changes {@code model}, {@code template}, {@code settings}, {@code variables},
 * {@code store} or {@code include}. Sensitive values were never kept, so they must be sent again.
 */
final class Rerun {
    private static final Set<String> CHANGES = Set.of("model", "template", "settings", "variables", "store", "include");

    DecisionRequest request(StoredDecision original, ObjectNode changes) {
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
        DecisionInput input = original.input()
                .orElseThrow(() -> unavailable(
                        original, "it was stored " + original.storage().wire() + ", so its input was not kept"));
        if (input.isRedacted()) {
            throw unavailable(original, "its input was redacted");
        }
        DecisionRequest changed = DecisionRequest.parse(changes);
        var problems = new Problems().addAll(changed.problems());
        List<MediaInput> media = MediaInput.parse(media(original, input, changes), problems);
        Decided stored = original.decided();
        Optional<String> template =
                changed.template().or(() -> stored.template().map(Decided.Template::pinned));
        Optional<JsonNode> variables = changed.variables();
        Optional<JsonNode> state = Optional.empty();
        Optional<DecisionRequest.Field> extras = Optional.empty();
        Optional<DecisionRequest.Field> skip = Optional.empty();
        Optional<DecisionRequest.Field> addOptions = Optional.empty();
        ObjectNode asked = input.questions();
        JsonNode sentVariables = changes.has("variables") ? changes.get("variables") : Json.object();
        if (changes.has("template") || stored.template().isPresent()) {
            Optional<ObjectNode> kept = input.keptVariables();
            if (kept.isPresent()) {
                variables = Optional.of(variables(original, kept.get(), sentVariables));
            } else {
                variables = Optional.empty(); // the version fills nothing from variables
                state = Optional.of(input.state());
            }
            Extensions extensions = stored.extensions();
            if (!extensions.skipped().isEmpty()) {
                skip = Optional.of(
                        new DecisionRequest.Field("skip", Json.mapper().valueToTree(extensions.skipped())));
            }
            if (!extensions.options().isEmpty()) {
                addOptions = Optional.of(new DecisionRequest.Field("add_options", added(extensions, asked)));
            }
            if (!extensions.questions().isEmpty()) {
                ObjectNode questions = Json.object();
                extensions.questions().forEach(key -> questions.set(key, asked.get(key)));
                extras = Optional.of(new DecisionRequest.Field("questions", questions));
            }
        } else {
            state = Optional.of(input.state());
            extras = Optional.of(new DecisionRequest.Field("questions", asked));
        }
        return new DecisionRequest(
                template,
                variables,
                state,
                extras,
                skip,
                addOptions,
                Optional.of(changed.settings().orElseGet(() -> stored.settings().requested())),
                media,
                original.metadata(),
                changed.store().or(() -> Optional.of(original.storage())),
                false,
                changes.has("model") ? changed.model() : stored.model(),
                Optional.empty(),
                Optional.empty(),
                changed.include(),
                changed.warnings(),
                problems.list());
    }

    /** The variables history kept, with those the rerun sends over them; a sensitive one must be sent again. */
    private static ObjectNode variables(StoredDecision original, ObjectNode kept, JsonNode sent) {
        ObjectNode merged = kept.deepCopy();
        sent.properties().forEach(e -> merged.set(e.getKey(), e.getValue()));
        merged.properties().forEach(e -> {
            if (e.getValue().has("$redacted")) {
                throw unavailable(
                        original,
                        "`" + e.getKey() + "` is sensitive and was not kept; send it in `variables`",
                        ParamPath.key("variables", e.getKey()));
            }
        });
        return merged;
    }

    /** The options the decision added, as {@code add_options} sends them: by name with descriptions, or values. */
    private static ObjectNode added(Extensions extensions, ObjectNode asked) {
        ObjectNode added = Json.object();
        extensions.options().forEach((key, names) -> {
            JsonNode question = asked.path(key);
            if (QuestionType.NUMBER.wire().equals(question.path("type").asText())) {
                var values = added.putArray(key);
                names.forEach(v -> values.add(Json.mapper().valueToTree(Primitives.value(v))));
            } else {
                ObjectNode options = added.putObject(key);
                names.forEach(
                        name -> options.set(name, question.path("criteria").path(name)));
            }
        });
        return added;
    }

    /**
     * The media sent beside the variables, by the files history kept. A media variable travels in the variables
     * (as its file id); one whose bytes were not kept must be sent again, like a sensitive value.
     */
    private static ArrayNode media(StoredDecision original, DecisionInput input, ObjectNode changes) {
        ArrayNode media = Json.mapper().createArrayNode();
        JsonNode sentVariables = changes.has("variables") ? changes.get("variables") : Json.object();
        for (DecisionInput.Media item : input.media()) {
            String variable = item.variable().orElse(null);
            boolean resent = variable != null && sentVariables.has(variable);
            if (!resent && !item.available()) {
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
                again.put("type", item.type());
                again.put("file_id", item.fileId().orElse(""));
                item.name().ifPresent(name -> again.put("name", name));
            }
        }
        return media;
    }

    private static ApiException unavailable(StoredDecision original, String why) {
        return ApiException.of(ErrorCode.INPUT_UNAVAILABLE, cannotRunAgain(original, why));
    }

    private static ApiException unavailable(StoredDecision original, String why, String param) {
        return ApiException.of(ErrorCode.INPUT_UNAVAILABLE, param, cannotRunAgain(original, why));
    }

    private static String cannotRunAgain(StoredDecision original, String why) {
        return "Decision " + original.id() + " cannot be run again: " + why + ".";
    }
}
