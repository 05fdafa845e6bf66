-- Schedules of pipelines: a cron expression read in an IANA time zone, the params runs start with, and the state of
-- its firings. generation counts changes (pause, resume, edit): a firing armed for an earlier generation is stale.
CREATE TABLE pipeline_schedules (
    id           TEXT    PRIMARY KEY,
    pipeline_id  TEXT    NOT NULL REFERENCES pipelines (id) ON DELETE CASCADE,
    name         TEXT    NOT NULL,
    cron         TEXT    NOT NULL,
    timezone     TEXT    NOT NULL,
    params       TEXT    NOT NULL,
    status       TEXT    NOT NULL,
    generation   INTEGER NOT NULL,
    next_run_at  INTEGER,
    last_run_at  INTEGER,
    last_run_id  TEXT,
    last_error   TEXT,
    run_count    INTEGER NOT NULL,
    created_at   INTEGER  NOT NULL,
    updated_at   INTEGER  NOT NULL
);
CREATE INDEX pipeline_schedules_by_pipeline ON pipeline_schedules (pipeline_id, id);

-- The firing a run came from, if any: one run per firing, however many nodes or repeats there are.
ALTER TABLE pipeline_runs ADD COLUMN schedule_id TEXT;
ALTER TABLE pipeline_runs ADD COLUMN scheduled_for INTEGER;
CREATE UNIQUE INDEX pipeline_runs_one_per_firing ON pipeline_runs (schedule_id, scheduled_for)
    WHERE schedule_id IS NOT NULL;
