-- A paused run (status 'paused') starts no new step: paused_at is when it was paused, so that resuming it can move
-- its deadline and its steps' waits on by the time it stood still. NULL when it is not paused.
ALTER TABLE pipeline_runs ADD COLUMN paused_at BIGINT;
-- A paused pipeline starts no new run: its schedules' and triggers' firings are skipped, a manual run is refused.
-- paused_at is when it was paused; NULL when it is not.
ALTER TABLE pipelines ADD COLUMN paused_at BIGINT;
