-- What inference costs. Each usage row says whose request it was (the project it was charged to and the inference key
-- that made it, NULL for an admin's or member's token) and what it cost, in pico-dollars (10^-12 USD, exact: a price
-- is whole micro-dollars per million tokens), NULL when no price was known for its endpoint.
ALTER TABLE routing_usage ADD COLUMN project_id TEXT;
ALTER TABLE routing_usage ADD COLUMN key_id TEXT;
ALTER TABLE routing_usage ADD COLUMN cost_picousd INTEGER;
CREATE INDEX routing_usage_by_project ON routing_usage (project_id, at);
CREATE INDEX routing_usage_by_key ON routing_usage (key_id, at);

-- The prices admins set per endpoint (a cloud model's id or a deployment's), USD micro-dollars per million tokens, or
-- the catalog entry (provider/model) it is priced as.
CREATE TABLE model_prices (
    endpoint            TEXT    PRIMARY KEY,
    input_micros        INTEGER,
    output_micros       INTEGER,
    cached_input_micros INTEGER,
    priced_as           TEXT,
    set_at              INTEGER NOT NULL
);

-- Cloud models and prices are read from memory on the request path: their counters tell other servers to reload.
INSERT INTO change_counters (topic, version) VALUES ('models', 0), ('model_prices', 0);
CREATE TRIGGER models_count_insert AFTER INSERT ON models
BEGIN
    UPDATE change_counters SET version = version + 1 WHERE topic = 'models';
END;
CREATE TRIGGER models_count_update AFTER UPDATE ON models
BEGIN
    UPDATE change_counters SET version = version + 1 WHERE topic = 'models';
END;
CREATE TRIGGER models_count_delete AFTER DELETE ON models
BEGIN
    UPDATE change_counters SET version = version + 1 WHERE topic = 'models';
END;
CREATE TRIGGER model_prices_count_insert AFTER INSERT ON model_prices
BEGIN
    UPDATE change_counters SET version = version + 1 WHERE topic = 'model_prices';
END;
CREATE TRIGGER model_prices_count_update AFTER UPDATE ON model_prices
BEGIN
    UPDATE change_counters SET version = version + 1 WHERE topic = 'model_prices';
END;
CREATE TRIGGER model_prices_count_delete AFTER DELETE ON model_prices
BEGIN
    UPDATE change_counters SET version = version + 1 WHERE topic = 'model_prices';
END;
