package dev.arbor.studio.history;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.json.Json;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * What a decision read, as history keeps it (its {@code input} column, and the {@code input} of a decision read back):
 * the variables and state as stored (sensitive values replaced), the media, the questions asked in normal form and
 * the situation as the model read it. A redaction replaces values by {@code [redacted]} and lists what it replaced.
 *
 * @param variables the variables sent (an object), null without a template's variables, or the redaction mark
 * @param state the state as stored, or the redaction mark
 * @param questions the questions asked, in normal form
 * @param renderedState the situation as the model read it, or the redaction mark
 * @param redacted the {@code input.*} fields a redaction replaced, in the order redacted
 */
public record DecisionInput(
        JsonNode variables,
        JsonNode state,
        List<Media> media,
        ObjectNode questions,
        JsonNode renderedState,
        List<String> redacted) {
    public DecisionInput {
        variables = variables.deepCopy();
        state = state.deepCopy();
        media = List.copyOf(media);
        questions = questions.deepCopy();
        renderedState = renderedState.deepCopy();
        redacted = List.copyOf(redacted);
    }

    /**
     * One media item the decision read.
     *
     * @param fileId the file history kept its bytes in, if it kept them
     * @param name the name sent with it (none for a sensitive one)
     * @param variable the media variable it came in, if it came in one
     * @param sha256 {@code sha256:<hex>} of its bytes, or the HMAC of a sensitive one
     * @param available whether its bytes can be had (kept, and not deleted since)
     */
    public record Media(
            String type,
            Optional<String> fileId,
            Optional<String> name,
            Optional<String> variable,
            String contentType,
            long bytes,
            String sha256,
            boolean available) {
        public Media {
            requireNonNull(type, "type");
            requireNonNull(fileId, "fileId");
            requireNonNull(name, "name");
            requireNonNull(variable, "variable");
            requireNonNull(contentType, "contentType");
            requireNonNull(sha256, "sha256");
        }

        Media withAvailable(boolean now) {
            return new Media(type, fileId, name, variable, contentType, bytes, sha256, now);
        }
    }

    @Override
    public JsonNode variables() {
        return variables.deepCopy();
    }

    @Override
    public JsonNode state() {
        return state.deepCopy();
    }

    @Override
    public ObjectNode questions() {
        return questions.deepCopy();
    }

    @Override
    public JsonNode renderedState() {
        return renderedState.deepCopy();
    }

    /** The variables as kept, when the decision sent variables and no redaction replaced them all. */
    public Optional<ObjectNode> keptVariables() {
        return variables instanceof ObjectNode object ? Optional.of(object.deepCopy()) : Optional.empty();
    }

    /** Whether a redaction replaced part of it (then it cannot be read back as sent, nor run again). */
    public boolean isRedacted() {
        return !redacted.isEmpty();
    }

    /** The files whose bytes it keeps. */
    public Set<String> keptFiles() {
        var files = new LinkedHashSet<String>();
        media.forEach(item -> item.fileId().ifPresent(files::add));
        return Set.copyOf(files);
    }

    /** The bytes of the media files it keeps. */
    long keptBytes() {
        return media.stream()
                .filter(item -> item.fileId().isPresent())
                .mapToLong(Media::bytes)
                .sum();
    }

    /** This input with each kept file's availability as {@code fileAvailable} says now. */
    DecisionInput withAvailability(Predicate<String> fileAvailable) {
        var now = media.stream()
                .map(item -> item.fileId()
                        .map(id -> item.withAvailable(fileAvailable.test(id)))
                        .orElse(item))
                .toList();
        return new DecisionInput(variables, state, now, questions, renderedState, redacted);
    }

    /** Reads an input as history stored it. */
    public static DecisionInput read(JsonNode json) {
        var media = new ArrayList<Media>();
        json.path("media")
                .forEach(item -> media.add(new Media(
                        item.path("type").asText(),
                        text(item.get("file_id")),
                        text(item.get("name")),
                        text(item.get("variable")),
                        item.path("content_type").asText(),
                        item.path("bytes").asLong(),
                        item.path("sha256").asText(),
                        item.path("available").asBoolean())));
        var redacted = new ArrayList<String>();
        json.path("redacted").forEach(field -> redacted.add(field.asText()));
        return new DecisionInput(
                orNull(json.get("variables")),
                orNull(json.get("state")),
                media,
                json.get("questions") instanceof ObjectNode questions ? questions : Json.object(),
                orNull(json.get("rendered_state")),
                redacted);
    }

    /** The input as history stores it and the API shows it. */
    public ObjectNode json() {
        ObjectNode json = Json.object();
        json.set("variables", variables.deepCopy());
        json.set("state", state.deepCopy());
        ArrayNode items = json.putArray("media");
        media.forEach(item -> {
            ObjectNode m = items.addObject();
            m.put("type", item.type());
            m.put("file_id", item.fileId().orElse(null));
            m.put("name", item.name().orElse(null));
            m.put("variable", item.variable().orElse(null));
            m.put("content_type", item.contentType());
            m.put("bytes", item.bytes());
            m.put("sha256", item.sha256());
            m.put("available", item.available());
        });
        json.set("questions", questions.deepCopy());
        json.set("rendered_state", renderedState.deepCopy());
        if (!redacted.isEmpty()) {
            redacted.forEach(json.putArray("redacted")::add);
        }
        return json;
    }

    private static Optional<String> text(JsonNode node) {
        return node != null && node.isTextual() ? Optional.of(node.textValue()) : Optional.empty();
    }

    private static JsonNode orNull(JsonNode node) {
        return node == null ? NullNode.getInstance() : node;
    }
}
