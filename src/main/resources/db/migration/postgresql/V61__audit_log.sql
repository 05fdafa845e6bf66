-- The audit log of changes to admin state: one row per write request whose work committed, written in the same
-- transaction as the change (every write transaction of the request inserts it; the first to commit keeps it). It
-- cannot be changed or deleted through the API; rows older than ARBOR_AUDIT_RETENTION_DAYS are pruned.
-- actor_id: the API token's id, 'env' (ARBOR_ADMIN_TOKEN), 'local' (the local admin) or 'studio' (the studio's key);
-- actor_name: the token's name when the change was made. action: create, update, delete or an action's name (cancel,
-- pause, ...); route: the route's method and template. before_state, after_state: the resource as its read showed it
-- before and after, redacted (JSON; null when there was none: before a create, after a delete). diff: complete (both
-- states read), after_unknown (the row committed with the change, and the server stopped before it read the state
-- after: the after state is added in a second transaction, once the request's work is done) or unreadable (no read
-- shows this resource, or it failed). request_fields: the names of the request body's top-level fields (never their
-- values). status: the answer's status, once known.
CREATE TABLE audit_log (
    id TEXT PRIMARY KEY,
    created_at BIGINT NOT NULL,
    actor_id TEXT NOT NULL,
    actor_name TEXT NOT NULL,
    action TEXT NOT NULL,
    route TEXT NOT NULL,
    resource_type TEXT NOT NULL,
    resource_id TEXT,
    project_id TEXT,
    request_id TEXT NOT NULL,
    before_state TEXT,
    after_state TEXT,
    diff TEXT NOT NULL,
    request_fields TEXT NOT NULL,
    status INTEGER
);
CREATE INDEX audit_log_project ON audit_log (project_id, id);
CREATE INDEX audit_log_resource ON audit_log (resource_type, resource_id, id);
CREATE INDEX audit_log_created_at ON audit_log (created_at);
