-- Test examples of a template: immutable rows. An edit retires the current row and adds one with the same id; a
-- delete retires it. Each change moves the template's examples revision on, so any past set can be read back.
CREATE TABLE studio_examples (
    row_seq       INTEGER PRIMARY KEY AUTOINCREMENT,
    id            TEXT    NOT NULL,
    template_id   TEXT    NOT NULL,
    revision      INTEGER NOT NULL,
    retired_in    INTEGER,
    input         TEXT    NOT NULL,
    input_hash    TEXT    NOT NULL,
    expected      TEXT    NOT NULL,
    tags          TEXT    NOT NULL,
    split         TEXT    NOT NULL CHECK (split IN ('test', 'calibration')),
    note          TEXT,
    from_decision TEXT,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
);
CREATE INDEX studio_examples_current ON studio_examples (template_id, retired_in, id);
CREATE INDEX studio_examples_input ON studio_examples (template_id, input_hash);

CREATE TABLE studio_example_revisions (
    template_id TEXT    PRIMARY KEY,
    revision    INTEGER NOT NULL
);
