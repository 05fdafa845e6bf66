-- Lighter writes of decisions. The full-text index takes new decisions in batches instead of inside every write:
-- FTS5 writes a segment per transaction, which cost more than the rest of a decision's row. studio_search_progress says up to which seq the
-- index holds every decision; newer ones are indexed by the next catch-up, which runs before any text search and
-- with the writes every few hundred decisions or seconds. Deletes and changes touch the index only for rows it holds.
CREATE TABLE studio_search_progress (
    indexed_seq INTEGER NOT NULL
);
INSERT INTO studio_search_progress (indexed_seq) SELECT COALESCE(MAX(seq), 0) FROM studio_decisions;

DROP TRIGGER studio_decisions_search_insert;
DROP TRIGGER studio_decisions_search_delete;
DROP TRIGGER studio_decisions_search_update;

CREATE TRIGGER studio_decisions_search_delete AFTER DELETE ON studio_decisions
WHEN old.search_text IS NOT NULL AND old.seq <= (SELECT indexed_seq FROM studio_search_progress)
BEGIN
    INSERT INTO studio_decisions_search (studio_decisions_search, rowid, search_text)
    VALUES ('delete', old.seq, old.search_text);
END;

CREATE TRIGGER studio_decisions_search_update AFTER UPDATE OF search_text ON studio_decisions
WHEN old.seq <= (SELECT indexed_seq FROM studio_search_progress)
BEGIN
    INSERT INTO studio_decisions_search (studio_decisions_search, rowid, search_text)
    SELECT 'delete', old.seq, old.search_text WHERE old.search_text IS NOT NULL;
    INSERT INTO studio_decisions_search (rowid, search_text)
    SELECT new.seq, new.search_text WHERE new.search_text IS NOT NULL;
END;

-- Latency percentiles are read for templates only: decisions without one (the wire format's, ad hoc ones) need no
-- entries in these indexes.
DROP INDEX studio_decisions_latency;
DROP INDEX studio_decisions_version_latency;
CREATE INDEX studio_decisions_latency ON studio_decisions (template_id, status, total_ms)
    WHERE template_id IS NOT NULL;
CREATE INDEX studio_decisions_version_latency ON studio_decisions (template_id, template_version, status, total_ms)
    WHERE template_id IS NOT NULL;
