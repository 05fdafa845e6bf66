-- Full-text search over what a decision read (its masked situation and non-sensitive text variables), kept only for
-- decisions stored in full. The FTS5 index follows the column through triggers.
ALTER TABLE studio_decisions ADD COLUMN search_text TEXT;

CREATE VIRTUAL TABLE studio_decisions_search USING fts5(
    search_text, content = 'studio_decisions', content_rowid = 'seq', tokenize = 'unicode61 remove_diacritics 2');

CREATE TRIGGER studio_decisions_search_insert AFTER INSERT ON studio_decisions
WHEN new.search_text IS NOT NULL
BEGIN
    INSERT INTO studio_decisions_search (rowid, search_text) VALUES (new.seq, new.search_text);
END;

CREATE TRIGGER studio_decisions_search_delete AFTER DELETE ON studio_decisions
WHEN old.search_text IS NOT NULL
BEGIN
    INSERT INTO studio_decisions_search (studio_decisions_search, rowid, search_text)
    VALUES ('delete', old.seq, old.search_text);
END;

CREATE TRIGGER studio_decisions_search_update AFTER UPDATE OF search_text ON studio_decisions
BEGIN
    INSERT INTO studio_decisions_search (studio_decisions_search, rowid, search_text)
    SELECT 'delete', old.seq, old.search_text WHERE old.search_text IS NOT NULL;
    INSERT INTO studio_decisions_search (rowid, search_text)
    SELECT new.seq, new.search_text WHERE new.search_text IS NOT NULL;
END;
