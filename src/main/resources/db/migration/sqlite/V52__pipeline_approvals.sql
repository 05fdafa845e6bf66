-- An approval step's question to people: one per step and generation of a run (a retried run asks again). status
-- is pending until an approver answers (approved, rejected) or expires_at passes (then on_timeout decides, by
-- 'timeout'). approvers is a JSON list of who may answer: token ids, role:admin, role:member, project:<id>.
CREATE TABLE pipeline_approvals (
    id           TEXT    PRIMARY KEY,
    run_id       TEXT    NOT NULL REFERENCES pipeline_runs (id) ON DELETE CASCADE,
    step_id      TEXT    NOT NULL,
    generation   INTEGER NOT NULL,
    pipeline_id  TEXT    NOT NULL,
    message      TEXT    NOT NULL,
    approvers    TEXT    NOT NULL,
    on_timeout   TEXT    NOT NULL,
    status       TEXT    NOT NULL,
    decided_by   TEXT,
    decided_at   INTEGER,
    comment      TEXT,
    requested_at INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    UNIQUE (run_id, step_id, generation)
);
CREATE INDEX pipeline_approvals_pending ON pipeline_approvals (status, requested_at);
