-- An inference key's limits: requests and tokens a minute (NULL: no limit of that kind). The buckets that count them
-- are the rate limiter's (this server's memory on SQLite, rate_limit_buckets on PostgreSQL).
ALTER TABLE inference_keys ADD COLUMN requests_per_minute INTEGER;
ALTER TABLE inference_keys ADD COLUMN tokens_per_minute INTEGER;
