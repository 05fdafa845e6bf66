-- A pipeline may cap how many of its runs run at once (its definition's max_concurrent_runs): a run started beyond
-- the cap waits queued until one ends, the highest priority first and, within a priority, the oldest first. A run
-- keeps the cap of the definition it started on, and its priority (the definition's, or the one it was started with).
ALTER TABLE pipeline_runs ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
ALTER TABLE pipeline_runs ADD COLUMN max_concurrent_runs INTEGER;
CREATE INDEX pipeline_runs_by_pipeline_status ON pipeline_runs (pipeline_id, status, priority, created_at);
