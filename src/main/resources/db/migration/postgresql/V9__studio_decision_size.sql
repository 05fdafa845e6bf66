-- What each decision keeps, in bytes: its record, its input and the media files it keeps. History's size is their
-- sum (read from the index alone), which the studio's size cap holds down.
ALTER TABLE studio_decisions ADD COLUMN stored_bytes BIGINT NOT NULL DEFAULT 0;
UPDATE studio_decisions
SET stored_bytes = octet_length(body) + COALESCE(octet_length(input), 0) + octet_length(metadata);
CREATE INDEX studio_decisions_stored_bytes ON studio_decisions (stored_bytes);
