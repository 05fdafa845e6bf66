-- One counter, raised in the same transaction as every change to gateways, their tools or agents' bindings: a
-- server keeps what an agent's endpoint serves in memory while the counter stays, on every server sharing the
-- database.
CREATE TABLE connector_changes (
    id       INTEGER PRIMARY KEY,
    version  BIGINT  NOT NULL
);
INSERT INTO connector_changes (id, version) VALUES (1, 0);
