package dev.arbor.models;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.http.ApiException;
import dev.arbor.platform.http.ErrorCode;
import dev.arbor.platform.http.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The one model registry: the models this server knows, what each can run, and where it stands. Other features ask
 * it, never a table of its.
 */
public final class Models {
    private static final String CATALOG = "/catalog/models.json";
    private static final List<String> MODALITIES = List.of("text", "image", "audio", "video");
    private static final Set<String> PRIMITIVE_TYPES = Set.of("choice", "score", "noul");

    private final Map<String, Model> models = new LinkedHashMap<>();

    /** Reads the catalog; a catalog entry that does not make sense stops the start. */
    public Models(boolean testModels) {
        for (JsonNode entry : readCatalog()) {
            if (entry.path("test_only").asBoolean() && !testModels) {
                continue;
            }
            Model model = fromCatalog(entry);
            models.put(model.id(), model);
        }
    }

    public List<Model> list() {
        return List.copyOf(models.values());
    }

    public Optional<Model> find(String id) {
        return Optional.ofNullable(models.get(id));
    }

    /** The model, or 404 {@code model_not_found} naming the models there are. */
    public Model require(String id, String param) {
        return find(id).orElseThrow(() -> ApiException.of(ErrorCode.MODEL_NOT_FOUND, param, "There is no model '"
                + id + "'; the models are " + (models.isEmpty() ? "none" : String.join(", ", models.keySet()))
                + "."));
    }

    static int modalityOrder(String a, String b) {
        return Integer.compare(MODALITIES.indexOf(a), MODALITIES.indexOf(b));
    }

    private static Model fromCatalog(JsonNode entry) {
        String id = entry.path("id").asText();
        Set<String> modalities = strings(entry.path("modalities"));
        Set<String> types = strings(entry.path("types"));
        if (id.isBlank() || !MODALITIES.containsAll(modalities) || !modalities.contains("text")
                || !PRIMITIVE_TYPES.containsAll(types) || types.isEmpty()
                || entry.path("max_options").asInt() < 2 || entry.path("max_questions").asInt() < 1
                || entry.path("context_tokens").asInt() < 1) {
            throw new IllegalStateException("model catalog entry '" + id + "' is invalid: " + entry);
        }
        var notes = new java.util.ArrayList<String>();
        entry.path("notes").forEach(note -> notes.add(note.asText()));
        var facts = new ModelFacts(modalities, types, entry.path("max_options").asInt(),
                entry.path("max_questions").asInt(), entry.path("context_tokens").asInt(), notes);
        return new Model(id, entry.path("name").asText(id), entry.path("engine").asText(), facts, "downloaded");
    }

    private static Set<String> strings(JsonNode array) {
        var values = new HashSet<String>();
        array.forEach(item -> values.add(item.asText()));
        return values;
    }

    private static JsonNode readCatalog() {
        try (InputStream in = requireNonNull(Models.class.getResourceAsStream(CATALOG), CATALOG)) {
            return Json.read(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
