-- Studio templates: a head (renamable, archivable, never versioned) and immutable numbered versions.
CREATE TABLE studio_templates (
    id             TEXT    PRIMARY KEY,
    name           TEXT    NOT NULL,
    description    TEXT    NOT NULL DEFAULT '',
    origin         TEXT    NOT NULL CHECK (origin IN ('user', 'builtin')),
    archived       INTEGER NOT NULL DEFAULT 0,
    metadata       TEXT    NOT NULL DEFAULT '{}',
    storage        TEXT    NOT NULL DEFAULT 'full' CHECK (storage IN ('full', 'answers_only', 'none')),
    retention_days INTEGER,
    latest_version INTEGER NOT NULL,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    deleted_at     INTEGER
);
CREATE INDEX studio_templates_updated ON studio_templates (updated_at, id);

-- definition and changes are JSON text, kept byte for byte: the content hash is computed over that exact text.
CREATE TABLE studio_template_versions (
    template_id      TEXT    NOT NULL REFERENCES studio_templates (id) ON DELETE CASCADE,
    version          INTEGER NOT NULL,
    note             TEXT    NOT NULL,
    content_hash     TEXT    NOT NULL,
    questions_hash   TEXT    NOT NULL,
    question_set_key TEXT    NOT NULL,
    source           TEXT    NOT NULL,
    base_version     INTEGER,
    definition       TEXT    NOT NULL,
    changes          TEXT    NOT NULL,
    created_at       INTEGER NOT NULL,
    created_by       TEXT    NOT NULL,
    PRIMARY KEY (template_id, version)
);

CREATE TABLE studio_template_aliases (
    template_id TEXT    NOT NULL,
    alias       TEXT    NOT NULL,
    version     INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (template_id, alias),
    FOREIGN KEY (template_id, version) REFERENCES studio_template_versions (template_id, version) ON DELETE CASCADE
);

-- Versions are immutable once written.
CREATE TRIGGER studio_template_versions_immutable
BEFORE UPDATE ON studio_template_versions
BEGIN
    SELECT RAISE(ABORT, 'template versions are immutable');
END;
