-- Deployments: a registry model served by replicas on this machine (cluster local) or by pods on a Kubernetes
-- cluster, in a project; a name is unique in its project (it becomes the Kubernetes objects' name and the OpenAI
-- `model`). auto_scaling and rate_limit are JSON objects, NULL when off. server_instance is the server that runs a
-- local deployment's replicas (NULL on Kubernetes, where the cluster runs them).
CREATE TABLE deployments (
    id               TEXT    PRIMARY KEY,
    project_id       TEXT    NOT NULL,
    name             TEXT    NOT NULL,
    model_id         TEXT    NOT NULL,
    cluster_id       TEXT    NOT NULL,
    replicas         INTEGER NOT NULL,
    ready_replicas   INTEGER NOT NULL,
    auto_scaling     TEXT,
    rate_limit       TEXT,
    status           TEXT    NOT NULL,
    error            TEXT,
    endpoint_url     TEXT,
    server_instance  TEXT,
    created_at       BIGINT  NOT NULL,
    updated_at       BIGINT  NOT NULL,
    UNIQUE (project_id, name)
);
CREATE INDEX deployments_by_model ON deployments (model_id);
CREATE INDEX deployments_by_cluster ON deployments (cluster_id);
