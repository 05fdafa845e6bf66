package dev.arbor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TestPostgres;
import dev.arbor.testing.TestServer;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The whole server with ARBOR_DATABASE_URL pointing at a real PostgreSQL. */
class ServerOnPostgresTest {

    @Test
    void servesProjectsTokensAndIdempotencyFromPostgres() {
        try (var server = ArborServer.start(Map.of("ARBOR_DATABASE_URL", TestPostgres.newDatabaseUrl()))) {
            TestServer http = server.http();
            HttpReply first = http.post("/projects", "{\"name\":\"pg\"}", "Idempotency-Key", "pg-1");
            HttpReply replay = http.post("/projects", "{\"name\":\"pg\"}", "Idempotency-Key", "pg-1");
            assertThat(first.status()).isEqualTo(201);
            assertThat(replay.body()).isEqualTo(first.body());
            assertThat(replay.header("idempotent-replayed")).isEqualTo("true");
            http.post("/projects", "{\"name\":\"other\"}", "Idempotency-Key", "pg-1")
                    .assertError(409, "idempotency_key_reused", "Idempotency-Key");

            String secret = http.post("/auth/tokens", "{\"name\":\"ops\",\"role\":\"admin\"}")
                    .json()
                    .path("token")
                    .asText();
            http.get("/projects").assertError(401, "missing_api_key", null);
            assertThat(http.get("/projects", "Authorization", "Bearer " + secret)
                            .json()
                            .path("data"))
                    .hasSize(1);
        }
    }

    @Test
    void acceptsAPlainPostgresqlUrl() {
        String jdbc = TestPostgres.newDatabaseUrl(); // jdbc:postgresql://localhost:PORT/db?user=postgres
        var uri = java.net.URI.create(jdbc.substring("jdbc:".length()));
        String plain = "postgresql://postgres@" + uri.getHost() + ":" + uri.getPort() + uri.getPath();
        try (var server = ArborServer.start(Map.of("ARBOR_DATABASE_URL", plain))) {
            assertThat(server.http().post("/projects", "{\"name\":\"x\"}").status())
                    .isEqualTo(201);
        }
    }
}
