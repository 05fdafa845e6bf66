package dev.arbor.studio.feedback;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.json.Json;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The SQL of feedback. A decision's feedback goes with it when it is deleted. */
public final class FeedbackStore {
    private final Database database;

    /** One question's label, its canonical form, the decision's answer, and whether that was right. */
    record Entry(
            String question, Optional<JsonNode> expected, Optional<JsonNode> predicted, Optional<Boolean> correct) {}

    public FeedbackStore(Database database) {
        this.database = requireNonNull(database, "database");
    }

    /** Adds or replaces the actor's feedback on each question, in one transaction. */
    void save(
            String decisionId,
            List<Entry> entries,
            Optional<Integer> rating,
            Optional<String> note,
            String actor,
            long nowMillis) {
        database.update(handle -> {
            for (Entry entry : entries) {
                handle.createUpdate("""
                                INSERT INTO studio_feedback (id, decision_id, question, expected, predicted, correct,
                                    rating, note, actor, created_at, updated_at)
                                VALUES (:id, :decision, :question, :expected, :predicted, :correct, :rating, :note,
                                    :actor, :now, :now)
                                ON CONFLICT (decision_id, question, actor) DO UPDATE SET expected = excluded.expected,
                                    predicted = excluded.predicted, correct = excluded.correct,
                                    rating = excluded.rating, note = excluded.note, updated_at = excluded.updated_at""")
                        .bind("id", Ids.next("fb"))
                        .bind("decision", decisionId)
                        .bind("question", entry.question())
                        .bind(
                                "expected",
                                entry.expected().map(Json::writeString).orElse(null))
                        .bind(
                                "predicted",
                                entry.predicted().map(Json::writeString).orElse(null))
                        .bind("correct", entry.correct().orElse(null))
                        .bind("rating", rating.orElse(null))
                        .bind("note", note.orElse(null))
                        .bind("actor", actor)
                        .bind("now", nowMillis)
                        .execute();
            }
        });
    }

    public List<Feedback> list(String decisionId) {
        return database.read(handle -> handle.createQuery(
                        "SELECT * FROM studio_feedback WHERE decision_id = :id " + "ORDER BY created_at, question")
                .bind("id", decisionId)
                .map((rs, ctx) -> feedback(rs))
                .list());
    }

    /** Whether each labelled question of these decisions was answered right, by decision id and question. */
    public Map<String, Map<String, Boolean>> correctness(List<String> decisionIds) {
        if (decisionIds.isEmpty()) {
            return Map.of();
        }
        var correct = new HashMap<String, Map<String, Boolean>>();
        database.read(handle -> handle.createQuery("SELECT decision_id, question, correct FROM studio_feedback "
                                + "WHERE decision_id IN (<ids>) AND correct IS NOT NULL")
                        .bindList("ids", decisionIds)
                        .map((rs, ctx) -> new Object[] {rs.getString(1), rs.getString(2), rs.getBoolean(3)})
                        .list())
                .forEach(row -> correct.computeIfAbsent((String) row[0], k -> new HashMap<>())
                        .put((String) row[1], (Boolean) row[2]));
        return correct;
    }

    /** Which of these decisions have any feedback, a rating alone included. */
    public java.util.Set<String> labelled(List<String> decisionIds) {
        if (decisionIds.isEmpty()) {
            return java.util.Set.of();
        }
        return java.util.Set.copyOf(database.read(handle -> handle.createQuery(
                        "SELECT DISTINCT decision_id FROM " + "studio_feedback WHERE decision_id IN (<ids>)")
                .bindList("ids", decisionIds)
                .mapTo(String.class)
                .list()));
    }

    /** The labels on a decision as it shows them: per question, the expected answer and whether it was right. */
    public static ObjectNode labels(List<Feedback> entries) {
        ObjectNode labels = Json.object();
        for (Feedback entry : entries) {
            if (entry.labelsQuestion()) {
                ObjectNode label = labels.putObject(entry.question());
                label.set("expected", entry.expected());
                if (entry.correct() == null) {
                    label.putNull("correct");
                } else {
                    label.put("correct", entry.correct());
                }
                label.put("feedback_id", entry.id());
            }
        }
        return labels;
    }

    boolean delete(String id) {
        return database.write(handle -> handle.createUpdate("DELETE FROM studio_feedback WHERE id = :id")
                        .bind("id", id)
                        .execute()
                == 1);
    }

    private static Feedback feedback(ResultSet rs) throws SQLException {
        String expected = rs.getString("expected");
        String predicted = rs.getString("predicted");
        boolean correct = rs.getBoolean("correct");
        Boolean correctOrNull = rs.wasNull() ? null : correct;
        int rating = rs.getInt("rating");
        Integer ratingOrNull = rs.wasNull() ? null : rating;
        return new Feedback(
                rs.getString("id"),
                "feedback",
                rs.getString("decision_id"),
                rs.getString("question"),
                expected == null ? null : Json.read(expected),
                predicted == null ? null : Json.read(predicted),
                correctOrNull,
                ratingOrNull,
                rs.getString("note"),
                rs.getString("actor"),
                rs.getLong("created_at") / 1000,
                rs.getLong("updated_at") / 1000);
    }
}
