package dev.arbor.studio;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TestServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A decision stored none leaves nothing in the database, not even the answer kept for its Idempotency-Key. */
class StoreNoneIdempotencyTest {
    private static final String D = "/v1/studio/decisions";

    @Test
    void aStoreNoneAnswerIsReplayedFromMemoryAndNeverWrittenDown() throws Exception {
        try (var server = ArborServer.start(Map.of("ARBOR_TEST_MODELS", "1"))) {
            TestServer http = server.http();
            String secret = "{\"model\": \"hash-decider\", \"store\": \"none\", \"state\": \"passport AB123456\", "
                    + "\"questions\": {\"ok\": {\"type\": \"noul\"}}}";
            HttpReply first = http.post(D, secret, "Idempotency-Key", "private-1");
            assertThat(first.status()).as(first.body()).isEqualTo(200);
            HttpReply again = http.post(D, secret, "Idempotency-Key", "private-1");
            assertThat(again.header("idempotent-replayed")).isEqualTo("true");
            assertThat(again.body()).isEqualTo(first.body());
            http.post(D, secret.replace("AB123456", "CD999"), "Idempotency-Key", "private-1")
                    .assertError(409, "idempotency_key_reused", "Idempotency-Key");
            HttpReply kept = http.post(D, secret.replace("\"none\"", "\"full\""), "Idempotency-Key", "kept-1");
            assertThat(kept.status()).isEqualTo(200);

            try (Connection db = DriverManager.getConnection(
                            "jdbc:sqlite:" + server.dataDir().resolve("arbor.db"));
                    ResultSet rows = db.createStatement()
                            .executeQuery("SELECT idempotency_key, response_body FROM idempotency_keys")) {
                var keys = new java.util.ArrayList<String>();
                while (rows.next()) {
                    keys.add(rows.getString(1));
                    if (rows.getString(1).equals("private-1")) {
                        throw new AssertionError("the store:none answer was written down");
                    }
                }
                assertThat(keys).containsExactly("kept-1");
            }
        }
    }
}
