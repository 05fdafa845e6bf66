-- A replay is a new run of an ended one: replay_of names the run it replays (which never changes); NULL otherwise.
ALTER TABLE pipeline_runs ADD COLUMN replay_of TEXT;

-- Every saved definition of a pipeline, by version: what its runs ran, and what two versions differ by. The versions
-- of pipelines saved before this table are their current ones.
CREATE TABLE pipeline_versions (
    pipeline_id TEXT    NOT NULL REFERENCES pipelines (id) ON DELETE CASCADE,
    version     INTEGER NOT NULL,
    definition  TEXT    NOT NULL,
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (pipeline_id, version)
);
INSERT INTO pipeline_versions (pipeline_id, version, definition, created_at)
SELECT id, version, definition, updated_at FROM pipelines;
