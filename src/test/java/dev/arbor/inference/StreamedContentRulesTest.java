package dev.arbor.inference;

import static dev.arbor.testing.RouterFixture.single;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.OpenAiClient;
import dev.arbor.testing.OpenAiUpstream;
import dev.arbor.testing.OpenAiUpstream.Reply;
import dev.arbor.testing.RouterFixture;
import dev.arbor.testing.RouterFixture.Made;
import dev.arbor.testing.TestServer;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Output content rules on streamed answers: the text is checked as chunks pass, a match split across chunks is found,
 * a block ends the stream with an error event, and a stream no rule matches passes chunk for chunk as it came. Read
 * with the official OpenAI client.
 */
class StreamedContentRulesTest {
    private static final String ADMIN = "arb_streamed_rules_admin";

    private static OpenAiUpstream upstream;
    private static TestServer http;
    private static RouterFixture routers;
    private static String project;
    private static String member;

    @BeforeAll
    static void start() throws IOException {
        upstream = new OpenAiUpstream("sigma");
        routers = RouterFixture.start(ADMIN);
        http = routers.http();
        project = routers.project("streams");
        member = routers.member(project);
        routers.cloudModel("sigma", upstream, "remote-sigma", "sigma-key");
    }

    @AfterAll
    static void stop() throws IOException {
        routers.close();
    }

    /** A router whose content_rules step has this output rule, then forwards to the upstream. */
    private static Made guarded(String match, String pattern, String action) {
        return routers.router(
                project,
                "{\"step_id\": \"guard\", \"action_type\": \"content_rules\", \"params\": {\"rules\": [{\"match\": \""
                        + match + "\", \"pattern\": \"" + pattern + "\", \"action\": \"" + action + "\", "
                        + (action.equals("tag") ? "\"tag\": \"flagged\", " : "")
                        + "\"on\": \"output\"}], \"block_message\": \"Not in answers.\"}, "
                        + "\"next_steps\": [\"go\"]}, " + single("go", "sigma"));
    }

    /** The official client's stream: each chunk's content (null for the usage chunk), then done or an error. */
    private static List<JsonNode> stream(Made router) {
        return OpenAiClient.call("stream", "http://127.0.0.1:" + http.port() + "/v1", member, router.name());
    }

    private static List<String> contents(List<JsonNode> lines) {
        return lines.stream()
                .filter(line -> line.has("chunk"))
                .map(line -> line.at("/chunk/content").asText("<none>"))
                .toList();
    }

    @Test
    void aKeywordSplitAcrossTwoChunksIsRedacted() {
        Made router = guarded("keyword", "secret", "redact");
        upstream.then(Reply.streamOf("The sec", "ret is out."));
        List<JsonNode> lines = stream(router);
        assertThat(lines.getLast().path("done").asBoolean())
                .as(lines.toString())
                .isTrue();
        assertThat(contents(lines)).containsExactly("The ", "[REDACTED] is out.", "<none>");
    }

    @Test
    void textHeldBackWhenTheEndpointsStreamEndsGoesOutBeforeDone() {
        Made router = guarded("keyword", "secret", "redact");
        upstream.then(Reply.streamOf("It ends in sec"));
        List<JsonNode> lines = stream(router);
        assertThat(lines.getLast().path("done").asBoolean())
                .as(lines.toString())
                .isTrue();
        assertThat(contents(lines)).containsExactly("It ends in ", "<none>", "sec");
    }

    @Test
    void aRegularExpressionSplitAcrossChunksIsRedacted() {
        Made router = guarded("regex", "\\\\d{3}-\\\\d{4}", "redact");
        upstream.then(Reply.streamOf("Call 555-", "01", "00 now."));
        List<JsonNode> lines = stream(router);
        assertThat(String.join("", contents(lines).subList(0, 3))).isEqualTo("Call [REDACTED] now.");
        assertThat(contents(lines).getFirst()).isEqualTo("Call ");
    }

    @Test
    void aBlockRuleEndsTheStreamMidWayWithAnErrorEventAndRecordsIt() {
        Made router = guarded("keyword", "forbidden", "block");
        upstream.then(Reply.streamOf("Hello, ", "this is forbid", "den text", " and more."));
        List<JsonNode> lines = stream(router);
        assertThat(contents(lines)).as(lines.toString()).containsExactly("Hello, ", "this is ");
        JsonNode error = lines.getLast().path("error");
        assertThat(error.path("code").asText()).as(lines.toString()).isEqualTo("content_blocked");
        assertThat(error.path("message").asText()).contains("Not in answers.");
        await().untilAsserted(() -> assertThat(
                        http.get("/routers/" + router.id() + "/stats?since=0", "Authorization", "Bearer " + ADMIN)
                                .json()
                                .at("/outcomes/blocked")
                                .asInt())
                .isEqualTo(1));
    }

    @Test
    void aStreamNoRuleMatchesPassesChunkForChunkAsItCame() {
        Made plain = routers.router(project, single("go", "sigma"));
        Made router = guarded("keyword", "zebra", "redact");
        upstream.then(Reply.streamOf("one ", "two ", "three"), Reply.streamOf("one ", "two ", "three"));
        String unguarded = rawStream(plain).replace(plain.name(), "MODEL");
        String guardedStream = rawStream(router).replace(router.name(), "MODEL");
        assertThat(guardedStream).isEqualTo(unguarded);
        assertThat(guardedStream).contains("\"one \"", "\"two \"", "\"three\"");
    }

    private static String rawStream(Made router) {
        HttpReply reply = http.post(
                "/v1/chat/completions",
                "{\"model\": \"" + router.name() + "\", \"stream\": true, \"messages\": [{\"role\": \"user\", "
                        + "\"content\": \"hi\"}]}",
                "Authorization",
                "Bearer " + member);
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        return reply.body();
    }

    @Test
    void anOutputTagFoundAfterTheHeadersWentComesInAClosingComment() {
        Made router = guarded("keyword", "refund", "tag");
        upstream.then(Reply.streamOf("You get a re", "fund."));
        String body = rawStream(router);
        assertThat(body).contains("\"refund.\"").contains(": x-router-tags: flagged\n\ndata: [DONE]");
    }

    @Test
    void anOutputTagOfAWholeAnswerComesInAHeader() {
        Made router = guarded("keyword", "hello", "tag");
        HttpReply reply = http.post(
                "/v1/chat/completions",
                "{\"model\": \"" + router.name() + "\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}",
                "Authorization",
                "Bearer " + member);
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.header("x-router-tags")).isEqualTo("flagged");
    }
}
