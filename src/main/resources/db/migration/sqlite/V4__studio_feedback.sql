-- Feedback on decisions: one row per question and actor (re-posting updates it); question '*' holds a rating alone.
CREATE TABLE studio_feedback (
    id          TEXT    PRIMARY KEY,
    decision_id TEXT    NOT NULL REFERENCES studio_decisions (id) ON DELETE CASCADE,
    question    TEXT    NOT NULL,
    expected    TEXT,
    predicted   TEXT,
    correct     INTEGER,
    rating      INTEGER CHECK (rating IN (-1, 1)),
    note        TEXT,
    actor       TEXT    NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    UNIQUE (decision_id, question, actor)
);
CREATE INDEX studio_feedback_correct ON studio_feedback (decision_id, correct);
