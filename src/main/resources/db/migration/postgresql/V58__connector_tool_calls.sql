-- The audit of tool calls through agents' MCP endpoints: one row per call, kept for ARBOR_MCP_AUDIT_RETENTION_DAYS.
-- identity: the token that called; arguments_sha256: the SHA-256 of the arguments as canonical JSON (the arguments
-- themselves are not kept); outcome: ok, tool_error (the server answered with isError), failed (it could not be
-- used), denied (the tool's policy) or rate_limited; error: what the agent was told when the outcome is not ok.
CREATE TABLE connector_tool_calls (
    id TEXT PRIMARY KEY,
    called_at BIGINT NOT NULL,
    project_id TEXT NOT NULL,
    identity TEXT NOT NULL,
    prompt_id TEXT NOT NULL,
    gateway_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    arguments_sha256 TEXT NOT NULL,
    duration_ms BIGINT NOT NULL,
    outcome TEXT NOT NULL,
    error TEXT
);
CREATE INDEX connector_tool_calls_project ON connector_tool_calls (project_id, id);
CREATE INDEX connector_tool_calls_called_at ON connector_tool_calls (called_at);
