package dev.arbor.models;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.json.Json;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** The SQL of the models added at run time. */
final class ModelStore {
    private final Database database;

    ModelStore(Database database) {
        this.database = requireNonNull(database, "database");
    }

    List<Model> all() {
        return database.read(handle -> handle.createQuery("SELECT * FROM models ORDER BY created_at, id")
                .map((rs, ctx) -> row(rs))
                .list());
    }

    void insert(Model model, long nowMillis) {
        database.update(handle -> handle.createUpdate("""
                        INSERT INTO models (id, name, source, uri, engine, facts, options, path, size_bytes, status,
                            api_key, created_at)
                        VALUES (:id, :name, :source, :uri, :engine, :facts, :options, :path, :size, :status,
                            :api_key, :now)""")
                .bind("id", model.id())
                .bind("name", model.name())
                .bind("source", model.source())
                .bind("uri", model.uri())
                .bind("engine", model.engine())
                .bind("facts", Json.writeString(facts(model)))
                .bind("options", Json.writeString(model.options()))
                .bind("api_key", model.apiKey().orElse(null))
                .bind("path", model.path().map(Path::toString).orElse(null))
                .bind("size", model.sizeBytes())
                .bind("status", model.status())
                .bind("now", nowMillis)
                .execute());
    }

    /** Records where a model's download stands. */
    void status(String id, String status, Optional<String> error, long sizeBytes) {
        database.update(handle -> handle.createUpdate(
                        "UPDATE models SET status = :status, error = :error, size_bytes = :size WHERE id = :id")
                .bind("status", status)
                .bind("error", error.orElse(null))
                .bind("size", sizeBytes)
                .bind("id", id)
                .execute());
    }

    /** Downloads a stopped server left running are stopped: their partial files wait for a resume. */
    void stopInterrupted() {
        if (!database.readOnly()) {
            database.update(handle ->
                    handle.execute("UPDATE models SET status = 'not_downloaded' WHERE status = 'downloading'"));
        }
    }

    boolean delete(String id) {
        return database.write(handle -> handle.createUpdate("DELETE FROM models WHERE id = :id")
                        .bind("id", id)
                        .execute()
                == 1);
    }

    private static ObjectNode facts(Model model) {
        ObjectNode json = Json.object();
        model.facts().modalities().forEach(json.putArray("modalities")::add);
        model.facts().types().forEach(json.putArray("types")::add);
        json.put("max_options", model.facts().maxOptions());
        json.put("max_questions", model.facts().maxQuestions());
        json.put("context_tokens", model.facts().contextTokens());
        model.facts().notes().forEach(json.putArray("notes")::add);
        return json;
    }

    private static Model row(ResultSet rs) throws SQLException {
        JsonNode facts = Json.read(rs.getString("facts"));
        var notes = new ArrayList<String>();
        facts.path("notes").forEach(note -> notes.add(note.asText()));
        return new Model(
                rs.getString("id"),
                rs.getString("name"),
                rs.getString("source"),
                rs.getString("uri"),
                rs.getString("engine"),
                new ModelFacts(
                        strings(facts.path("modalities")),
                        strings(facts.path("types")),
                        facts.path("max_options").asInt(),
                        facts.path("max_questions").asInt(),
                        facts.path("context_tokens").asInt(),
                        notes),
                options(Json.read(rs.getString("options"))),
                Optional.ofNullable(rs.getString("path")).map(Path::of),
                rs.getLong("size_bytes"),
                rs.getString("status"),
                Optional.ofNullable(rs.getString("error")),
                Optional.ofNullable(rs.getString("api_key")));
    }

    private static Map<String, String> options(JsonNode json) {
        var options = new HashMap<String, String>();
        json.properties().forEach(e -> options.put(e.getKey(), e.getValue().asText()));
        return options;
    }

    private static Set<String> strings(JsonNode array) {
        var values = new HashSet<String>();
        array.forEach(item -> values.add(item.asText()));
        return values;
    }
}
