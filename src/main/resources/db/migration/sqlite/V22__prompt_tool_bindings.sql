-- Which tools of which gateway an agent (prompt) uses, one row per tool, in the agent's project. Rows, not copies:
-- they go with their gateway or tool, and nothing else removes them but a detach.
CREATE TABLE prompt_tool_bindings (
    prompt_id   TEXT    NOT NULL,
    project_id  TEXT    NOT NULL,
    gateway_id  TEXT    NOT NULL REFERENCES connector_gateways (id) ON DELETE CASCADE,
    tool_id     TEXT    NOT NULL REFERENCES connector_tools (id) ON DELETE CASCADE,
    created_at  INTEGER  NOT NULL,
    PRIMARY KEY (prompt_id, gateway_id, tool_id)
);
CREATE INDEX prompt_tool_bindings_by_gateway ON prompt_tool_bindings (gateway_id);
