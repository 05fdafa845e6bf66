-- Per-user OAuth of gateways (credentials.authorization: per_user): each caller identity (an API token's or an
-- inference key's id) authorizes the gateway's server for itself, and its tokens are kept here, sealed per (gateway,
-- identity), with what its status shows and its own refresh lease. The authorization server and a registered client
-- stay on the gateway's row of connector_oauth, shared by its users. A revoked token's rows go with it.
CREATE TABLE connector_oauth_grants (
    gateway_id     TEXT    NOT NULL REFERENCES connector_gateways (id) ON DELETE CASCADE,
    identity       TEXT    NOT NULL,
    tokens         TEXT,
    token_type     TEXT,
    scopes         TEXT,
    expires_at     INTEGER,
    authorized_at  INTEGER,
    authorized_by  TEXT,
    refreshed_at   INTEGER,
    error_code     TEXT,
    error_message  TEXT,
    failed_at      INTEGER,
    refresh_lease  INTEGER,
    updated_at     INTEGER  NOT NULL,
    PRIMARY KEY (gateway_id, identity)
);
CREATE INDEX connector_oauth_grants_by_identity ON connector_oauth_grants (identity);
