package dev.arbor.platform.db;

/**
 * The one place that knows how SQLite and PostgreSQL differ. Stores ask it instead of testing the database type.
 */
public enum Dialect {
    SQLITE("sqlite"),
    POSTGRESQL("postgresql");

    private final String folder;

    Dialect(String folder) {
        this.folder = folder;
    }

    /** Where this dialect's Flyway migrations live on the class path. */
    String migrations() {
        return "classpath:db/migration/" + folder;
    }

    /** SQLite takes one writer at a time; PostgreSQL locks rows itself. */
    boolean serializesWrites() {
        return this == SQLITE;
    }

    /** SQLite has one database per process here, so any work left running belongs to a dead process. */
    public boolean singleNode() {
        return this == SQLITE;
    }

    /** The clause that locks the rows a read-then-write transaction selects (SQLite locks the whole database). */
    public String forUpdate() {
        return this == POSTGRESQL ? " FOR UPDATE" : "";
    }

    /** SQL for the milliseconds from a timestamp column (written as {@code CURRENT_TIMESTAMP}) to the database's now. */
    public String millisSince(String column) {
        return this == POSTGRESQL
                ? "CAST(EXTRACT(EPOCH FROM (CURRENT_TIMESTAMP - " + column + ")) * 1000 AS BIGINT)"
                : "CAST((julianday('now') - julianday(" + column + ")) * 86400000 AS INTEGER)";
    }

    /**
     * SQL for the text at one key of a JSON object kept in a text column.
     *
     * @param key a bound parameter (such as {@code :p1}) holding a key of letters, digits and {@code _ . : -}
     */
    public String jsonText(String column, String key) {
        return this == POSTGRESQL
                ? "(" + column + "::jsonb ->> " + key + ")"
                : "json_extract(" + column + ", '$.\"' || " + key + " || '\"')";
    }

    /**
     * SQL that keeps the rows whose text column contains every word of a query (bound as {@code param}): FTS5 on
     * SQLite, through the virtual table {@code <table>_search} indexing that column by {@code key}; PostgreSQL's
     * text search otherwise.
     *
     * @param param a bound parameter holding the query as {@link #fullTextQuery} made it
     */
    public String fullTextMatch(String table, String key, String column, String param) {
        return this == POSTGRESQL
                ? "to_tsvector('simple', " + column + ") @@ plainto_tsquery('simple', " + param + ")"
                : key + " IN (SELECT rowid FROM " + table + "_search WHERE " + table + "_search MATCH " + param + ")";
    }

    /**
     * Whether the full-text index takes new rows in batches ({@code <table>_search_progress} says how far), so that a
     * search must first catch it up: FTS5 writes a segment per transaction, too dear for every write. PostgreSQL's GIN
     * index batches by itself.
     */
    public boolean indexesTextInBatches() {
        return this == SQLITE;
    }

    /** A search as this database takes it: every word, as a quoted term for FTS5; the words for PostgreSQL. */
    public String fullTextQuery(java.util.List<String> words) {
        return this == POSTGRESQL
                ? String.join(" ", words)
                : String.join(
                        " ",
                        words.stream()
                                .map(w -> "\"" + w.replace("\"", "\"\"") + "\"")
                                .toList());
    }

    @Override
    public String toString() {
        return folder;
    }
}
