-- A run started by a Run Pipeline step names its parent: the run, the step and the parent's generation (a retried
-- parent starts its steps anew). One child per step and generation: a second start, on this server or another, inserts
-- nothing. NULL for a run no step started.
ALTER TABLE pipeline_runs ADD COLUMN parent_run_id TEXT;
ALTER TABLE pipeline_runs ADD COLUMN parent_step_id TEXT;
ALTER TABLE pipeline_runs ADD COLUMN parent_generation INTEGER;
CREATE UNIQUE INDEX pipeline_runs_child_of ON pipeline_runs (parent_run_id, parent_step_id, parent_generation);
