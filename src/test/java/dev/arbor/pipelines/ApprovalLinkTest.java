package dev.arbor.pipelines;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetupTest;
import dev.arbor.ArborServer;
import dev.arbor.pipelines.runs.RunContract;
import dev.arbor.testing.HttpReceiver;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TestServer;
import jakarta.mail.MessagingException;
import jakarta.mail.internet.MimeMessage;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * An approval step's channels: the email each recipient gets from a real SMTP server (GreenMail), whose signed
 * one-click links are followed as a browser does (the GET shows a page, its button posts), and a team chat told
 * through its webhook. Forged, used and expired links answer a page saying so and change nothing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ApprovalLinkTest {
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final Pattern APPROVE = Pattern.compile("Approve: (\\S+)");
    private static final Pattern REJECT = Pattern.compile("Reject: (\\S+)");
    private GreenMail mail;
    private HttpReceiver chat;
    private ArborServer server;
    private TestServer http;

    @BeforeAll
    void start() throws IOException {
        mail = new GreenMail(ServerSetupTest.SMTP.dynamicPort());
        mail.start();
        chat = new HttpReceiver();
        server = ArborServer.start(Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1"));
        http = server.http();
        HttpReply email = http.put(
                "/notification-channels/email",
                "{\"smtp_host\": \"127.0.0.1\", \"smtp_port\": "
                        + mail.getSmtp().getPort() + ", \"security\": \"none\", \"from\": \"arbor@arbor.test\"}");
        assertThat(email.status()).as(email.body()).isEqualTo(200);
        assertThat(http.put("/notification-channels/team_chat_1", "{\"webhook_url\": \"" + chat.url("/chat") + "\"}")
                        .status())
                .isEqualTo(200);
    }

    @AfterAll
    void stop() {
        server.close();
        chat.close();
        mail.stop();
    }

    @Test
    void theEmailsApproveLinkShowsTheQuestionAndItsButtonApprovesOnceAsTheRecipient() {
        String recipient = "approver" + NAMES.incrementAndGet() + "@arbor.test";
        String run = startAsking(recipient, 3_600);
        String body = mailTo(recipient);
        assertThat(body).contains("Deploy v2 to production?", run);

        HttpReply page = http.get(link(APPROVE, body));
        assertThat(page.status()).as(page.body()).isEqualTo(200);
        assertThat(page.header("content-type")).startsWith("text/html");
        assertThat(page.header("cache-control")).isEqualTo("no-store");
        assertThat(page.header("content-security-policy")).contains("frame-ancestors 'none'");
        assertThat(page.body()).contains("Deploy v2 to production?", "<form method=\"post\">", recipient);
        assertThat(step(run).path("status").asText())
                .as("opening the link (as a mail scanner does) answers nothing")
                .isEqualTo("waiting");

        HttpReply clicked = clickFromItsPage(link(APPROVE, body));
        assertThat(clicked.status()).as(clicked.body()).isEqualTo(200);
        assertThat(clicked.body()).contains("Approved");
        JsonNode finished = RunContract.finished(http, run);
        assertThat(finished.path("status").asText()).as(finished.toString()).isEqualTo("completed");
        JsonNode outputs = RunContract.step(finished, "ask").path("outputs");
        assertThat(outputs.path("decision").asText()).isEqualTo("approved");
        assertThat(outputs.path("by").asText()).isEqualTo("email:" + recipient);
    }

    @Test
    void theRejectLinkFailsTheStepAndTheOtherLinkThenSaysTheQuestionWasAnswered() {
        String recipient = "rejecter" + NAMES.incrementAndGet() + "@arbor.test";
        String run = startAsking(recipient, 3_600);
        String body = mailTo(recipient);

        assertThat(clickFromItsPage(link(REJECT, body)).status()).isEqualTo(200);
        JsonNode finished = RunContract.finished(http, run);
        assertThat(finished.at("/error/code").asText()).isEqualTo("approval_rejected");

        HttpReply other = clickFromItsPage(link(APPROVE, body));
        assertThat(other.status()).isEqualTo(409);
        assertThat(other.body()).contains("answered already", "rejected by email:" + recipient);
    }

    @Test
    void aUsedLinkIsRefusedWithAPageThatSaysSo() {
        String recipient = "twice" + NAMES.incrementAndGet() + "@arbor.test";
        String run = startAsking(recipient, 3_600);
        String approve = link(APPROVE, mailTo(recipient));
        assertThat(clickFromItsPage(approve).status()).isEqualTo(200);
        RunContract.finished(http, run);

        HttpReply again = clickFromItsPage(approve);
        assertThat(again.status()).isEqualTo(410);
        assertThat(again.body()).contains("This link was used already");
        assertThat(http.get(approve).status()).isEqualTo(410);
    }

    @Test
    void aForgedLinkIsRefusedWithAPageAndAnswersNothing() {
        String recipient = "forged" + NAMES.incrementAndGet() + "@arbor.test";
        String run = startAsking(recipient, 3_600);
        String approve = link(APPROVE, mailTo(recipient));
        String id = approve.substring(approve.lastIndexOf('/') + 1, approve.lastIndexOf('.'));

        for (String forged : new String[] {
            approve.substring(0, approve.length() - 2) + "xx",
            "/approval-links/" + id + ".AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "/approval-links/" + id,
            "/approval-links/apl_nope.x"
        }) {
            HttpReply refused = clickFromItsPage(forged);
            assertThat(refused.status()).as(forged).isEqualTo(404);
            assertThat(refused.body()).contains("This link is not valid");
        }
        assertThat(step(run).path("status").asText()).isEqualTo("waiting");
    }

    @Test
    void aLinkWhoseQuestionTimedOutIsRefusedAsExpired() {
        String recipient = "late" + NAMES.incrementAndGet() + "@arbor.test";
        String run = startAsking(recipient, 1);
        String approve = link(APPROVE, mailTo(recipient));
        JsonNode finished = RunContract.finished(http, run);
        assertThat(RunContract.step(finished, "ask").at("/error/code").asText()).isEqualTo("approval_rejected");

        HttpReply late = clickFromItsPage(approve);
        assertThat(late.status()).isEqualTo(410);
        assertThat(late.body()).contains("This link has expired");
    }

    @Test
    void aPostFromAnotherSitesPageIsRefusedAndTheQuestionStaysOpen() {
        String recipient = "csrf" + NAMES.incrementAndGet() + "@arbor.test";
        String run = startAsking(recipient, 3_600);
        String approve = link(APPROVE, mailTo(recipient));

        http.action(approve, "Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site")
                .assertError(403, "cross_site_request", null);
        assertThat(step(run).path("status").asText()).isEqualTo("waiting");
        assertThat(http.get(approve).status()).isEqualTo(200);
    }

    @Test
    void theTeamChatIsToldOfTheQuestionWithTheRunsPage() {
        String recipient = "chat" + NAMES.incrementAndGet() + "@arbor.test";
        String run = startAsking(recipient, 3_600);
        await().atMost(Duration.ofSeconds(30))
                .until(() ->
                        chat.received("/chat").stream().anyMatch(r -> r.body().contains(run)));
        assertThat(chat.received("/chat").stream()
                        .filter(r -> r.body().contains(run))
                        .findFirst()
                        .orElseThrow()
                        .body())
                .contains("Approval needed", "Deploy v2 to production?", "/console/pipelines/runs/" + run);
    }

    @Test
    void anEmailChannelWithoutRecipientsIsRefusedWhenSaved() {
        http.post("/pipelines", """
                        {"name": "no-recipients", "steps": [{"id": "ask", "action": "approval",
                          "params": {"message": "ok?", "approvers": ["role:admin"], "channels": ["email"]}}]}""").assertError(400, "invalid_definition", "steps[0].params.recipients");
    }

    /** Starts a run whose approval step tells {@code recipient} by email and the first team chat. */
    private String startAsking(String recipient, int timeoutSeconds) {
        HttpReply created = http.post("/pipelines", """
                {"name": "asks-%d", "steps": [
                  {"id": "ask", "action": "approval", "params": {"message": "Deploy v2 to production?",
                   "approvers": ["role:admin"], "channels": ["email", "team_chat_1"], "recipients": ["%s"],
                   "timeout_seconds": %d}},
                  {"id": "after", "action": "log", "depends_on": ["ask"], "params": {"message": "deployed"}}]}""".formatted(NAMES.incrementAndGet(), recipient, timeoutSeconds));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String run = http.post("/pipelines/" + created.json().path("id").asText() + "/runs", "{}")
                .json()
                .path("id")
                .asText();
        if (timeoutSeconds > 1) {
            // the step waits once its channels were told
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> step(run).path("status").asText().equals("waiting"));
        }
        return run;
    }

    private JsonNode step(String run) {
        return RunContract.step(http.get("/runs/" + run).json(), "ask");
    }

    /** The text of the mail {@code recipient} received, once it has. */
    private String mailTo(String recipient) {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> received(recipient).findAny().isPresent());
        MimeMessage message = received(recipient).findFirst().orElseThrow();
        try {
            assertThat(message.getSubject()).endsWith("Approval needed: Deploy v2 to production?");
            return ((String) message.getContent()).replace("\r\n", "\n");
        } catch (MessagingException | IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private Stream<MimeMessage> received(String recipient) {
        return Stream.of(mail.getReceivedMessages()).filter(m -> {
            try {
                return m.getAllRecipients()[0].toString().equals(recipient);
            } catch (MessagingException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** The path of a link in a mail: the links are absolute, on this server. */
    private static String link(Pattern which, String body) {
        Matcher found = which.matcher(body);
        assertThat(found.find()).as(body).isTrue();
        return URI.create(found.group(1)).getRawPath();
    }

    /** What a browser sends when the page's button is clicked: a form post with no fields, from the same origin. */
    private HttpReply clickFromItsPage(String path) {
        return http.action(
                path,
                "Origin",
                "http://127.0.0.1:" + http.port(),
                "Sec-Fetch-Site",
                "same-origin",
                "Content-Type",
                "application/x-www-form-urlencoded");
    }
}
