package dev.arbor.platform.db;

import static java.util.Objects.requireNonNull;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory;
import dev.arbor.platform.config.ConfigException;
import dev.arbor.platform.config.OwnerOnly;
import dev.arbor.platform.config.StorageSettings;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationVersion;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;
import org.sqlite.SQLiteException;

/**
 * The database: SQLite in the data folder, or PostgreSQL when a URL is configured. Migrated on open.
 *
 * <p>On SQLite, writes go through one connection behind a fair lock (SQLite has one writer anyway, and a queue in
 * our process is fairer than busy retries), while reads use their own pool and run in parallel thanks to WAL.
 *
 * <p>A database a newer release has migrated further than this one knows is opened read-only, so that going back a
 * release never damages it: reads work, and every write is 503 {@code database_unavailable}.
 */
public final class Database implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Database.class);
    private static final int SQLITE_READERS = 4;
    /** The write-ahead log's length, in pages, past which the writer checkpoints it itself. */
    private static final int WAL_PAGES_MAX = 10_000;
    /** SQLite's primary result codes for a file it cannot use: read-only, I/O error, corrupt, full, cannot open. */
    private static final Set<Integer> SQLITE_UNAVAILABLE = Set.of(8, 10, 11, 13, 14, 26);

    private static final ScopedValue<BeforeCommit> BEFORE_COMMIT = ScopedValue.newInstance();

    private final Dialect dialect;
    private final HikariDataSource writerPool;
    private final HikariDataSource readerPool;
    private final Jdbi writer;
    private final Jdbi reader;
    private final ReentrantLock writeLock = new ReentrantLock(true);
    /** SQLite's writer connection and the statements prepared on it, used under the write lock only. */
    private @Nullable Connection keptOn;

    private final Map<String, PreparedStatement> kept = new HashMap<>();
    private final Optional<String> newerSchema;
    private final Optional<WalCheckpoints> checkpoints;
    private final JobEngineLog jobEngineLog = new JobEngineLog();

    private Database(
            Dialect dialect,
            HikariDataSource writerPool,
            HikariDataSource readerPool,
            Optional<String> newerSchema,
            Optional<WalCheckpoints> checkpoints) {
        this.dialect = dialect;
        this.checkpoints = checkpoints;
        this.newerSchema = newerSchema;
        this.writerPool = writerPool;
        this.readerPool = readerPool;
        this.writer = Jdbi.create(writerPool);
        this.reader = readerPool == writerPool ? writer : Jdbi.create(readerPool);
        jobEngineLog.install();
    }

    public static Database open(StorageSettings config) {
        requireNonNull(config, "config");
        return config.databaseUrl().isPresent()
                ? openPostgres(config.databaseUrl().get(), config.pool())
                : openSqlite(config.dataDir().resolve("arbor.db"));
    }

    public static Database openSqlite(Path file) {
        OwnerOnly.folder(requireNonNull(file.toAbsolutePath().getParent(), "a database file's folder"));
        OwnerOnly.file(file); // SQLite gives its log and shared-memory files the database's permissions
        String url = "jdbc:sqlite:" + file.toAbsolutePath();
        Optional<String> newer = migrate(Dialect.SQLITE, sqlite(url));
        SQLiteDataSource writerSource = sqlite(url);
        // the writer leaves checkpoints to a thread of their own (see checkpointSoon), unless the WAL grows far
        writerSource.getConfig().setPragma(SQLiteConfig.Pragma.WAL_AUTOCHECKPOINT, Integer.toString(WAL_PAGES_MAX));
        var writer = pool("arbor-sqlite-writer", writerSource, 1);
        var readers = pool("arbor-sqlite-reader", sqlite(url), SQLITE_READERS);
        return new Database(Dialect.SQLITE, writer, readers, newer, Optional.of(new WalCheckpoints(readers)));
    }

    public static Database openPostgres(String url) {
        return openPostgres(url, StorageSettings.Pool.DEFAULT);
    }

    public static Database openPostgres(String url, StorageSettings.Pool settings) {
        var config = new HikariConfig();
        config.setPoolName("arbor-postgresql");
        setPostgresUrl(config, url);
        config.setMaximumPoolSize(settings.size());
        // connections open as requests need them, so that many servers on one PostgreSQL do not hold idle ones
        config.setMinimumIdle(Math.min(2, settings.size()));
        config.setConnectionTimeout(settings.timeout().toMillis());
        var pool = new HikariDataSource(config);
        try {
            return new Database(Dialect.POSTGRESQL, pool, pool, migrate(Dialect.POSTGRESQL, pool), Optional.empty());
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
    }

    public Dialect dialect() {
        return dialect;
    }

    /**
     * Makes each statement run through JDBI inside traced work a span of that work (its operation and table, never
     * its values); see {@link StatementSpans}. Off unless asked for: a request makes many statements.
     */
    public void traceStatements() {
        writer.setSqlLogger(new StatementSpans(dialect));
        reader.setSqlLogger(new StatementSpans(dialect));
    }

    /**
     * Shows the connection pools' gauges and timers ({@code hikaricp_connections_active}, {@code _pending},
     * {@code _acquire}, ... by pool) in {@code registry}; once per database.
     */
    public void recordMetrics(MeterRegistry registry) {
        var factory = new MicrometerMetricsTrackerFactory(registry);
        writerPool.setMetricsTrackerFactory(factory);
        if (readerPool != writerPool) {
            readerPool.setMetricsTrackerFactory(factory);
        }
    }

    /** Runs read-only work on a reader connection. */
    public <T> T read(HandleCallback<T, RuntimeException> work) {
        try {
            return reader.withHandle(work);
        } catch (JdbiException e) {
            throw unavailableOr(e);
        }
    }

    /**
     * Of {@code values}, those a query finds: {@code sql} selects one text column and binds them as {@code <values>},
     * as in {@code SELECT DISTINCT id FROM t WHERE id IN (<values>)}.
     */
    public Set<String> found(String sql, Collection<String> values) {
        if (values.isEmpty()) {
            return Set.of();
        }
        return read(handle -> new HashSet<>(handle.createQuery(sql)
                .bindList("values", List.copyOf(values))
                .mapTo(String.class)
                .list()));
    }

    /**
     * The connections writes go through, for a job engine that keeps its table beside ours: on SQLite the one writer
     * connection (never ask for it inside {@link #write}: that holds it already), on PostgreSQL the pool.
     */
    public DataSource dataSource() {
        return writerPool;
    }

    /**
     * What a job engine on {@link #dataSource} tells about its polls, so that a database out of reach is logged once,
     * not once a poll ({@link JobEngineLog}).
     */
    public JobEngineLog jobEngineLog() {
        return jobEngineLog;
    }

    /**
     * Writes a consistent copy of this SQLite database to {@code target} (a file that must not exist yet), while the
     * server may be serving: one read transaction sees one moment, and the copy is compacted as it is written.
     */
    public void backupTo(Path target) {
        if (dialect != Dialect.SQLITE) {
            throw new IllegalStateException("only a SQLite database is backed up here; use pg_dump for PostgreSQL");
        }
        reader.useHandle(handle ->
                handle.execute("VACUUM INTO ?", target.toAbsolutePath().toString()));
    }

    /**
     * Copies the Arbor SQLite database {@code source} (as {@link #backupTo} wrote it) into {@code target}, an empty
     * file, after checking it: it must open, pass {@code PRAGMA integrity_check} and hold Arbor's schema history. The
     * source is only read; a check that fails is a {@link ConfigException} saying which, and {@code target} stays empty.
     */
    public static void copyCheckedSqlite(Path source, Path target) {
        requireNonNull(source, "source");
        requireNonNull(target, "target");
        var config = new SQLiteConfig();
        config.setReadOnly(true);
        try (Connection connection = config.createConnection("jdbc:sqlite:" + source.toAbsolutePath());
                var statement = connection.createStatement()) {
            var problems = new ArrayList<String>();
            try (var rows = statement.executeQuery("PRAGMA integrity_check")) {
                while (rows.next()) {
                    problems.add(rows.getString(1));
                }
            }
            if (!problems.equals(List.of("ok"))) {
                throw new ConfigException(
                        source + " is damaged (SQLite's integrity check: " + String.join("; ", problems) + ")");
            }
            try (var rows = statement.executeQuery(
                    "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'flyway_schema_history'")) {
                if (!rows.next() || rows.getInt(1) != 1) {
                    throw new ConfigException(source + " is a SQLite database, but not Arbor's");
                }
            }
            try (var copy = connection.prepareStatement("VACUUM INTO ?")) {
                copy.setString(1, target.toAbsolutePath().toString());
                copy.executeUpdate();
            }
        } catch (SQLException e) {
            throw new ConfigException(source + " is not a SQLite database in one piece (" + e.getMessage() + ")");
        }
    }

    /** Whether writes are refused: the schema is newer than this release knows. */
    public boolean readOnly() {
        return newerSchema.isPresent();
    }

    /**
     * Runs work in one transaction on the writer: all of it is stored, or none. On a read-only database, 503
     * {@code database_unavailable}.
     */
    public <T> T write(HandleCallback<T, RuntimeException> work) {
        if (newerSchema.isPresent()) {
            throw ApiException.of(
                    ErrorCode.DATABASE_UNAVAILABLE,
                    "The database is read-only: a newer release "
                            + "migrated it to version " + newerSchema.get()
                            + ", which this one does not know. Reads work; "
                            + "upgrade the server to change anything.");
        }
        if (!dialect.serializesWrites()) {
            return inTransaction(work);
        }
        writeLock.lock();
        try {
            return inTransaction(work);
        } finally {
            writeLock.unlock();
            checkpoints.ifPresent(WalCheckpoints::soon);
        }
    }

    private <T> T inTransaction(HandleCallback<T, RuntimeException> work) {
        try {
            if (!BEFORE_COMMIT.isBound()) {
                return writer.inTransaction(work);
            }
            BeforeCommit last = BEFORE_COMMIT.get();
            return writer.inTransaction(handle -> {
                T result = work.withHandle(handle);
                last.run(handle);
                return result;
            });
        } catch (JdbiException e) {
            throw unavailableOr(e);
        }
    }

    /** What {@link #beforeEachCommit} runs last in each write transaction, on that transaction's handle. */
    @FunctionalInterface
    public interface BeforeCommit {
        void run(Handle handle);
    }

    /**
     * Runs {@code work} so that each {@link #write} it makes on this thread runs {@code last} as the final statement of
     * its transaction: what {@code last} writes commits with the work's own changes, or not at all. For bookkeeping
     * that must never disagree with the work it describes (an idempotency key whose request's work committed); the
     * transactions stay the work's own, so none is held open across what the work does between them. Inside another
     * such call, both run: this {@code last} first, then the outer one (a request's audit row, then its idempotency
     * key's mark).
     */
    public static <R, X extends Throwable> R beforeEachCommit(BeforeCommit last, ScopedValue.CallableOp<R, X> work)
            throws X {
        requireNonNull(last, "last");
        BeforeCommit both = last;
        if (BEFORE_COMMIT.isBound()) {
            BeforeCommit outer = BEFORE_COMMIT.get();
            both = handle -> {
                last.run(handle);
                outer.run(handle);
            };
        }
        return ScopedValue.where(BEFORE_COMMIT, both).call(work);
    }

    /**
     * A database that cannot be reached, opened or written (connection lost, disk full, file damaged) is 503
     * {@code database_unavailable}, which callers may retry; anything else is a fault of ours and stays as it is. For
     * work on {@link #dataSource} by a library of its own (a job engine, a rate limiter) too.
     */
    public static RuntimeException unavailableOr(RuntimeException e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (unreachable(cause) || (cause instanceof SQLException sql && unusable(sql))) {
                LOG.warn("the database is unavailable: {}", cause.toString());
                return ApiException.of(
                                ErrorCode.DATABASE_UNAVAILABLE,
                                "The database cannot be used right now ("
                                        + cause.getClass().getSimpleName() + "); try again shortly.")
                        .withHeader("retry-after", "5");
            }
        }
        return e;
    }

    /**
     * Whether a failure (this one, not its causes) is the database out of reach: a connection refused or lost, or the
     * server shutting down, crashed or not taking connections yet.
     */
    static boolean unreachable(Throwable failure) {
        if (failure instanceof SQLTransientConnectionException
                || failure instanceof SQLNonTransientConnectionException) {
            return true;
        }
        String state = failure instanceof SQLException sql && sql.getSQLState() != null ? sql.getSQLState() : "";
        return state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03");
    }

    /** Whether the database is reached but cannot be used: disk full, read-only, a SQLite file it cannot write. */
    private static boolean unusable(SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        if (state.equals("53100") || state.equals("25006")) {
            return true;
        }
        return e instanceof SQLiteException sqlite && SQLITE_UNAVAILABLE.contains(sqlite.getResultCode().code & 0xff);
    }

    /** Plain JDBC work inside a {@link #write}. */
    @FunctionalInterface
    public interface JdbcWork {
        void run(Statements statements) throws SQLException;
    }

    /** The statements of a {@link JdbcWork}, which belong to the write: never close one. */
    @FunctionalInterface
    public interface Statements {
        PreparedStatement prepare(String sql) throws SQLException;
    }

    /**
     * Runs plain JDBC inside a {@link #write}, for the hottest writes, where binding through JDBI costs as much as
     * the database's own insert. On SQLite its statements are prepared once and kept on the one writer connection
     * (SQLite compiles a statement each time it is prepared, which costs as much as a small insert); on PostgreSQL
     * they are closed after the work (its driver keeps prepared statements itself). SQL errors end the
     * transaction as the handle's own would.
     */
    public void jdbc(Handle handle, JdbcWork work) {
        var opened = new ArrayList<PreparedStatement>();
        try {
            Connection connection = handle.getConnection();
            if (dialect.serializesWrites()) {
                if (!writeLock.isHeldByCurrentThread()) {
                    throw new IllegalStateException("plain JDBC writes run inside write()");
                }
                work.run(keptStatements(connection.unwrap(Connection.class)));
            } else {
                work.run(sql -> {
                    PreparedStatement statement = connection.prepareStatement(sql);
                    opened.add(statement);
                    return statement;
                });
            }
        } catch (SQLException e) {
            throw new UnableToExecuteStatementException(e.getMessage(), e, null);
        } finally {
            for (PreparedStatement statement : opened) {
                try {
                    statement.close();
                } catch (SQLException e) {
                    LOG.debug("closing a statement failed", e);
                }
            }
        }
    }

    /** The statements kept on the writer connection; a connection the pool replaced took its own with it. */
    private Statements keptStatements(Connection connection) {
        if (keptOn != connection) {
            keptOn = connection;
            kept.clear();
        }
        return sql -> {
            PreparedStatement statement = kept.get(sql);
            if (statement == null) {
                statement = connection.prepareStatement(sql);
                kept.put(sql, statement);
            } else {
                statement.clearBatch(); // what a failed write left behind
                statement.clearParameters();
            }
            return statement;
        };
    }

    /** {@link #write} for work that returns nothing. */
    public void update(java.util.function.Consumer<Handle> work) {
        write(handle -> {
            work.accept(handle);
            return null;
        });
    }

    @Override
    public void close() {
        jobEngineLog.uninstall();
        checkpoints.ifPresent(WalCheckpoints::close);
        if (readerPool != writerPool) {
            readerPool.close();
        }
        writerPool.close();
    }

    /** Migrates the schema; returns the version when a newer release has taken it further than this one knows. */
    private static Optional<String> migrate(Dialect dialect, DataSource dataSource) {
        Flyway flyway = Flyway.configure()
                .dataSource(dataSource)
                .locations(dialect.migrations())
                .load();
        MigrationInfo[] all = flyway.info().all();
        Optional<MigrationVersion> known = Arrays.stream(all)
                .filter(m -> m.getState().isResolved())
                .map(MigrationInfo::getVersion)
                .filter(Objects::nonNull)
                .max(Comparator.naturalOrder());
        Optional<MigrationInfo> newest = Arrays.stream(all)
                .filter(m -> m.getState().isApplied()
                        && m.getVersion() != null
                        && known.map(k -> m.getVersion().compareTo(k) > 0).orElse(true))
                .max(Comparator.comparing(MigrationInfo::getVersion));
        if (newest.isPresent()) {
            LOG.warn(
                    "the database schema is at version {}, newer than this release knows; it is opened read-only",
                    newest.get().getVersion());
            return Optional.of(newest.get().getVersion().getVersion());
        }
        flyway.migrate();
        return Optional.empty();
    }

    private static SQLiteDataSource sqlite(String url) {
        var config = new SQLiteConfig();
        config.setJournalMode(SQLiteConfig.JournalMode.WAL);
        config.setSynchronous(SQLiteConfig.SynchronousMode.NORMAL);
        config.enforceForeignKeys(true);
        config.setBusyTimeout(10_000);
        // History runs to gigabytes: reading pages through a memory map and keeping more of them per connection
        // spares a system call for every page a history query walks (the page cache behind both is the OS's)
        config.setPragma(SQLiteConfig.Pragma.MMAP_SIZE, Long.toString(1L << 30));
        config.setCacheSize(-16_384);
        var source = new SQLiteDataSource(config);
        source.setUrl(url);
        return source;
    }

    private static HikariDataSource pool(String name, DataSource source, int size) {
        var config = new HikariConfig();
        config.setPoolName(name);
        config.setDataSource(source);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(1);
        return new HikariDataSource(config);
    }

    /** Accepts both {@code jdbc:postgresql://...} and {@code postgresql://user:password@host/db}. */
    static void setPostgresUrl(HikariConfig config, String url) {
        if (url.startsWith("jdbc:postgresql:")) {
            config.setJdbcUrl(url);
            return;
        }
        if (!url.startsWith("postgresql://") && !url.startsWith("postgres://")) {
            throw new ConfigException("ARBOR_DATABASE_URL must be a PostgreSQL URL "
                    + "(postgresql://user:password@host:5432/database or jdbc:postgresql://...)");
        }
        URI uri = URI.create(url);
        String userInfo = uri.getRawUserInfo();
        if (userInfo != null) {
            String[] parts = userInfo.split(":", 2);
            config.setUsername(decode(parts[0]));
            if (parts.length == 2) {
                config.setPassword(decode(parts[1]));
            }
        }
        String port = uri.getPort() < 0 ? "" : ":" + uri.getPort();
        String query = uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery();
        config.setJdbcUrl("jdbc:postgresql://" + uri.getHost() + port + uri.getRawPath() + query);
    }

    private static String decode(String text) {
        return URLDecoder.decode(text, StandardCharsets.UTF_8);
    }
}
