-- Decisions: a row per stored decision with what history filters on, the decision as the API shows it (body),
-- and the input it read (null when only the answers are kept, or after a redaction).
CREATE TABLE studio_decisions (
    seq              BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id               TEXT    NOT NULL UNIQUE,
    status           TEXT    NOT NULL CHECK (status IN ('queued', 'in_progress', 'completed', 'failed', 'cancelled')),
    storage          TEXT    NOT NULL CHECK (storage IN ('full', 'answers_only')),
    surface          TEXT    NOT NULL,
    endpoint         TEXT    NOT NULL,
    request_id       TEXT    NOT NULL,
    template_id      TEXT,
    template_version INTEGER,
    model            TEXT,
    act              BOOLEAN,
    min_certainty    DOUBLE PRECISION,
    error_code       TEXT,
    pinned           BOOLEAN NOT NULL DEFAULT FALSE,
    metadata         TEXT    NOT NULL DEFAULT '{}',
    rerun_of         TEXT,
    created_at       BIGINT  NOT NULL,
    completed_at     BIGINT,
    total_ms         DOUBLE PRECISION,
    body             TEXT    NOT NULL,
    input            TEXT
);
CREATE INDEX studio_decisions_created ON studio_decisions (created_at, seq);
CREATE INDEX studio_decisions_template ON studio_decisions (template_id, template_version, seq);
CREATE INDEX studio_decisions_unfinished ON studio_decisions (status) WHERE status IN ('queued', 'in_progress');

-- One row per answer (per selected option of a multi question), for filters and statistics.
CREATE TABLE studio_decision_answers (
    decision_seq BIGINT  NOT NULL REFERENCES studio_decisions (seq) ON DELETE CASCADE,
    question_key TEXT    NOT NULL,
    ordinal      INTEGER NOT NULL,
    position     INTEGER NOT NULL,
    type         TEXT    NOT NULL,
    answer       TEXT,
    value        DOUBLE PRECISION NOT NULL,
    certainty    DOUBLE PRECISION NOT NULL,
    act          BOOLEAN NOT NULL,
    origin       TEXT    NOT NULL,
    PRIMARY KEY (decision_seq, question_key, ordinal)
);
CREATE INDEX studio_decision_answers_value ON studio_decision_answers (question_key, answer, decision_seq);

-- The HMAC of each sensitive value a decision read, so that a value can be erased from history without keeping it.
CREATE TABLE studio_decision_secrets (
    decision_seq BIGINT  NOT NULL REFERENCES studio_decisions (seq) ON DELETE CASCADE,
    variable     TEXT    NOT NULL,
    hmac         TEXT    NOT NULL,
    PRIMARY KEY (decision_seq, variable)
);
CREATE INDEX studio_decision_secrets_hmac ON studio_decision_secrets (variable, hmac);
