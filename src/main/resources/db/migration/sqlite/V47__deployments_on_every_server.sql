-- A counter per table that inference reads from memory (deployments, routers): every insert, update and delete moves
-- it, in the same transaction as the change. One server holds a SQLite database, so none reads it today; it is kept
-- as on PostgreSQL so that both schemas stay one.
CREATE TABLE change_counters (
    topic   TEXT    PRIMARY KEY,
    version INTEGER NOT NULL
);
INSERT INTO change_counters (topic, version) VALUES ('deployments', 0), ('routers', 0);

CREATE TRIGGER deployments_count_insert AFTER INSERT ON deployments
BEGIN
    UPDATE change_counters SET version = version + 1 WHERE topic = 'deployments';
END;
CREATE TRIGGER deployments_count_update AFTER UPDATE ON deployments
BEGIN
    UPDATE change_counters SET version = version + 1 WHERE topic = 'deployments';
END;
CREATE TRIGGER deployments_count_delete AFTER DELETE ON deployments
BEGIN
    UPDATE change_counters SET version = version + 1 WHERE topic = 'deployments';
END;
CREATE TRIGGER routers_count_insert AFTER INSERT ON routers
BEGIN
    UPDATE change_counters SET version = version + 1 WHERE topic = 'routers';
END;
CREATE TRIGGER routers_count_update AFTER UPDATE ON routers
BEGIN
    UPDATE change_counters SET version = version + 1 WHERE topic = 'routers';
END;
CREATE TRIGGER routers_count_delete AFTER DELETE ON routers
BEGIN
    UPDATE change_counters SET version = version + 1 WHERE topic = 'routers';
END;

-- Where other servers reach a server (its own address, not a load balancer's), so that a request for a local
-- deployment that reaches another server is passed to the one that runs its replicas. Written once it listens.
ALTER TABLE server_instances ADD COLUMN address TEXT;
