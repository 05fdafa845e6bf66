package dev.arbor.studio.heads;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.db.Database;
import dev.arbor.platform.json.Json;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** The fitted heads, immutable once written: fits write them, decisions read them (each once, then from memory). */
public final class Heads {
    private final Database database;
    private final Map<String, Head> read = new ConcurrentHashMap<>();

    public Heads(Database database) {
        this.database = requireNonNull(database, "database");
    }

    /** A head by id; empty when there is none. */
    public Optional<Head> find(String id) {
        requireNonNull(id, "id");
        Head cached = read.get(id);
        if (cached != null) {
            return Optional.of(cached);
        }
        Optional<Head> found =
                database.read(handle -> handle.createQuery("SELECT head FROM studio_heads WHERE id = :id")
                        .bind("id", id)
                        .mapTo(String.class)
                        .findOne()
                        .map(text -> Head.read(Json.read(text))));
        found.ifPresent(head -> read.put(id, head));
        return found;
    }

    /** Writes a head a fit made; a head never changes once written. */
    public void insert(String id, String fitId, String templateId, String question, Head head, long now) {
        database.update(handle -> handle.createUpdate("INSERT INTO studio_heads (id, fit_id, template_id, question, "
                        + "model, head, created_at) VALUES (:id, :fit, :template, :question, :model, :head, :now)")
                .bind("id", id)
                .bind("fit", fitId)
                .bind("template", templateId)
                .bind("question", question)
                .bind("model", head.facts().model())
                .bind("head", Json.writeString(head.json()))
                .bind("now", now)
                .execute());
    }
}
