-- Requests to shared connections' webhook URLs that were not handshakes: the delivery log, and the durable record
-- dispatch to the triggers works from. status: accepted (signature valid, an event), refused (signature failed) or
-- unreadable (signed, but no event could be read). headers and body are masked (no secret in them); payload is the
-- event's, body what a refused or unreadable one sent (cut at 64 KiB). A provider's repeated delivery id is counted
-- on the first (duplicates), never stored or dispatched again. pending_round is the round waiting for dispatch (the
-- delivery is round 0, each replay one more; NULL: none waits), rounds how many were dispatched; error
-- says why an unreadable one could not be read, or why the last dispatch of an accepted one failed.
CREATE TABLE event_deliveries (
    id                    TEXT    PRIMARY KEY,
    connection_id         TEXT    NOT NULL REFERENCES event_shared_connections (id) ON DELETE CASCADE,
    provider              TEXT    NOT NULL,
    status                TEXT    NOT NULL,
    type                  TEXT,
    listed_type           INTEGER NOT NULL,
    provider_delivery_id  TEXT,
    duplicates            INTEGER NOT NULL,
    last_duplicate_at     BIGINT,
    signature             TEXT    NOT NULL,
    headers               TEXT    NOT NULL,
    payload               TEXT,
    body                  TEXT,
    occurred_at           BIGINT  NOT NULL,
    received_at           BIGINT  NOT NULL,
    pending_round         INTEGER,
    rounds                INTEGER NOT NULL,
    dispatched_at         BIGINT,
    error                 TEXT
);
CREATE UNIQUE INDEX event_deliveries_provider_id ON event_deliveries (connection_id, provider_delivery_id);
CREATE INDEX event_deliveries_by_connection ON event_deliveries (connection_id, id);
CREATE INDEX event_deliveries_pending ON event_deliveries (received_at) WHERE pending_round IS NOT NULL;
