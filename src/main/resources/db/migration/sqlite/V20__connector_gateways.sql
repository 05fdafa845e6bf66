-- Gateways: MCP servers configured for this installation, from the registry or custom. settings holds the
-- credentials' plain parts (client id, scopes, header names); secret the sealed parts (header values, client secret).
-- Scope: enabled, global, and the projects of connector_gateway_projects; clients lists the client surfaces that may
-- use the gateway.
CREATE TABLE connector_gateways (
    id            TEXT    PRIMARY KEY,
    name          TEXT    NOT NULL,
    connector_id  TEXT,
    url           TEXT    NOT NULL,
    transport     TEXT    NOT NULL,
    auth_type     TEXT    NOT NULL,
    description   TEXT    NOT NULL,
    settings      TEXT    NOT NULL,
    secret        TEXT,
    enabled       INTEGER NOT NULL,
    global        INTEGER NOT NULL,
    clients       TEXT    NOT NULL,
    created_at    INTEGER  NOT NULL,
    updated_at    INTEGER  NOT NULL
);

CREATE TABLE connector_gateway_projects (
    gateway_id  TEXT NOT NULL REFERENCES connector_gateways (id) ON DELETE CASCADE,
    project_id  TEXT NOT NULL,
    PRIMARY KEY (gateway_id, project_id)
);
CREATE INDEX connector_gateway_projects_by_project ON connector_gateway_projects (project_id);
