package dev.arbor.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One real PostgreSQL server per test JVM (embedded binaries), with a fresh database per caller. The binaries are
 * unpacked into a folder of this run's own, removed when the run ends, so every run unpacks them as a fresh machine
 * does: a shared, already unpacked copy once hid a class path clash that broke the unpacking itself.
 */
public final class TestPostgres {
    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static EmbeddedPostgres server;

    private TestPostgres() {}

    /** A JDBC URL of a new, empty database. */
    public static synchronized String newDatabaseUrl() {
        try {
            if (server == null) {
                server = start();
            }
            String name = "arbor_test_" + DATABASES.incrementAndGet();
            try (Connection connection = server.getPostgresDatabase().getConnection();
                    Statement statement = connection.createStatement()) {
                statement.execute("CREATE DATABASE " + name);
            }
            return server.getJdbcUrl("postgres", name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static EmbeddedPostgres start() throws IOException {
        Path folder = Files.createTempDirectory("arbor-test-pg-");
        EmbeddedPostgres started;
        try {
            started = EmbeddedPostgres.builder()
                    .setOverrideWorkingDirectory(folder.resolve("binaries").toFile())
                    .setDataDirectory(folder.resolve("data"))
                    .setRegisterShutdownHook(false)
                    .start();
        } catch (IOException | RuntimeException e) {
            TempFolders.deleteQuietly(folder);
            throw e;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                started.close();
            } catch (IOException ignored) {
                // the JVM is going away anyway; the folder goes below
            }
            TempFolders.deleteQuietly(folder);
        }));
        return started;
    }
}
