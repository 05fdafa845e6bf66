-- A keyed request's work and its key's promise commit together. owner: the server running the request (a row of
-- server_instances while it runs). committed_at and minted: set inside each transaction of the request's work, so that
-- when its server dies before the answer is kept, a retry knows the work is done (and the ids it made) and answers
-- from what was stored instead of doing it again; a key whose work never committed may run again.
ALTER TABLE idempotency_keys ADD COLUMN owner TEXT;
ALTER TABLE idempotency_keys ADD COLUMN committed_at INTEGER;
ALTER TABLE idempotency_keys ADD COLUMN minted TEXT;
