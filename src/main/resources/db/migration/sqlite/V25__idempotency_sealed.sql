-- Kept answers are sealed from now on; those kept before were plain text (a new token's secret among them).
-- They are only retries' answers, kept for a day: forget them rather than keep a secret readable on disk.
DELETE FROM idempotency_keys;
