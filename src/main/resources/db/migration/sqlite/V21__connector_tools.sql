-- The tools a gateway's MCP server offers, as last fetched: a tool keeps its id across fetches while its name stays.
CREATE TABLE connector_tools (
    id            TEXT    PRIMARY KEY,
    gateway_id    TEXT    NOT NULL REFERENCES connector_gateways (id) ON DELETE CASCADE,
    name          TEXT    NOT NULL,
    title         TEXT,
    description   TEXT    NOT NULL,
    input_schema  TEXT    NOT NULL,
    annotations   TEXT,
    created_at    INTEGER  NOT NULL,
    updated_at    INTEGER  NOT NULL,
    UNIQUE (gateway_id, name)
);
