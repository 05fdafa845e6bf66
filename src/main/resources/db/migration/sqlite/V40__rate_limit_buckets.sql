-- Nothing here: on SQLite one server has the database, and it keeps its rate limits in memory. PostgreSQL keeps
-- them in rate_limit_buckets, so that servers sharing it share the limits.
SELECT 1;
