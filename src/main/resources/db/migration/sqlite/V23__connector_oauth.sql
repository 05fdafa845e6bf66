-- OAuth of gateways. An authorization started (initiate) waits in connector_oauth_states until its callback: the
-- state is kept only as its SHA-256, bound to the principal that started it, single-use (used_at) and expiring;
-- secret seals the PKCE verifier and the scopes asked for. connector_oauth holds a gateway's one shared connection:
-- the authorization server found for it (server, JSON), the client registered there when it registers clients
-- itself (its secret sealed), and the tokens (sealed), with what the status shows (expiry, granted scopes, who
-- authorized, the last failure). refresh_lease lets one server at a time refresh a token.
CREATE TABLE connector_oauth_states (
    state_hash    TEXT    PRIMARY KEY,
    gateway_id    TEXT    NOT NULL REFERENCES connector_gateways (id) ON DELETE CASCADE,
    principal     TEXT    NOT NULL,
    redirect_uri  TEXT    NOT NULL,
    secret        TEXT    NOT NULL,
    created_at    INTEGER  NOT NULL,
    expires_at    INTEGER  NOT NULL,
    used_at       INTEGER
);
CREATE INDEX connector_oauth_states_by_gateway ON connector_oauth_states (gateway_id);

CREATE TABLE connector_oauth (
    gateway_id            TEXT    PRIMARY KEY REFERENCES connector_gateways (id) ON DELETE CASCADE,
    server                TEXT,
    client_id             TEXT,
    client_redirect_uris  TEXT,
    client_secret         TEXT,
    tokens                TEXT,
    token_type            TEXT,
    scopes                TEXT,
    expires_at            INTEGER,
    authorized_at         INTEGER,
    authorized_by         TEXT,
    refreshed_at          INTEGER,
    error_code            TEXT,
    error_message         TEXT,
    failed_at             INTEGER,
    refresh_lease         INTEGER,
    updated_at            INTEGER  NOT NULL
);
