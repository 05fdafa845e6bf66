-- Models added to the registry at run time (the built-in ones come from the catalog): where their files are, which
-- engine runs them and what they can answer.
CREATE TABLE models (
    id         TEXT    PRIMARY KEY,
    name       TEXT    NOT NULL,
    source     TEXT    NOT NULL CHECK (source IN ('model_hub', 'url', 'local', 'cloud')),
    uri        TEXT    NOT NULL,
    engine     TEXT    NOT NULL,
    facts      TEXT    NOT NULL,
    path       TEXT,
    size_bytes BIGINT  NOT NULL,
    created_at BIGINT  NOT NULL
);
