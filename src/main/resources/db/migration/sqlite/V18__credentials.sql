-- Named secrets that automations refer to (a pipeline step's credential_ref) instead of holding the value: sealed,
-- write-only in the API, opened only when a step runs.
CREATE TABLE credentials (
    id          TEXT    PRIMARY KEY,
    name        TEXT    NOT NULL UNIQUE,
    description TEXT    NOT NULL,
    sealed      TEXT    NOT NULL,
    created_at  INTEGER  NOT NULL,
    updated_at  INTEGER  NOT NULL
);
