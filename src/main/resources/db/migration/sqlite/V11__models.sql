-- Models added to the registry at run time (the built-in ones come from the catalog): where their files are, which
-- engine runs them, what they can answer, and how their download stands.
CREATE TABLE models (
    id         TEXT    PRIMARY KEY,
    name       TEXT    NOT NULL,
    source     TEXT    NOT NULL CHECK (source IN ('model_hub', 'url', 'local', 'cloud')),
    uri        TEXT    NOT NULL,
    engine     TEXT    NOT NULL,
    facts      TEXT    NOT NULL,
    path       TEXT,
    size_bytes INTEGER NOT NULL,
    status     TEXT    NOT NULL CHECK (status IN ('not_downloaded', 'downloading', 'downloaded', 'failed')),
    error      TEXT,
    created_at INTEGER NOT NULL
);
