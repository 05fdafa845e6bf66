-- The servers running on this database, one row per server start: the server refreshes its heartbeat while it runs
-- and removes its row when it stops, so that any server can tell which unfinished work was left by one that is gone.
-- A server's process is named by where it runs (host name, boot, process namespace and data folder), its pid and its
-- start, so that a server restarted on the same machine and folder knows its previous life without waiting.
CREATE TABLE server_instances (
    id                 TEXT    PRIMARY KEY,
    place              TEXT    NOT NULL,
    pid                BIGINT  NOT NULL,
    process_started_at BIGINT,
    started_at         TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP,
    heartbeat_at       TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- The server that made a decision, and runs it while it is queued or running; NULL for decisions made before servers
-- registered.
ALTER TABLE studio_decisions ADD COLUMN server_instance TEXT;
