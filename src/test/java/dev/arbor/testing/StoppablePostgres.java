package dev.arbor.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A PostgreSQL server of one test's own, which the test may stop and start again on the same port and data, as an
 * operator restarting the database would; the shared {@link TestPostgres} serves every other test and never stops.
 */
public final class StoppablePostgres implements AutoCloseable {
    private static final String DATABASE = "arbor_faults";
    private final Path folder;
    private final int port;
    private EmbeddedPostgres server;

    private StoppablePostgres(Path folder, EmbeddedPostgres server) {
        this.folder = folder;
        this.server = server;
        this.port = server.getPort();
    }

    /** A running server with one empty database. */
    public static StoppablePostgres start() {
        try {
            Path folder = Files.createTempDirectory("arbor-test-pg-stoppable-");
            var started = new StoppablePostgres(folder, builder(folder).start());
            try (Connection connection = started.server.getPostgresDatabase().getConnection();
                    Statement statement = connection.createStatement()) {
                statement.execute("CREATE DATABASE " + DATABASE);
            }
            return started;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The JDBC URL of the database; it stays the same across a stop and a start. */
    public String databaseUrl() {
        return "jdbc:postgresql://localhost:" + port + "/" + DATABASE + "?user=postgres";
    }

    /** Stops the server (a fast shutdown: open sessions are ended, what was committed stays). */
    public synchronized void stop() {
        try {
            server.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts the stopped server again on its port and its data. */
    public synchronized void startAgain() {
        try {
            server = builder(folder).setPort(port).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static EmbeddedPostgres.Builder builder(Path folder) {
        return EmbeddedPostgres.builder()
                .setOverrideWorkingDirectory(folder.resolve("binaries").toFile())
                .setDataDirectory(folder.resolve("data"))
                .setCleanDataDirectory(false)
                .setRegisterShutdownHook(false);
    }

    @Override
    public synchronized void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // stopping one already stopped: the folder goes all the same
        }
        TempFolders.deleteQuietly(folder);
    }
}
