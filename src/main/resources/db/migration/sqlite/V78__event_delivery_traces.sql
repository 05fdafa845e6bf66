-- The trace of the request that brought a delivery (or asked for its replay), as the W3C traceparent of the span that
-- recorded it: its dispatch, on whichever server and however late, is a span of that trace, and the runs its triggers
-- start link to it. NULL for a delivery recorded while tracing was off.
ALTER TABLE event_deliveries ADD COLUMN trace_parent TEXT;
