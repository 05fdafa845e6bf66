package dev.arbor.studio.history;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.db.Database;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicLong;
import org.jdbi.v3.core.Handle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SQLite's full-text index of decisions, which takes new decisions in batches (see V12 of the SQLite migrations);
 * PostgreSQL's index keeps up with every write and needs none of this.
 */
final class SearchIndex {
    private static final Logger LOG = LoggerFactory.getLogger(SearchIndex.class);

    /** New decisions the full-text index takes at once with the writes, or after this long, whichever comes first. */
    private static final int SEARCH_BATCH = 256;

    private static final long SEARCH_BATCH_MILLIS = 1_000;

    private final Database database;
    /** Decisions written since the full-text index last caught up, and when that was (batched indexing only). */
    private final AtomicLong unindexed = new AtomicLong();

    private final boolean searchable;
    /** The server's clock, which tests stop so that a batch waits for as long as they need. */
    private final Clock clock;

    private volatile long lastIndexedMillis;

    SearchIndex(Database database, Clock clock) {
        this.database = requireNonNull(database, "database");
        this.clock = requireNonNull(clock, "clock");
        this.lastIndexedMillis = clock.millis();
        this.searchable = !database.dialect().indexesTextInBatches() || database.read(SearchIndex::hasTextIndex);
        if (!searchable) {
            LOG.warn("the full-text index of decisions is missing (a SQLite without FTS5, or a copy that lost it): "
                    + "searches answer search_unavailable; every other filter works");
        }
    }

    /**
     * Whether SQLite's full-text index is there and works: a database restored by a tool whose SQLite lacks FTS5
     * comes back without it (and without its triggers), though every migration reads as applied.
     */
    private static boolean hasTextIndex(Handle handle) {
        try {
            handle.createQuery("SELECT count(*) FROM studio_decisions_search WHERE rowid = 0")
                    .mapTo(Long.class)
                    .one();
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Whether text searches can run. */
    boolean searchable() {
        return searchable;
    }

    /**
     * In the transaction that wrote {@code count} decisions: the index takes them, and those before, once a batch
     * is full or has waited long enough.
     */
    void written(Handle handle, int count) {
        if (searchable
                && database.dialect().indexesTextInBatches()
                && (unindexed.addAndGet(count) >= SEARCH_BATCH
                        || clock.millis() - lastIndexedMillis >= SEARCH_BATCH_MILLIS)) {
            indexText(handle);
        }
    }

    /**
     * Before a text search, adds what the full-text index has not taken yet, so a search finds every decision
     * written before it. A read-only database is searched as its index stands.
     */
    void catchUpBefore(HistoryQuery query) {
        if (!query.searchesText() || !searchable || !database.dialect().indexesTextInBatches() || database.readOnly()) {
            return;
        }
        boolean behind = database.read(
                handle -> handle.createQuery("""
                        SELECT EXISTS (SELECT 1 FROM studio_decisions
                                       WHERE seq > (SELECT indexed_seq FROM studio_search_progress))""").mapTo(Boolean.class).one());
        if (behind) {
            database.update(this::indexText);
        }
    }

    /** Adds decisions written since the last catch-up to the full-text index (see V12 of the SQLite migrations). */
    private void indexText(Handle handle) {
        handle.execute("""
                INSERT INTO studio_decisions_search (rowid, search_text)
                SELECT seq, search_text FROM studio_decisions
                WHERE seq > (SELECT indexed_seq FROM studio_search_progress) AND search_text IS NOT NULL""");
        handle.execute("""
                UPDATE studio_search_progress
                SET indexed_seq = MAX(indexed_seq, (SELECT COALESCE(MAX(seq), 0) FROM studio_decisions))""");
        unindexed.set(0);
        lastIndexedMillis = clock.millis();
    }
}
