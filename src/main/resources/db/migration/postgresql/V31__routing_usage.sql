-- One row per inference request routed to a model endpoint (direct calls and routers alike), written in batches off
-- the request path. router_id is NULL for a direct call; endpoint is the one that answered or was tried last; model
-- is the name the caller sent; outcome: ok, upstream_error (the endpoint answered an error), timeout, unavailable,
-- invalid_response, stream_broken, client_closed. Tokens are the upstream's usage, NULL when it sent none.
CREATE TABLE routing_usage (
    id                BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at                BIGINT  NOT NULL,
    router_id         TEXT,
    endpoint          TEXT    NOT NULL,
    model             TEXT    NOT NULL,
    operation         TEXT    NOT NULL,
    outcome           TEXT    NOT NULL,
    status            INTEGER NOT NULL,
    attempts          INTEGER NOT NULL,
    prompt_tokens     BIGINT,
    completion_tokens BIGINT,
    latency_micros    BIGINT  NOT NULL
);
CREATE INDEX routing_usage_by_router ON routing_usage (router_id, at);
CREATE INDEX routing_usage_at ON routing_usage (at);
