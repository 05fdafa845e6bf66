package dev.arbor.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

/** One real PostgreSQL server per test JVM (embedded binaries), with a fresh database per caller. */
public final class TestPostgres {
    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static EmbeddedPostgres server;

    private TestPostgres() {}

    /** A JDBC URL of a new, empty database. */
    public static synchronized String newDatabaseUrl() {
        try {
            if (server == null) {
                server = EmbeddedPostgres.builder().start();
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    try {
                        server.close();
                    } catch (IOException ignored) {
                        // the JVM is going away anyway
                    }
                }));
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
}
