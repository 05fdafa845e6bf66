-- The trace a run belongs to, as the W3C traceparent of the span that began it: each step attempt is a span under it,
-- so a run resumed after a restart, or by another server, continues the same trace. NULL for a run begun while
-- tracing was off.
ALTER TABLE pipeline_runs ADD COLUMN trace_parent TEXT;
