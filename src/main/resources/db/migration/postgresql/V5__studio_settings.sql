-- Studio settings: one row per setting, its value as JSON text.
CREATE TABLE studio_settings (
    key        TEXT    PRIMARY KEY,
    value      TEXT    NOT NULL,
    updated_at BIGINT  NOT NULL
);
