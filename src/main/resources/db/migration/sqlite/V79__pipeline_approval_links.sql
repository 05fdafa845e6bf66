-- The signed one-click links an approval step's email carries: one per recipient and decision (approved, rejected).
-- A link is used once: used_at is set by the click that answers with it (or finds the question answered). It is
-- valid while its question is pending and its time has not run out (the question's expires_at, which a pause moves
-- on). notified_at on the question: when its channels were told, so that a repeated execution tells them once.
CREATE TABLE pipeline_approval_links (
    id          TEXT    PRIMARY KEY,
    approval_id TEXT    NOT NULL REFERENCES pipeline_approvals (id) ON DELETE CASCADE,
    decision    TEXT    NOT NULL,
    recipient   TEXT    NOT NULL,
    created_at  INTEGER NOT NULL,
    used_at     INTEGER
);
CREATE INDEX pipeline_approval_links_approval ON pipeline_approval_links (approval_id);
ALTER TABLE pipeline_approvals ADD COLUMN notified_at INTEGER;
