-- Media files: one row per upload (ids are random, so the same bytes uploaded twice are two files) over one
-- content-addressed blob on disk. A file no decision or example uses is removed once expires_at has passed; a file
-- found in use is looked at again a day later.
CREATE TABLE studio_files (
    id           TEXT    PRIMARY KEY,
    sha256       TEXT    NOT NULL,
    purpose      TEXT    NOT NULL,
    type         TEXT    NOT NULL CHECK (type IN ('image', 'audio', 'video')),
    content_type TEXT    NOT NULL,
    name         TEXT,
    bytes        INTEGER NOT NULL,
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL
);
CREATE INDEX studio_files_sha256 ON studio_files (sha256);
CREATE INDEX studio_files_expires ON studio_files (expires_at);

-- The files whose bytes a stored decision kept; gone with the decision.
CREATE TABLE studio_decision_files (
    decision_seq INTEGER NOT NULL REFERENCES studio_decisions (seq) ON DELETE CASCADE,
    file_id      TEXT    NOT NULL,
    PRIMARY KEY (decision_seq, file_id)
);
CREATE INDEX studio_decision_files_file ON studio_decision_files (file_id);

-- The files an example's media use; example rows are never deleted, so neither are these.
CREATE TABLE studio_example_files (
    example_row_seq INTEGER NOT NULL REFERENCES studio_examples (row_seq) ON DELETE CASCADE,
    file_id         TEXT    NOT NULL,
    PRIMARY KEY (example_row_seq, file_id)
);
CREATE INDEX studio_example_files_file ON studio_example_files (file_id);
