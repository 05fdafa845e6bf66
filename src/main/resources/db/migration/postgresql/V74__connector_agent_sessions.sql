-- The MCP sessions agents' endpoints keep with their clients (Mcp-Session-Id): opened by initialize for one agent and
-- one caller identity (an API token's or inference key's id), the id kept only as its SHA-256, gone after a day
-- unused. Rows rather than memory, so that every server sharing the database knows a client's session.
CREATE TABLE connector_agent_sessions (
    id_hash           TEXT    PRIMARY KEY,
    prompt_id         TEXT    NOT NULL,
    identity          TEXT    NOT NULL,
    protocol_version  TEXT    NOT NULL,
    created_at        BIGINT  NOT NULL,
    last_used_at      BIGINT  NOT NULL
);
CREATE INDEX connector_agent_sessions_by_use ON connector_agent_sessions (last_used_at);
