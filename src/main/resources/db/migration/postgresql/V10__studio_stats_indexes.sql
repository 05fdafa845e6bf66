-- Statistics of a template read narrow, ordered indexes instead of every decision's record: each answer row names
-- its decision's template and version (neither ever changes), and both tables have a covering index in the order
-- the statistics group and rank them (latency percentiles are read by position in total_ms order).
ALTER TABLE studio_decision_answers ADD COLUMN template_id TEXT;
ALTER TABLE studio_decision_answers ADD COLUMN template_version INTEGER;
UPDATE studio_decision_answers a
SET template_id = d.template_id, template_version = d.template_version
FROM studio_decisions d WHERE d.seq = a.decision_seq;
CREATE INDEX studio_decision_answers_stats
    ON studio_decision_answers (template_id, template_version, question_key, ordinal, origin, answer, certainty, act);
CREATE INDEX studio_decisions_stats ON studio_decisions (template_id, template_version, status, total_ms, act);
CREATE INDEX studio_decisions_latency ON studio_decisions (template_id, status, total_ms);
