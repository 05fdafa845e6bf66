-- Registry entries admins add beside the shipped catalog (catalog/mcp-connectors.json): an MCP server others may
-- configure as a gateway. The entry is kept as JSON in the catalog's shape.
CREATE TABLE connector_registry (
    id          TEXT    PRIMARY KEY,
    name        TEXT    NOT NULL,
    entry       TEXT    NOT NULL,
    created_at  INTEGER  NOT NULL
);
