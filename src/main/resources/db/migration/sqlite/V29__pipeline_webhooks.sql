-- A pipeline's webhook secrets (Standard Webhooks, sealed): the current one (retires_at NULL) and, for a grace window
-- after a rotation, the one it replaced. A pipeline without a row here takes no webhook calls.
CREATE TABLE pipeline_webhook_secrets (
    id          TEXT    PRIMARY KEY,
    pipeline_id TEXT    NOT NULL REFERENCES pipelines (id) ON DELETE CASCADE,
    secret      TEXT    NOT NULL,
    created_at  INTEGER  NOT NULL,
    retires_at  INTEGER
);
CREATE INDEX pipeline_webhook_secrets_by_pipeline ON pipeline_webhook_secrets (pipeline_id);

-- The webhook-id of each webhook call that started a run, so that a repeat of it starts none. A row is kept only
-- as long as a repeat could still pass the timestamp check.
CREATE TABLE pipeline_webhook_calls (
    pipeline_id TEXT    NOT NULL REFERENCES pipelines (id) ON DELETE CASCADE,
    webhook_id  TEXT    NOT NULL,
    run_id      TEXT    NOT NULL,
    received_at INTEGER  NOT NULL,
    PRIMARY KEY (pipeline_id, webhook_id)
);
