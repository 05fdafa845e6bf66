-- The servers running on this database, one row per server start (see the PostgreSQL migration). On SQLite one
-- server holds the data folder, so no heartbeat is kept: every other row belongs to a server that stopped.
CREATE TABLE server_instances (
    id                 TEXT    PRIMARY KEY,
    place              TEXT    NOT NULL,
    pid                INTEGER NOT NULL,
    process_started_at INTEGER,
    started_at         TEXT    NOT NULL DEFAULT CURRENT_TIMESTAMP,
    heartbeat_at       TEXT    NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- The server that made a decision, and runs it while it is queued or running; NULL for decisions made before servers
-- registered.
ALTER TABLE studio_decisions ADD COLUMN server_instance TEXT;
