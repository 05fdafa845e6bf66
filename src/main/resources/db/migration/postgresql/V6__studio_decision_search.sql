-- Full-text search over what a decision read (its masked situation and non-sensitive text variables), kept only for
-- decisions stored in full.
ALTER TABLE studio_decisions ADD COLUMN search_text TEXT;

CREATE INDEX studio_decisions_search ON studio_decisions USING GIN (to_tsvector('simple', search_text));
