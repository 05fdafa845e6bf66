-- Fits: a template's heads trained on its calibration examples and feedback-labelled decisions, run in the
-- background. The server that runs a fit owns it while it is queued or running, so that a restart fails what it left
-- unfinished. A completed fit names the template version it wrote.
CREATE TABLE studio_fits (
    id              TEXT    PRIMARY KEY,
    status          TEXT    NOT NULL CHECK (status IN ('queued', 'in_progress', 'completed', 'failed', 'cancelled')),
    server_instance TEXT,
    template_id     TEXT    NOT NULL,
    base_version    INTEGER NOT NULL,
    model           TEXT    NOT NULL,
    questions       TEXT    NOT NULL,
    done            INTEGER NOT NULL DEFAULT 0,
    total           INTEGER NOT NULL,
    version         INTEGER,
    heads           TEXT,
    error           TEXT,
    created_at      BIGINT  NOT NULL,
    started_at      BIGINT,
    completed_at    BIGINT
);
CREATE INDEX studio_fits_unfinished ON studio_fits (status) WHERE status IN ('queued', 'in_progress');

-- Heads: immutable once written; a template version's settings reference them by id. The weights travel inside the
-- JSON as little-endian float32 in base64.
CREATE TABLE studio_heads (
    id          TEXT    PRIMARY KEY,
    fit_id      TEXT    NOT NULL,
    template_id TEXT    NOT NULL,
    question    TEXT    NOT NULL,
    model       TEXT    NOT NULL,
    head        TEXT    NOT NULL,
    created_at  BIGINT  NOT NULL
);

-- Embeddings of the texts fits train on, by model and content hash, so that a second fit embeds only what is new.
CREATE TABLE studio_embeddings (
    model        TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    vector       TEXT NOT NULL,
    PRIMARY KEY (model, content_hash)
);
