-- (SQLite's V12 also moves its full-text index to batches; PostgreSQL's GIN index gathers new entries in a pending
-- list and merges them in bulk by itself.)
-- Latency percentiles are read for templates only: decisions without one (the wire format's, ad hoc ones) need no
-- entries in these indexes.
DROP INDEX studio_decisions_latency;
DROP INDEX studio_decisions_version_latency;
CREATE INDEX studio_decisions_latency ON studio_decisions (template_id, status, total_ms)
    WHERE template_id IS NOT NULL;
CREATE INDEX studio_decisions_version_latency ON studio_decisions (template_id, template_version, status, total_ms)
    WHERE template_id IS NOT NULL;
