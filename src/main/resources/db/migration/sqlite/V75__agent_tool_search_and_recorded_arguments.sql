-- An agent's own settings, beside its bindings: tool_mode 'all' lists every attached tool; 'search' lists the two meta
-- tools search_tools and call_tool instead. Kept when the agent's last gateway is detached, so a re-attach keeps it.
CREATE TABLE connector_agent_settings (
    prompt_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    tool_mode TEXT NOT NULL DEFAULT 'all',
    updated_at BIGINT NOT NULL
);
-- A gateway whose record_arguments is 1 has its calls' arguments kept in the audit, secrets masked; never by default.
ALTER TABLE connector_gateways ADD COLUMN record_arguments INTEGER NOT NULL DEFAULT 0;
-- The arguments of an audited call as canonical JSON with secrets masked, when its gateway records them.
ALTER TABLE connector_tool_calls ADD COLUMN arguments TEXT;
