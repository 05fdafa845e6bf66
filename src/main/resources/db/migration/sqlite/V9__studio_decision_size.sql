-- What each decision keeps, in bytes: its record, its input and the media files it keeps. History's size is their
-- sum (read from the index alone), which the studio's size cap holds down.
ALTER TABLE studio_decisions ADD COLUMN stored_bytes INTEGER NOT NULL DEFAULT 0;
UPDATE studio_decisions
SET stored_bytes = length(CAST(body AS BLOB)) + COALESCE(length(CAST(input AS BLOB)), 0) + length(CAST(metadata AS BLOB));
CREATE INDEX studio_decisions_stored_bytes ON studio_decisions (stored_bytes);
