package dev.arbor.platform.db;

import static java.util.Objects.requireNonNull;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.arbor.platform.config.Config;
import dev.arbor.platform.config.ConfigException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * The database: SQLite in the data folder, or PostgreSQL when a URL is configured. Migrated on open.
 *
 * <p>On SQLite, writes go through one connection behind a fair lock (SQLite has one writer anyway, and a queue in
 * our process is fairer than busy retries), while reads use their own pool and run in parallel thanks to WAL.
 */
public final class Database implements AutoCloseable {
    private static final int SQLITE_READERS = 4;
    private static final int POSTGRES_POOL = 10;

    private final Dialect dialect;
    private final HikariDataSource writerPool;
    private final HikariDataSource readerPool;
    private final Jdbi writer;
    private final Jdbi reader;
    private final ReentrantLock writeLock = new ReentrantLock(true);

    private Database(Dialect dialect, HikariDataSource writerPool, HikariDataSource readerPool) {
        this.dialect = dialect;
        this.writerPool = writerPool;
        this.readerPool = readerPool;
        this.writer = Jdbi.create(writerPool);
        this.reader = readerPool == writerPool ? writer : Jdbi.create(readerPool);
    }

    public static Database open(Config config) {
        requireNonNull(config, "config");
        return config.databaseUrl().isPresent()
                ? openPostgres(config.databaseUrl().get())
                : openSqlite(config.dataDir().resolve("arbor.db"));
    }

    public static Database openSqlite(Path file) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the data folder for " + file, e);
        }
        String url = "jdbc:sqlite:" + file.toAbsolutePath();
        migrate(Dialect.SQLITE, sqlite(url));
        var writer = pool("arbor-sqlite-writer", sqlite(url), 1);
        var readers = pool("arbor-sqlite-reader", sqlite(url), SQLITE_READERS);
        return new Database(Dialect.SQLITE, writer, readers);
    }

    public static Database openPostgres(String url) {
        var config = new HikariConfig();
        config.setPoolName("arbor-postgresql");
        setPostgresUrl(config, url);
        config.setMaximumPoolSize(POSTGRES_POOL);
        var pool = new HikariDataSource(config);
        try {
            migrate(Dialect.POSTGRESQL, pool);
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
        return new Database(Dialect.POSTGRESQL, pool, pool);
    }

    public Dialect dialect() {
        return dialect;
    }

    /** Runs read-only work on a reader connection. */
    public <T> T read(HandleCallback<T, RuntimeException> work) {
        return reader.withHandle(work);
    }

    /** Runs work in one transaction on the writer: all of it is stored, or none. */
    public <T> T write(HandleCallback<T, RuntimeException> work) {
        if (!dialect.serializesWrites()) {
            return writer.inTransaction(work);
        }
        writeLock.lock();
        try {
            return writer.inTransaction(work);
        } finally {
            writeLock.unlock();
        }
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
        if (readerPool != writerPool) {
            readerPool.close();
        }
        writerPool.close();
    }

    private static void migrate(Dialect dialect, DataSource dataSource) {
        Flyway.configure()
                .dataSource(dataSource)
                .locations(dialect.migrations())
                .load()
                .migrate();
    }

    private static SQLiteDataSource sqlite(String url) {
        var config = new SQLiteConfig();
        config.setJournalMode(SQLiteConfig.JournalMode.WAL);
        config.setSynchronous(SQLiteConfig.SynchronousMode.NORMAL);
        config.enforceForeignKeys(true);
        config.setBusyTimeout(10_000);
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
