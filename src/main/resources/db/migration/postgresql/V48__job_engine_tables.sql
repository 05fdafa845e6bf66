-- Each job engine on a table of its own, with db-scheduler's columns and indexes as V15 made scheduled_tasks. Engines
-- sharing one table met the others' task names, which they cannot run, and db-scheduler deletes every execution of a
-- task name it has not known for 14 days: a server up two weeks lost the other engines' pending work.

-- Pipelines' runs: their steps and deadlines.
CREATE TABLE pipeline_jobs (
    task_name            TEXT NOT NULL,
    task_instance        TEXT NOT NULL,
    task_data            BYTEA,
    execution_time       TIMESTAMP WITH TIME ZONE NOT NULL,
    picked               BOOLEAN NOT NULL,
    picked_by            TEXT,
    last_success         TIMESTAMP WITH TIME ZONE,
    last_failure         TIMESTAMP WITH TIME ZONE,
    consecutive_failures INTEGER,
    last_heartbeat       TIMESTAMP WITH TIME ZONE,
    version              BIGINT NOT NULL,
    priority             SMALLINT,
    PRIMARY KEY (task_name, task_instance)
);
CREATE INDEX pipeline_jobs_execution_time ON pipeline_jobs (execution_time);
CREATE INDEX pipeline_jobs_last_heartbeat ON pipeline_jobs (last_heartbeat);
CREATE INDEX pipeline_jobs_priority_execution_time ON pipeline_jobs (priority DESC, execution_time ASC);
INSERT INTO pipeline_jobs (
    task_name, task_instance, task_data, execution_time, picked, picked_by, last_success, last_failure,
    consecutive_failures, last_heartbeat, version, priority
)
SELECT
    task_name, task_instance, task_data, execution_time, picked, picked_by, last_success, last_failure,
    consecutive_failures, last_heartbeat, version, priority
FROM scheduled_tasks WHERE task_name IN ('pipeline-step', 'pipeline-run-deadline');

-- Schedules: each one's next firing.
CREATE TABLE schedule_jobs (
    task_name            TEXT NOT NULL,
    task_instance        TEXT NOT NULL,
    task_data            BYTEA,
    execution_time       TIMESTAMP WITH TIME ZONE NOT NULL,
    picked               BOOLEAN NOT NULL,
    picked_by            TEXT,
    last_success         TIMESTAMP WITH TIME ZONE,
    last_failure         TIMESTAMP WITH TIME ZONE,
    consecutive_failures INTEGER,
    last_heartbeat       TIMESTAMP WITH TIME ZONE,
    version              BIGINT NOT NULL,
    priority             SMALLINT,
    PRIMARY KEY (task_name, task_instance)
);
CREATE INDEX schedule_jobs_execution_time ON schedule_jobs (execution_time);
CREATE INDEX schedule_jobs_last_heartbeat ON schedule_jobs (last_heartbeat);
CREATE INDEX schedule_jobs_priority_execution_time ON schedule_jobs (priority DESC, execution_time ASC);
INSERT INTO schedule_jobs (
    task_name, task_instance, task_data, execution_time, picked, picked_by, last_success, last_failure,
    consecutive_failures, last_heartbeat, version, priority
)
SELECT
    task_name, task_instance, task_data, execution_time, picked, picked_by, last_success, last_failure,
    consecutive_failures, last_heartbeat, version, priority
FROM scheduled_tasks WHERE task_name IN ('pipeline-schedule');

-- Triggers: deliveries to URLs and debounce windows.
CREATE TABLE trigger_jobs (
    task_name            TEXT NOT NULL,
    task_instance        TEXT NOT NULL,
    task_data            BYTEA,
    execution_time       TIMESTAMP WITH TIME ZONE NOT NULL,
    picked               BOOLEAN NOT NULL,
    picked_by            TEXT,
    last_success         TIMESTAMP WITH TIME ZONE,
    last_failure         TIMESTAMP WITH TIME ZONE,
    consecutive_failures INTEGER,
    last_heartbeat       TIMESTAMP WITH TIME ZONE,
    version              BIGINT NOT NULL,
    priority             SMALLINT,
    PRIMARY KEY (task_name, task_instance)
);
CREATE INDEX trigger_jobs_execution_time ON trigger_jobs (execution_time);
CREATE INDEX trigger_jobs_last_heartbeat ON trigger_jobs (last_heartbeat);
CREATE INDEX trigger_jobs_priority_execution_time ON trigger_jobs (priority DESC, execution_time ASC);
INSERT INTO trigger_jobs (
    task_name, task_instance, task_data, execution_time, picked, picked_by, last_success, last_failure,
    consecutive_failures, last_heartbeat, version, priority
)
SELECT
    task_name, task_instance, task_data, execution_time, picked, picked_by, last_success, last_failure,
    consecutive_failures, last_heartbeat, version, priority
FROM scheduled_tasks WHERE task_name IN ('trigger-delivery', 'trigger-window');

-- Every task name Arbor has used is in one of the tables above. A row of another name could only be a stranger's, which
-- no engine runs (the shared engines would have deleted it within 14 days): it goes with the table.
DROP TABLE scheduled_tasks;
