-- Pipeline definitions: a name unique among them, and the checked definition (parameters, steps, outputs) as JSON.
-- Each save is a new version of the same pipeline; runs record the version they ran.
CREATE TABLE pipelines (
    id          TEXT    PRIMARY KEY,
    name        TEXT    NOT NULL UNIQUE,
    definition  TEXT    NOT NULL,
    step_count  INTEGER NOT NULL,
    version     INTEGER NOT NULL,
    created_at  INTEGER  NOT NULL,
    updated_at  INTEGER  NOT NULL
);
