-- A router's cache step keeps answers here: one row per router, step, scope (a project, or a key) and normalised
-- request. context_hash is the request without its last user message: a semantic match is looked for only among
-- answers to the same context (system prompt, earlier turns, params), by the last message's embedding (little-endian
-- float32, unit length). used_at orders the least recently used first when a step's size cap is reached.
CREATE TABLE router_cache_entries (
    id                TEXT PRIMARY KEY,
    router_id         TEXT NOT NULL,
    step_id           TEXT NOT NULL,
    scope             TEXT NOT NULL,
    request_hash      TEXT NOT NULL,
    context_hash      TEXT NOT NULL,
    embedding         BYTEA,
    answer            TEXT NOT NULL,
    saved_tokens      BIGINT NOT NULL,
    created_at        BIGINT NOT NULL,
    expires_at        BIGINT NOT NULL,
    used_at           BIGINT NOT NULL
);
CREATE UNIQUE INDEX router_cache_entries_request ON router_cache_entries (router_id, step_id, scope, request_hash);
CREATE INDEX router_cache_entries_context ON router_cache_entries (router_id, step_id, scope, context_hash);
CREATE INDEX router_cache_entries_used ON router_cache_entries (router_id, step_id, used_at);

-- What a router's steps counted (a cache's hits, misses and saved tokens; a guardrail's findings and blocks), per hour
-- (its start, in epoch milliseconds), for the router's stats.
CREATE TABLE router_step_counts (
    router_id TEXT NOT NULL,
    step_id   TEXT NOT NULL,
    name      TEXT NOT NULL,
    hour      BIGINT NOT NULL,
    amount    BIGINT NOT NULL,
    PRIMARY KEY (router_id, step_id, name, hour)
);
