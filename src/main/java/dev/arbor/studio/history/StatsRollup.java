package dev.arbor.studio.history;

import java.util.function.Consumer;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.SqlStatement;
import org.jdbi.v3.core.statement.Update;

/**
 * The running totals behind a template's statistics (tables {@code studio_stats_decisions} and
 * {@code studio_stats_answers}). Every change to decisions counts the rows it touches out before and in after, in
 * its own transaction, with the same two statements: the totals can never drift from the rows.
 */
final class StatsRollup {
    /** Decisions of hidden surfaces (evals') are never counted, as a template's statistics leave them out. */
    private static final String COUNTED = "d.surface NOT IN ("
            + String.join(
                    ", ",
                    HistoryQuery.HIDDEN_SURFACES.stream()
                            .map(s -> "'" + s + "'")
                            .toList()) + ")";

    private StatsRollup() {}

    /**
     * Adds ({@code sign} 1) or removes ({@code sign} -1) the decisions a condition selects, and their answers.
     *
     * @param where a condition on {@code studio_decisions d}, with its values bound by {@code binds}
     */
    static void count(Handle handle, String where, Consumer<SqlStatement<?>> binds, int sign) {
        String counted = COUNTED + " AND (" + where + ")";
        run(handle, """
                        INSERT INTO studio_stats_decisions (template_id, template_version, status, n, acted, timed)
                        SELECT d.template_id, d.template_version, d.status, :sign * COUNT(*),
                            :sign * SUM(CASE WHEN d.act THEN 1 ELSE 0 END),
                            :sign * SUM(CASE WHEN d.total_ms IS NOT NULL THEN 1 ELSE 0 END)
                        FROM studio_decisions d WHERE d.template_id IS NOT NULL AND (""" + counted + """
                        )
                        GROUP BY d.template_id, d.template_version, d.status
                        ON CONFLICT (template_id, template_version, status) DO UPDATE
                        SET n = studio_stats_decisions.n + excluded.n,
                            acted = studio_stats_decisions.acted + excluded.acted,
                            timed = studio_stats_decisions.timed + excluded.timed""", binds, sign);
        run(handle, """
                        INSERT INTO studio_stats_answers (template_id, template_version, question_key, is_first,
                            origin, answer, n, certainty_e4, acted, position)
                        SELECT d.template_id, d.template_version, a.question_key,
                            CASE WHEN a.ordinal = 0 THEN 1 ELSE 0 END, a.origin, COALESCE(a.answer, ''),
                            :sign * COUNT(*), :sign * SUM(CAST(ROUND(a.certainty * 10000) AS BIGINT)),
                            :sign * SUM(CASE WHEN a.act THEN 1 ELSE 0 END), MIN(a.position)
                        FROM studio_decision_answers a JOIN studio_decisions d ON d.seq = a.decision_seq
                        WHERE d.template_id IS NOT NULL AND (""" + counted + """
                        )
                        GROUP BY d.template_id, d.template_version, a.question_key,
                            CASE WHEN a.ordinal = 0 THEN 1 ELSE 0 END, a.origin, COALESCE(a.answer, '')
                        ON CONFLICT (template_id, template_version, question_key, is_first, origin, answer) DO UPDATE
                        SET n = studio_stats_answers.n + excluded.n,
                            certainty_e4 = studio_stats_answers.certainty_e4 + excluded.certainty_e4,
                            acted = studio_stats_answers.acted + excluded.acted""", binds, sign);
    }

    private static void run(Handle handle, String sql, Consumer<SqlStatement<?>> binds, int sign) {
        Update update = handle.createUpdate(sql).bind("sign", sign);
        binds.accept(update);
        update.execute();
    }
}
