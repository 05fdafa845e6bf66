-- Routers: a project's named graph of steps that picks, per inference request, the endpoint that answers it.
-- dag_config is the graph as last saved; a name is unique in its project. modified_at moves on every save.
CREATE TABLE routers (
    id           TEXT    PRIMARY KEY,
    project_id   TEXT    NOT NULL,
    name         TEXT    NOT NULL,
    description  TEXT    NOT NULL,
    tags         TEXT    NOT NULL,
    icon         TEXT    NOT NULL,
    status       TEXT    NOT NULL,
    dag_config   TEXT    NOT NULL,
    created_at   BIGINT  NOT NULL,
    modified_at  BIGINT  NOT NULL,
    UNIQUE (project_id, name)
);
CREATE INDEX routers_by_project ON routers (project_id, id);

-- Each dag_config a save replaced, numbered from 1 in the order they were replaced.
CREATE TABLE router_versions (
    router_id    TEXT    NOT NULL REFERENCES routers (id) ON DELETE CASCADE,
    version      INTEGER NOT NULL,
    dag_config   TEXT    NOT NULL,
    saved_at     BIGINT  NOT NULL,
    replaced_at  BIGINT  NOT NULL,
    PRIMARY KEY (router_id, version)
);

-- What a router's dag_config refers to outside itself (kind: model or credential), rewritten on every save, so
-- that deleting one of them finds the active routers that use it.
CREATE TABLE router_references (
    router_id  TEXT NOT NULL REFERENCES routers (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL,
    ref        TEXT NOT NULL,
    PRIMARY KEY (router_id, kind, ref)
);
CREATE INDEX router_references_by_ref ON router_references (kind, ref);
