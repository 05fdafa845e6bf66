-- Shared event connections: a provider's webhooks, shared with projects or global. settings holds the credentials'
-- plain fields, secrets the sealed secret fields; previous_secret is the sealed signing secret a rotation replaced,
-- still accepted until previous_secret_expires_at. The webhook URL's token is kept only as its SHA-256.
CREATE TABLE event_shared_connections (
    id                          TEXT    PRIMARY KEY,
    name                        TEXT    NOT NULL,
    provider                    TEXT    NOT NULL,
    global                      INTEGER NOT NULL,
    settings                    TEXT    NOT NULL,
    secrets                     TEXT    NOT NULL,
    previous_secret             TEXT,
    previous_secret_expires_at  BIGINT,
    hook_token_sha256           TEXT    NOT NULL UNIQUE,
    created_at                  BIGINT  NOT NULL,
    updated_at                  BIGINT  NOT NULL
);

CREATE TABLE event_shared_connection_projects (
    connection_id  TEXT NOT NULL REFERENCES event_shared_connections (id) ON DELETE CASCADE,
    project_id     TEXT NOT NULL,
    PRIMARY KEY (connection_id, project_id)
);
CREATE INDEX event_shared_connection_projects_by_project ON event_shared_connection_projects (project_id);
