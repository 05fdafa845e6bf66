-- Inference keys: a project's keys for the OpenAI-compatible routes (/v1/...). Only a hash of the secret is kept; the
-- routers and models a key may call are JSON arrays of names or ids (empty: all of its project's).
CREATE TABLE inference_keys (
    id           TEXT    PRIMARY KEY,
    project_id   TEXT    NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name         TEXT    NOT NULL,
    secret_hash  TEXT    NOT NULL UNIQUE,
    hint         TEXT    NOT NULL,
    routers      TEXT    NOT NULL,
    models       TEXT    NOT NULL,
    metadata     TEXT    NOT NULL,
    created_at   INTEGER  NOT NULL,
    expires_at   INTEGER,
    last_used_at INTEGER,
    revoked_at   INTEGER
);
CREATE INDEX inference_keys_by_project ON inference_keys (project_id, created_at);
