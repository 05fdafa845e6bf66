-- What an added model's engine is told besides its files (a remote endpoint's name for the model), and the key of a
-- remote endpoint, sealed with the server's secret key (AES-GCM): the API never shows it.
ALTER TABLE models ADD COLUMN options TEXT NOT NULL DEFAULT '{}';
ALTER TABLE models ADD COLUMN api_key TEXT;
