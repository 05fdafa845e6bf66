package dev.arbor.studio.history;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.db.Columns;
import dev.arbor.platform.db.Database;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.statement.EmptyHandling;
import org.jdbi.v3.core.statement.Query;

/**
 * What statistics read of one template's history: the running totals history keeps with every write
 * ({@link StatsRollup}), the labels on its answers, and its total times by position (for percentiles).
 */
public final class HistoryTotals {
    private final Database database;

    public HistoryTotals(Database database) {
        this.database = requireNonNull(database, "database");
    }

    /** A version's decisions of one status: how many, how many acted, how many have a total time. */
    public record Counted(Optional<Integer> version, DecisionStatus status, long n, long acted, long timed) {}

    /**
     * Answers of one question, origin and value; {@code first} rows are one per decision and carry the sum of their
     * certainties in ten-thousandths.
     */
    public record AnswerTotal(
            Optional<Integer> version,
            String question,
            int position,
            boolean first,
            String origin,
            Optional<String> answer,
            long n,
            long certaintyE4,
            long acted) {}

    /** A label on an answer of a completed decision. */
    public record Label(
            Optional<Integer> version, String decisionId, String question, String origin, boolean correct) {}

    public List<Counted> counted(String templateId, List<Integer> versions) {
        return database.read(handle -> handle.createQuery("""
                        SELECT template_version, status, n, acted, timed FROM studio_stats_decisions
                        WHERE template_id = :template AND n <> 0""" + versionFilter(versions, ""))
                .bind("template", templateId)
                .bindList(EmptyHandling.BLANK, "versions", versions)
                .map((rs, ctx) -> new Counted(
                        version(rs),
                        DecisionStatus.stored(rs.getString("status")),
                        rs.getLong("n"),
                        rs.getLong("acted"),
                        rs.getLong("timed")))
                .list());
    }

    /**
     * The total times at a position and the next one, in ascending order, of the template's completed decisions (of
     * one version, if given).
     */
    public List<Double> timedAt(String templateId, Optional<Integer> version, long position) {
        return database.read(handle -> {
            Query query = handle.createQuery("SELECT total_ms FROM studio_decisions WHERE template_id = :template"
                            + (version.isPresent() ? " AND template_version = :version" : "")
                            + " AND status = 'completed' AND total_ms IS NOT NULL ORDER BY total_ms LIMIT 2 OFFSET "
                            + ":position")
                    .bind("template", templateId)
                    .bind("position", position);
            version.ifPresent(v -> query.bind("version", v));
            return query.mapTo(Double.class).list();
        });
    }

    public List<AnswerTotal> answerTotals(String templateId, List<Integer> versions) {
        return database.read(handle -> handle.createQuery("""
                        SELECT template_version, question_key, position, is_first, origin, answer, n, certainty_e4, acted
                        FROM studio_stats_answers WHERE template_id = :template AND n <> 0""" + versionFilter(versions, ""))
                .bind("template", templateId)
                .bindList(EmptyHandling.BLANK, "versions", versions)
                .map((rs, ctx) -> new AnswerTotal(
                        version(rs),
                        rs.getString("question_key"),
                        rs.getInt("position"),
                        rs.getInt("is_first") == 1,
                        rs.getString("origin"),
                        Optional.of(rs.getString("answer")).filter(a -> !a.isEmpty()),
                        rs.getLong("n"),
                        rs.getLong("certainty_e4"),
                        rs.getLong("acted")))
                .list());
    }

    /**
     * Labels on the template's completed decisions, oldest first (the latest wins). Feedback is the small side, so
     * the joins start from it.
     */
    public List<Label> labels(String templateId, List<Integer> versions) {
        return database.read(
                handle -> handle.createQuery("""
                        SELECT d.template_version, f.decision_id, f.question, a.origin, f.correct
                        FROM studio_feedback f
                        CROSS JOIN studio_decisions d
                        CROSS JOIN studio_decision_answers a
                        WHERE d.id = f.decision_id AND a.decision_seq = d.seq AND a.question_key = f.question
                            AND a.ordinal = 0 AND d.template_id = :template AND d.status = 'completed'
                            AND f.correct IS NOT NULL""" + versionFilter(versions, "d.") + " ORDER BY f.updated_at")
                        .bind("template", templateId)
                        .bindList(EmptyHandling.BLANK, "versions", versions)
                        .map((rs, ctx) -> new Label(
                                version(rs),
                                rs.getString("decision_id"),
                                rs.getString("question"),
                                rs.getString("origin"),
                                rs.getBoolean("correct")))
                        .list());
    }

    private static String versionFilter(List<Integer> versions, String alias) {
        return versions.isEmpty() ? "" : " AND " + alias + "template_version IN (<versions>)";
    }

    private static Optional<Integer> version(ResultSet rs) throws SQLException {
        return Columns.optionalInt(rs, "template_version");
    }
}
