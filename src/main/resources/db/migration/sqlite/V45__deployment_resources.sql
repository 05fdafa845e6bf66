-- Deployments in no project (an admin's made without one, a pipeline step's), and the resources each replica asks
-- for (a JSON object {cpu, memory_bytes, gpus, gpu_type}, NULL when the deployment asks for none). SQLite cannot drop
-- a NOT NULL, so the table is made again. Names stay unique in a project, and among the deployments in none.
CREATE TABLE deployments_v45 (
    id               TEXT    PRIMARY KEY,
    project_id       TEXT,
    name             TEXT    NOT NULL,
    model_id         TEXT    NOT NULL,
    cluster_id       TEXT    NOT NULL,
    replicas         INTEGER NOT NULL,
    ready_replicas   INTEGER NOT NULL,
    auto_scaling     TEXT,
    rate_limit       TEXT,
    resources        TEXT,
    status           TEXT    NOT NULL,
    error            TEXT,
    endpoint_url     TEXT,
    server_instance  TEXT,
    created_at       INTEGER  NOT NULL,
    updated_at       INTEGER  NOT NULL,
    UNIQUE (project_id, name)
);
INSERT INTO deployments_v45 (id, project_id, name, model_id, cluster_id, replicas, ready_replicas, auto_scaling,
                             rate_limit, status, error, endpoint_url, server_instance, created_at, updated_at)
    SELECT id, project_id, name, model_id, cluster_id, replicas, ready_replicas, auto_scaling, rate_limit, status,
           error, endpoint_url, server_instance, created_at, updated_at
    FROM deployments;
DROP TABLE deployments;
ALTER TABLE deployments_v45 RENAME TO deployments;
CREATE INDEX deployments_by_model ON deployments (model_id);
CREATE INDEX deployments_by_cluster ON deployments (cluster_id);
CREATE UNIQUE INDEX deployments_names_in_no_project ON deployments (name) WHERE project_id IS NULL;
