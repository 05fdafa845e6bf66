-- Idempotency keys: one row per (caller scope, key); a finished request keeps its response for replay.
CREATE TABLE idempotency_keys (
    scope            TEXT    NOT NULL,
    idempotency_key  TEXT    NOT NULL,
    request_hash     TEXT    NOT NULL,
    state            TEXT    NOT NULL CHECK (state IN ('in_progress', 'done')),
    status_code      INTEGER,
    response_headers TEXT,
    response_body    BLOB,
    created_at       INTEGER NOT NULL,
    PRIMARY KEY (scope, idempotency_key)
);
CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);

CREATE TABLE projects (
    id          TEXT    PRIMARY KEY,
    name        TEXT    NOT NULL UNIQUE,
    description TEXT    NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL
);

-- Admin API tokens: only a hash of the secret is kept.
CREATE TABLE api_tokens (
    id           TEXT    PRIMARY KEY,
    name         TEXT    NOT NULL,
    role         TEXT    NOT NULL CHECK (role IN ('admin', 'member')),
    secret_hash  TEXT    NOT NULL UNIQUE,
    hint         TEXT    NOT NULL,
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER,
    last_used_at INTEGER,
    revoked_at   INTEGER
);

CREATE TABLE api_token_projects (
    token_id   TEXT NOT NULL REFERENCES api_tokens (id) ON DELETE CASCADE,
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    PRIMARY KEY (token_id, project_id)
);
CREATE INDEX api_token_projects_project ON api_token_projects (project_id);
