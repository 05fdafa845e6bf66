-- Evals: a template's versions, on one or more models, run over labelled items (examples, labelled history or items
-- sent inline) and measured. The request is kept as sent (normalised); the results once the eval completes. The
-- server that runs an eval owns it while it is queued or running, so that a restart fails what it left unfinished.
CREATE TABLE studio_evals (
    id              TEXT    PRIMARY KEY,
    status          TEXT    NOT NULL CHECK (status IN ('queued', 'in_progress', 'completed', 'failed', 'cancelled')),
    server_instance TEXT,
    template_id     TEXT,
    request         TEXT    NOT NULL,
    done            INTEGER NOT NULL DEFAULT 0,
    total           INTEGER NOT NULL,
    failed_items    INTEGER NOT NULL DEFAULT 0,
    results         TEXT,
    error           TEXT,
    created_at      BIGINT  NOT NULL,
    started_at      BIGINT,
    completed_at    BIGINT
);
CREATE INDEX studio_evals_unfinished ON studio_evals (status) WHERE status IN ('queued', 'in_progress');

-- One row per item per target: the labels it was measured against and what the decision answered.
CREATE TABLE studio_eval_items (
    eval_id     TEXT    NOT NULL REFERENCES studio_evals (id) ON DELETE CASCADE,
    target      INTEGER NOT NULL,
    position    INTEGER NOT NULL,
    source      TEXT    NOT NULL,
    split       TEXT,
    decision_id TEXT,
    expected    TEXT    NOT NULL,
    answers     TEXT,
    error       TEXT,
    PRIMARY KEY (eval_id, target, position)
);
