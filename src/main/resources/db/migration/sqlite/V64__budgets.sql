-- Budgets: a cap on what a project, an inference key or a router of a project may spend, in USD (pico-dollars, exact)
-- and/or tokens, per calendar day, ISO week or month in a time zone (an IANA name or a fixed offset), or in total.
CREATE TABLE budgets (
    id           TEXT    PRIMARY KEY,
    project_id   TEXT    NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    scope        TEXT    NOT NULL,
    scope_id     TEXT    NOT NULL,
    usd_picos    INTEGER,
    tokens       INTEGER,
    period       TEXT    NOT NULL,
    time_zone    TEXT    NOT NULL,
    created_at   INTEGER NOT NULL
);
CREATE INDEX budgets_by_project ON budgets (project_id, created_at);

-- What each budget's period has spent, and what requests on their way have reserved: a request reserves its most
-- before anything is sent upstream (in the transaction that checks the budget, under this row's lock) and settles
-- with its real usage when it ends.
CREATE TABLE budget_periods (
    budget_id        TEXT    NOT NULL REFERENCES budgets (id) ON DELETE CASCADE,
    period_start     INTEGER NOT NULL,
    spent_picos      INTEGER NOT NULL,
    spent_tokens     INTEGER NOT NULL,
    reserved_picos   INTEGER NOT NULL,
    reserved_tokens  INTEGER NOT NULL,
    PRIMARY KEY (budget_id, period_start)
);

INSERT INTO change_counters (topic, version) VALUES ('budgets', 0);
CREATE TRIGGER budgets_count_insert AFTER INSERT ON budgets
BEGIN
    UPDATE change_counters SET version = version + 1 WHERE topic = 'budgets';
END;
CREATE TRIGGER budgets_count_update AFTER UPDATE ON budgets
BEGIN
    UPDATE change_counters SET version = version + 1 WHERE topic = 'budgets';
END;
CREATE TRIGGER budgets_count_delete AFTER DELETE ON budgets
BEGIN
    UPDATE change_counters SET version = version + 1 WHERE topic = 'budgets';
END;
