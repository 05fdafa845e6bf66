package dev.arbor.pipelines;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetupTest;
import dev.arbor.ArborServer;
import dev.arbor.pipelines.runs.RunContract;
import dev.arbor.testing.HttpReceiver;
import dev.arbor.testing.HttpReceiver.Reply;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TestServer;
import jakarta.mail.internet.MimeMessage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Notification channels (SMTP with a sealed password, chat webhooks sealed whole) and the Send Notification action,
 * against GreenMail (a real SMTP server) and a local webhook receiver.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NotificationTest {
    private static final String PASSWORD = "s3cret-pass-77";
    private GreenMail mail;
    private HttpReceiver receiver;
    private ArborServer server;
    private TestServer http;

    @BeforeAll
    void start() throws Exception {
        mail = new GreenMail(ServerSetupTest.SMTP.dynamicPort());
        mail.start();
        mail.setUser("bot@arbor.test", "bot", PASSWORD);
        receiver = new HttpReceiver();
        server = ArborServer.start(Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1"));
        http = server.http();
    }

    @AfterAll
    void stop() {
        server.close();
        receiver.close();
        mail.stop();
    }

    @Test
    void eachSettingSaysWhatItMustBe() {
        JsonNode error = http.put("/notification-channels/email", """
                {"smtp_port": "25", "security": 3, "username": " ", "password": "", "from": 7, "name": "x"}""").assertError(400, "invalid_field", "name");
        assertThat(error.path("details").findValuesAsText("message"))
                .containsExactly(
                        "`name` is not a field of the email channel's settings (its fields: from, password, security, "
                                + "smtp_host, smtp_port, username).",
                        "`password` must be a non-empty string.",
                        "`smtp_host` is required: the mail server's host name.",
                        "`smtp_port` must be a port number, 1 to 65535.",
                        "`security` must be starttls, tls or none.",
                        "`username` must be a non-empty string.",
                        "`from` is required: the sender's email address.");
        assertThat(http.put("/notification-channels/team_chat_1", "{\"name\": 5}")
                        .json()
                        .path("error")
                        .path("details")
                        .findValuesAsText("message"))
                .contains("`name` must be a string of at most 200 characters.");
    }

    @Test
    void channelsAreCheckedAndTheirSecretsAreNeverShownNorStoredInTheClear() throws Exception {
        assertThat(http.get("/notification-channels").json().path("data").findValuesAsText("channel"))
                .containsExactly("email", "team_chat_1", "team_chat_2");
        http.get("/notification-channels/pager").assertError(404, "channel_not_found", "channel");
        JsonNode error = http.put("/notification-channels/email", "{\"security\": \"ssl3\", \"smtp_port\": 0}")
                .assertError(400, "missing_field", "smtp_host");
        assertThat(error.path("details").findValuesAsText("param"))
                .containsExactlyInAnyOrder("smtp_host", "smtp_port", "security", "from");
        http.put("/notification-channels/email", "{\"smtp_host\": \"127.0.0.1\", \"from\": \"not an address\"}")
                .assertError(400, "invalid_field", "from");
        // the mail server passes the outbound policy like any URL: no internal host by way of SMTP
        http.put("/notification-channels/email", "{\"smtp_host\": \"10.0.0.5\", \"from\": \"bot@arbor.test\"}")
                .assertError(400, "invalid_field", "smtp_host");
        http.put("/notification-channels/team_chat_2", "{\"name\": \"ops\"}")
                .assertError(400, "missing_field", "webhook_url");
        http.put("/notification-channels/team_chat_2", "{\"webhook_url\": \"http://10.0.0.5/hook\"}")
                .assertError(400, "invalid_field", "webhook_url");
        http.put("/notification-channels/team_chat_2", "{\"webhook_url\": \"x\", \"token\": 1}")
                .assertError(400, "invalid_field", "token");

        configureEmail();
        JsonNode shown = http.get("/notification-channels/email").json();
        assertThat(shown.path("configured").asBoolean()).isTrue();
        assertThat(shown.path("password_set").asBoolean()).isTrue();
        assertThat(shown.toString()).doesNotContain(PASSWORD);
        // a PUT without the password keeps it
        http.put("/notification-channels/email", emailSettings(""));
        assertThat(http.get("/notification-channels/email")
                        .json()
                        .path("password_set")
                        .asBoolean())
                .isTrue();
        String hook = receiver.url("/hooks/secret-token-123");
        assertThat(http.put("/notification-channels/team_chat_1", "{\"webhook_url\": \"" + hook + "\"}")
                        .json()
                        .toString())
                .doesNotContain("secret-token-123")
                .contains("\"webhook_host\":\"127.0.0.1\"");
        try (Stream<Path> files = Files.list(server.dataDir())) {
            for (Path file : files.filter(f -> f.getFileName().toString().startsWith("arbor.db"))
                    .toList()) {
                String bytes = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
                assertThat(bytes).doesNotContain(PASSWORD).doesNotContain("secret-token-123");
            }
        }
        HttpReply test = http.post("/notification-channels/email/test", "{\"recipients\": [\"ops@arbor.test\"]}");
        assertThat(test.json().path("delivered").asBoolean()).as(test.body()).isTrue();
        http.delete("/notification-channels/team_chat_2");
        http.post("/notification-channels/team_chat_2/test", "{}")
                .assertError(409, "channel_not_configured", "channel");
    }

    @Test
    void sendNotificationStepsReachMailAndBothChatsAndRetryAChatThatIsDown() throws Exception {
        configureEmail();
        String one = "/chat-one";
        String two = "/chat-two";
        receiver.script(two, Reply.json(503, "down"), Reply.json(200, "ok"));
        http.put("/notification-channels/team_chat_1", "{\"webhook_url\": \"" + receiver.url(one) + "\"}");
        http.put("/notification-channels/team_chat_2", "{\"webhook_url\": \"" + receiver.url(two) + "\"}");
        String pipeline = http.post("/pipelines", """
                {"name": "notify", "parameters": [{"name": "env", "type": "string", "default": "prod"}],
                 "steps": [
                   {"id": "mail", "action": "send_notification", "params": {"channel": "email", "priority": "high",
                    "recipients": ["ops@arbor.test", "lead@arbor.test"], "message": "Deploy to {{ params.env }} done\\nAll good."}},
                   {"id": "chat1", "action": "send_notification", "params": {"channel": "team_chat_1",
                    "message": "Deploy to {{ params.env }} done"}},
                   {"id": "chat2", "action": "send_notification", "retry": {"max_attempts": 2, "backoff_seconds": 1},
                    "params": {"channel": "team_chat_2", "message": "second chat"}},
                   {"id": "bad", "action": "send_notification", "on_failure": "continue",
                    "params": {"channel": "email", "recipients": ["nobody@@x"], "message": "x"}}]}""").json().path("id").asText();
        String runId = http.post("/pipelines/" + pipeline + "/runs", "{}")
                .json()
                .path("id")
                .asText();
        JsonNode run = RunContract.finished(http, runId);
        assertThat(run.path("status").asText()).as(run.toString()).isEqualTo("completed");
        assertThat(RunContract.step(run, "chat2").path("attempts").asInt()).isEqualTo(2);
        assertThat(RunContract.step(run, "bad").at("/error/code").asText()).isEqualTo("invalid_recipients");

        await().atMost(Duration.ofSeconds(10))
                .until(() -> Stream.of(mail.getReceivedMessages())
                        .anyMatch(m -> subject(m).startsWith("[high] Deploy")));
        MimeMessage sent = Stream.of(mail.getReceivedMessages())
                .filter(m -> subject(m).startsWith("[high] Deploy"))
                .findFirst()
                .orElseThrow();
        assertThat(subject(sent)).isEqualTo("[high] Deploy to prod done");
        assertThat(sent.getHeader("X-Priority")[0]).isEqualTo("1");
        assertThat(sent.getAllRecipients())
                .extracting(Object::toString)
                .containsExactly("ops@arbor.test", "lead@arbor.test");
        assertThat(((String) sent.getContent()).replace("\r\n", "\n").strip())
                .isEqualTo("Deploy to prod done\nAll good.");
        assertThat(receiver.received(one))
                .singleElement()
                .satisfies(r -> assertThat(r.body()).isEqualTo("{\"text\":\"Deploy to prod done\"}"));
        assertThat(receiver.received(two)).hasSize(2);
    }

    @Test
    void aMailServerTheOutboundPolicyNoLongerAllowsIsNotContacted() {
        int received = mail.getReceivedMessages().length;
        Path data;
        try (var allowing = ArborServer.start(Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1"))) {
            data = allowing.dataDir();
            assertThat(allowing.http()
                            .put("/notification-channels/email", emailSettings(""))
                            .status())
                    .isEqualTo(200);
        }
        try (var restricted = ArborServer.start(Map.of("ARBOR_DATA", data.toString()))) {
            JsonNode test = restricted
                    .http()
                    .post("/notification-channels/email/test", "{\"recipients\": [\"ops@arbor.test\"]}")
                    .json();

            assertThat(test.path("delivered").asBoolean()).isFalse();
            assertThat(test.at("/error/code").asText()).isEqualTo("host_not_allowed");
            assertThat(test.at("/error/message").asText()).contains("127.0.0.1", "ARBOR_OUTBOUND_ALLOW");
        }
        assertThat(mail.getReceivedMessages()).hasSize(received);
    }

    @Test
    void aStepToAChannelNotSetUpFailsWithoutRetrying() {
        http.delete("/notification-channels/team_chat_2");
        String pipeline = http.post("/pipelines", """
                {"name": "unset", "steps": [{"id": "chat", "action": "send_notification",
                  "retry": {"max_attempts": 3, "backoff_seconds": 1},
                  "params": {"channel": "team_chat_2", "message": "hello"}}]}""").json().path("id").asText();
        JsonNode run = RunContract.finished(
                http,
                http.post("/pipelines/" + pipeline + "/runs", "{}")
                        .json()
                        .path("id")
                        .asText());
        assertThat(run.at("/error/code").asText()).isEqualTo("channel_not_configured");
        assertThat(RunContract.step(run, "chat").path("attempts").asInt()).isEqualTo(1);
    }

    private void configureEmail() {
        HttpReply put = http.put("/notification-channels/email", emailSettings(", \"password\": \"" + PASSWORD + "\""));
        assertThat(put.status()).as(put.body()).isEqualTo(200);
    }

    private String emailSettings(String more) {
        return "{\"smtp_host\": \"127.0.0.1\", \"smtp_port\": " + mail.getSmtp().getPort() + ", \"security\": "
                + "\"none\", \"username\": \"bot\", \"from\": \"bot@arbor.test\"" + more + "}";
    }

    private static String subject(MimeMessage message) {
        try {
            return message.getSubject();
        } catch (jakarta.mail.MessagingException e) {
            throw new IllegalStateException(e);
        }
    }
}
