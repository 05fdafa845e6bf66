-- Triggers: a project's subscription to a shared event connection's events, with what matches (event types, a
-- filter of envelope JSONPaths) and what it starts (target: a pipeline with params, or a URL). A URL target's
-- signing secret is sealed; previous_secret is the one a rotation replaced, still signed with until it expires.
CREATE TABLE triggers (
    id                          TEXT    PRIMARY KEY,
    project_id                  TEXT    NOT NULL,
    connection_id               TEXT    NOT NULL,
    name                        TEXT    NOT NULL,
    event_types                 TEXT    NOT NULL,
    filter                      TEXT    NOT NULL,
    target                      TEXT    NOT NULL,
    secret                      TEXT,
    previous_secret             TEXT,
    previous_secret_expires_at  INTEGER,
    enabled                     INTEGER NOT NULL,
    debounce_seconds            INTEGER NOT NULL,
    correlation_key             TEXT,
    created_at                  INTEGER NOT NULL,
    updated_at                  INTEGER NOT NULL
);
CREATE INDEX triggers_by_project ON triggers (project_id, id);
CREATE INDEX triggers_by_connection ON triggers (connection_id);

-- One trigger fired by one delivery in one round (0, then each replay): at most one row each, however often the
-- dispatch is repeated. event is the envelope, kept until the firing ends; a debounced firing belongs to a window
-- and, when a later event of its window came, is merged into that one's firing.
CREATE TABLE trigger_firings (
    id                 TEXT    PRIMARY KEY,
    trigger_id         TEXT    NOT NULL,
    project_id         TEXT    NOT NULL,
    delivery_id        TEXT    NOT NULL,
    round              INTEGER NOT NULL,
    status             TEXT    NOT NULL,
    event              TEXT,
    window_id          TEXT,
    correlation_value  TEXT,
    event_count        INTEGER NOT NULL,
    merged_into        TEXT,
    run_id             TEXT,
    error              TEXT,
    fired_at           INTEGER NOT NULL,
    updated_at         INTEGER NOT NULL,
    UNIQUE (delivery_id, trigger_id, round)
);
CREATE INDEX trigger_firings_by_trigger ON trigger_firings (trigger_id, id);
CREATE INDEX trigger_firings_by_window ON trigger_firings (window_id);

-- Each attempt to deliver a firing to a URL target: the status the target answered, or why it could not be reached.
CREATE TABLE trigger_firing_attempts (
    firing_id     TEXT    NOT NULL REFERENCES trigger_firings (id) ON DELETE CASCADE,
    attempt       INTEGER NOT NULL,
    attempted_at  INTEGER NOT NULL,
    status_code   INTEGER,
    error         TEXT,
    PRIMARY KEY (firing_id, attempt)
);

-- The open debounce window of a trigger per correlation value: one at a time; it closes (the row goes) when its
-- firing starts the target.
CREATE TABLE trigger_windows (
    trigger_id         TEXT    NOT NULL,
    correlation_value  TEXT    NOT NULL,
    window_id          TEXT    NOT NULL UNIQUE,
    opened_at          INTEGER NOT NULL,
    due_at             INTEGER NOT NULL,
    event_count        INTEGER NOT NULL,
    PRIMARY KEY (trigger_id, correlation_value)
);
