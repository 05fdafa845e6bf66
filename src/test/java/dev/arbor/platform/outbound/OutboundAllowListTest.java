package dev.arbor.platform.outbound;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TestServer;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code ARBOR_OUTBOUND_ALLOW} entries with a port, as the settings that name a mail server or a URL answer them. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OutboundAllowListTest {
    private ArborServer server;
    private TestServer http;

    @BeforeAll
    void start() {
        server = ArborServer.start(Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1:2525, 10.0.0.0/8:443, localhost:8099"));
        http = server.http();
    }

    @AfterAll
    void stop() {
        server.close();
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                // channel     | setting                                   | status | param
                "email         | \"smtp_host\": \"127.0.0.1\", \"smtp_port\": 2525 | 200 |",
                "email         | \"smtp_host\": \"127.0.0.1\", \"smtp_port\": 2526 | 400 | smtp_host",
                "email         | \"smtp_host\": \"10.1.2.3\", \"smtp_port\": 443   | 200 |",
                "email         | \"smtp_host\": \"10.1.2.3\", \"smtp_port\": 25    | 400 | smtp_host",
                "email         | \"smtp_host\": \"localhost\", \"smtp_port\": 8099 | 200 |",
                "email         | \"smtp_host\": \"localhost\", \"smtp_port\": 587  | 400 | smtp_host",
                "team_chat_1   | \"webhook_url\": \"http://127.0.0.1:2525/hook\"   | 200 |",
                "team_chat_1   | \"webhook_url\": \"http://127.0.0.1:2526/hook\"   | 400 | webhook_url",
                "team_chat_1   | \"webhook_url\": \"https://10.1.2.3/hook\"        | 200 |",
                "team_chat_1   | \"webhook_url\": \"http://10.1.2.3/hook\"         | 400 | webhook_url",
                "team_chat_1   | \"webhook_url\": \"http://localhost:8099/hook\"   | 200 |",
                "team_chat_1   | \"webhook_url\": \"http://localhost:8098/hook\"   | 400 | webhook_url"
            })
    void anEntryWithAPortAllowsThatPortOnly(String channel, String setting, int status, String param) {
        String sender = channel.equals("email") ? ", \"from\": \"bot@arbor.test\"" : "";
        HttpReply reply = http.put("/notification-channels/" + channel, "{" + setting + sender + "}");
        if (status == 200) {
            assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        } else {
            assertThat(reply.assertError(status, "invalid_field", param)
                            .path("details")
                            .path(0)
                            .path("message")
                            .asText())
                    .contains("ARBOR_OUTBOUND_ALLOW");
        }
    }
}
