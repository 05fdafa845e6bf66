package dev.arbor.studio;

import dev.arbor.ArborServer;
import dev.arbor.testing.TestServer;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * One server for a whole test class, on the database its subclass names: a contract runs once on SQLite and once on
 * PostgreSQL. A subclass's own {@code @BeforeAll} runs after the server is up.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ServerContract {
    ArborServer server;
    TestServer http;

    abstract Map<String, String> environment();

    /** The environment the server was started with (a PostgreSQL contract's holds its own new database). */
    Map<String, String> started;

    @BeforeAll
    void startServer() {
        started = environment();
        server = ArborServer.start(started);
        http = server.http();
    }

    @AfterAll
    void stopServer() {
        server.close();
    }
}
