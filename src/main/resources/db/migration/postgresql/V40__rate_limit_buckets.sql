-- Rate limits shared by every server on this database (Bucket4j's buckets): one row per bucket, named by the limit
-- and its key, holding the bucket's state; a row whose bucket would be full again is expired (epoch milliseconds)
-- and removed now and then.
CREATE TABLE rate_limit_buckets (
    id         TEXT   PRIMARY KEY,
    state      BYTEA,
    expires_at BIGINT
);

CREATE INDEX rate_limit_buckets_expires_at ON rate_limit_buckets (expires_at);
