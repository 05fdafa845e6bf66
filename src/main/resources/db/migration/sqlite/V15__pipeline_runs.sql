-- The durable job engine's one table (db-scheduler 16.12): a row per scheduled execution, picked by one node at a
-- time, deleted when the execution ends. It keeps no history: runs and steps below are ours.
CREATE TABLE scheduled_tasks (
    task_name            VARCHAR(100) NOT NULL,
    task_instance        VARCHAR(100) NOT NULL,
    task_data            BLOB,
    execution_time       TIMESTAMP NOT NULL,
    picked               BIT NOT NULL,
    picked_by            VARCHAR(100),
    last_success         TIMESTAMP,
    last_failure         TIMESTAMP,
    consecutive_failures INTEGER,
    last_heartbeat       TIMESTAMP,
    version              INTEGER NOT NULL,
    priority             SMALLINT,
    PRIMARY KEY (task_name, task_instance)
);
CREATE INDEX scheduled_tasks_execution_time ON scheduled_tasks (execution_time);
CREATE INDEX scheduled_tasks_last_heartbeat ON scheduled_tasks (last_heartbeat);
CREATE INDEX scheduled_tasks_priority_execution_time ON scheduled_tasks (priority DESC, execution_time ASC);

-- A run of a pipeline: the definition as it was when the run began (later edits do not change a run), its params
-- and what started it. generation counts retries: work scheduled for an earlier generation is stale.
CREATE TABLE pipeline_runs (
    id               TEXT    PRIMARY KEY,
    pipeline_id      TEXT    NOT NULL,
    pipeline_version INTEGER NOT NULL,
    definition       TEXT    NOT NULL,
    params           TEXT    NOT NULL,
    triggered_by     TEXT    NOT NULL,
    status           TEXT    NOT NULL,
    generation       INTEGER NOT NULL,
    outputs          TEXT,
    error            TEXT,
    timeout_seconds  INTEGER NOT NULL,
    deadline_at      INTEGER  NOT NULL,
    created_at       INTEGER  NOT NULL,
    started_at       INTEGER,
    finished_at      INTEGER,
    updated_at       INTEGER  NOT NULL
);
CREATE INDEX pipeline_runs_by_pipeline ON pipeline_runs (pipeline_id, id);
CREATE INDEX pipeline_runs_active ON pipeline_runs (status) WHERE status IN ('queued', 'running');

-- Each step of a run: its status, attempts, outputs or error, and when a parked step (waiting, retrying) is due.
CREATE TABLE pipeline_run_steps (
    run_id          TEXT    NOT NULL REFERENCES pipeline_runs (id) ON DELETE CASCADE,
    step_id         TEXT    NOT NULL,
    position        INTEGER NOT NULL,
    status          TEXT    NOT NULL,
    attempts        INTEGER NOT NULL,
    outputs         TEXT,
    error           TEXT,
    started_at      INTEGER,
    finished_at     INTEGER,
    due_at          INTEGER,
    wait_deadline_at INTEGER,
    PRIMARY KEY (run_id, step_id)
);

-- What happened in a run, in order: status changes of the run and its steps, and log lines; streamed as events.
CREATE TABLE pipeline_run_events (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id   TEXT    NOT NULL REFERENCES pipeline_runs (id) ON DELETE CASCADE,
    at       INTEGER  NOT NULL,
    kind     TEXT    NOT NULL,
    step_id  TEXT,
    status   TEXT,
    level    TEXT,
    message  TEXT    NOT NULL
);
CREATE INDEX pipeline_run_events_by_run ON pipeline_run_events (run_id, id);
