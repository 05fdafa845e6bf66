-- Kubernetes clusters that deployments may run on (this machine, `local`, is built in and not stored). The kubeconfig
-- is sealed and write-only in the API; server, context and namespace are what it resolved to when last checked.
CREATE TABLE clusters (
    id          TEXT    PRIMARY KEY,
    name        TEXT    NOT NULL UNIQUE,
    server      TEXT    NOT NULL,
    context     TEXT    NOT NULL,
    namespace   TEXT    NOT NULL,
    sealed      TEXT    NOT NULL,
    created_at  BIGINT  NOT NULL,
    updated_at  BIGINT  NOT NULL
);
