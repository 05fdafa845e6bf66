-- A counter per table that inference reads from memory (deployments, routers): every insert, update and delete moves
-- it, in the same transaction as the change, so that a server sharing the database sees at one cheap read whether its
-- in-memory view is behind. Triggers count, so that no write path can forget to; before each statement, so that every
-- writer of a table takes the counter's row lock before any row of the table (one order: no deadlock between them).
CREATE TABLE change_counters (
    topic   TEXT   PRIMARY KEY,
    version BIGINT NOT NULL
);
INSERT INTO change_counters (topic, version) VALUES ('deployments', 0), ('routers', 0);

CREATE FUNCTION count_change() RETURNS trigger AS $$
BEGIN
    UPDATE change_counters SET version = version + 1 WHERE topic = TG_ARGV[0];
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER deployments_count_change BEFORE INSERT OR UPDATE OR DELETE ON deployments
    FOR EACH STATEMENT EXECUTE FUNCTION count_change('deployments');
CREATE TRIGGER routers_count_change BEFORE INSERT OR UPDATE OR DELETE ON routers
    FOR EACH STATEMENT EXECUTE FUNCTION count_change('routers');

-- Where other servers reach a server (its own address, not a load balancer's), so that a request for a local
-- deployment that reaches another server is passed to the one that runs its replicas. Written once it listens.
ALTER TABLE server_instances ADD COLUMN address TEXT;
