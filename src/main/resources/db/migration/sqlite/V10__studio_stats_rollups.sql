-- Running totals of each template version's decisions and answers, kept in the same transaction as every change to
-- a decision (insert, status change, delete), so that a template's statistics read a few rows rather than every
-- decision. Latency percentiles are read by position from the total_ms indexes.
CREATE TABLE studio_stats_decisions (
    template_id      TEXT    NOT NULL,
    template_version INTEGER NOT NULL,
    status           TEXT    NOT NULL,
    n                INTEGER NOT NULL,
    acted            INTEGER NOT NULL,
    timed            INTEGER NOT NULL,
    PRIMARY KEY (template_id, template_version, status)
);

-- One row per question, origin and answer; is_first rows (one per decision) carry certainty and gate. Certainty is
-- summed in ten-thousandths, as decisions show it: whole numbers, so totals taken in and out never drift.
CREATE TABLE studio_stats_answers (
    template_id      TEXT    NOT NULL,
    template_version INTEGER NOT NULL,
    question_key     TEXT    NOT NULL,
    is_first         INTEGER NOT NULL,
    origin           TEXT    NOT NULL,
    answer           TEXT    NOT NULL,
    n                INTEGER NOT NULL,
    certainty_e4     INTEGER NOT NULL,
    acted            INTEGER NOT NULL,
    position         INTEGER NOT NULL,
    PRIMARY KEY (template_id, template_version, question_key, is_first, origin, answer)
);

-- Certainty as decisions show it (four decimals), so that totals equal the sum of what a reader sees.
UPDATE studio_decision_answers SET certainty = ROUND(certainty, 4);

INSERT INTO studio_stats_decisions (template_id, template_version, status, n, acted, timed)
SELECT template_id, template_version, status, COUNT(*), SUM(CASE WHEN act THEN 1 ELSE 0 END),
       SUM(CASE WHEN total_ms IS NOT NULL THEN 1 ELSE 0 END)
FROM studio_decisions WHERE template_id IS NOT NULL
GROUP BY template_id, template_version, status;

INSERT INTO studio_stats_answers (template_id, template_version, question_key, is_first, origin, answer, n,
                                  certainty_e4, acted, position)
SELECT d.template_id, d.template_version, a.question_key, CASE WHEN a.ordinal = 0 THEN 1 ELSE 0 END, a.origin,
       COALESCE(a.answer, ''), COUNT(*), SUM(CAST(ROUND(a.certainty * 10000) AS BIGINT)),
       SUM(CASE WHEN a.act THEN 1 ELSE 0 END), MIN(a.position)
FROM studio_decision_answers a JOIN studio_decisions d ON d.seq = a.decision_seq
WHERE d.template_id IS NOT NULL
GROUP BY d.template_id, d.template_version, a.question_key, CASE WHEN a.ordinal = 0 THEN 1 ELSE 0 END, a.origin,
         COALESCE(a.answer, '');

CREATE INDEX studio_decisions_latency ON studio_decisions (template_id, status, total_ms);
CREATE INDEX studio_decisions_version_latency ON studio_decisions (template_id, template_version, status, total_ms);
