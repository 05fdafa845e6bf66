package dev.arbor.inference;

import static dev.arbor.testing.RouterFixture.single;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.OpenAiUpstream;
import dev.arbor.testing.RouterFixture;
import dev.arbor.testing.RouterFixture.Made;
import dev.arbor.testing.TestServer;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The cache step, once per database: a request asked again is answered from the router's cache (whole, or replayed
 * as the stream it asks for) without the endpoint; what a request may get depends on its scope, the TTL, the size cap,
 * its temperature; DELETE empties the cache; the router's stats count hits, misses and saved tokens.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class CacheStepContract {
    private static final String ADMIN = "arb_cache_step_admin";
    private static final AtomicInteger QUESTIONS = new AtomicInteger();

    private OpenAiUpstream upstream;
    private RouterFixture routers;
    private TestServer http;
    private String project;
    private String member;
    private String otherMember;

    /** The server's database settings (none: SQLite). */
    protected abstract Map<String, String> database();

    @BeforeAll
    void start() throws IOException {
        upstream = new OpenAiUpstream("cache");
        routers = RouterFixture.start(ADMIN, database());
        http = routers.http();
        project = routers.project("cache");
        member = routers.member(project);
        otherMember = routers.member(project);
        routers.cloudModel("cache-model", upstream, "remote-cache", "key");
    }

    @AfterAll
    void stop() throws IOException {
        routers.close();
    }

    private Made cached(String params) {
        return routers.router(
                project,
                "{\"step_id\": \"cache\", \"action_type\": \"cache\", \"params\": " + params
                        + ", \"next_steps\": [\"go\"]}, " + single("go", "cache-model"));
    }

    private HttpReply chat(Made router, String question, String token, String more) {
        return http.post(
                "/v1/chat/completions",
                "{\"model\": \"" + router.name() + "\", \"messages\": [{\"role\": \"user\", \"content\": \"" + question
                        + "\"}]" + more + "}",
                "Authorization",
                "Bearer " + token);
    }

    private static String question() {
        return "What is question number " + QUESTIONS.incrementAndGet() + "?";
    }

    @Test
    void aRequestAskedAgainIsAnsweredFromTheCacheWithoutTheEndpoint() {
        Made router = cached("{}");
        String question = question();
        HttpReply first = chat(router, question, member, "");
        assertThat(first.status()).as(first.body()).isEqualTo(200);
        assertThat(first.header("x-cache")).isEqualTo("miss");
        int served = upstream.requests().size();

        HttpReply again = chat(router, question, member, "");
        assertThat(again.status()).as(again.body()).isEqualTo(200);
        assertThat(again.header("x-cache")).isEqualTo("hit");
        assertThat(again.json().at("/choices/0/message/content").asText())
                .isEqualTo(first.json().at("/choices/0/message/content").asText());
        assertThat(again.json().path("model").asText()).isEqualTo(router.name());
        assertThat(upstream.requests()).hasSize(served);
    }

    @Test
    void aStreamedAnswerIsKeptAndReplayedAsAStreamAndAsAWholeAnswer() {
        Made router = cached("{}");
        String question = question();
        upstream.then(OpenAiUpstream.Reply.streamOf("Paris ", "is ", "the ", "answer."));
        HttpReply first = chat(router, question, member, ", \"stream\": true");
        assertThat(first.status()).as(first.body()).isEqualTo(200);
        assertThat(first.header("x-cache")).isEqualTo("miss");
        int served = upstream.requests().size();

        HttpReply replayed = chat(router, question, member, ", \"stream\": true");
        assertThat(replayed.header("x-cache")).isEqualTo("hit");
        assertThat(replayed.header("content-type")).startsWith("text/event-stream");
        assertThat(streamedText(replayed)).isEqualTo("Paris is the answer.");
        assertThat(replayed.body().strip()).endsWith("data: [DONE]");

        HttpReply whole = chat(router, question, member, "");
        assertThat(whole.header("x-cache")).isEqualTo("hit");
        assertThat(whole.json().at("/choices/0/message/content").asText()).isEqualTo("Paris is the answer.");
        assertThat(upstream.requests()).hasSize(served);
    }

    @Test
    void aStreamTheEndpointBrokeOffIsNotKept() {
        Made router = cached("{}");
        String question = question();
        upstream.then(OpenAiUpstream.Reply.streamThenReset(3));
        HttpReply cut = chat(router, question, member, ", \"stream\": true");
        assertThat(cut.body()).contains("\"error\"").doesNotContain("[DONE]");

        upstream.then(OpenAiUpstream.Reply.streamOf("whole ", "answer"));
        HttpReply again = chat(router, question, member, ", \"stream\": true");
        assertThat(again.header("x-cache")).isEqualTo("miss");
        assertThat(streamedText(again)).isEqualTo("whole answer");
    }

    @Test
    void aStepPerKeyNeverServesOneCallersAnswerToAnother() {
        Made router = cached("{\"per\": \"key\"}");
        String question = question();
        chat(router, question, member, "");
        assertThat(chat(router, question, member, "").header("x-cache")).isEqualTo("hit");
        assertThat(chat(router, question, otherMember, "").header("x-cache")).isEqualTo("miss");
    }

    @Test
    void aStepPerProjectServesEveryCallerOfTheProject() {
        Made router = cached("{\"per\": \"project\"}");
        String question = question();
        chat(router, question, member, "");
        assertThat(chat(router, question, otherMember, "").header("x-cache")).isEqualTo("hit");
    }

    @Test
    void aSampledRequestGoesToTheEndpointUnlessTheStepCachesThose() {
        Made plain = cached("{}");
        String question = question();
        chat(plain, question, member, ", \"temperature\": 0.7");
        assertThat(chat(plain, question, member, ", \"temperature\": 0.7").header("x-cache"))
                .isEqualTo("miss");

        Made sampled = cached("{\"cache_sampled\": true}");
        chat(sampled, question, member, ", \"temperature\": 0.7");
        assertThat(chat(sampled, question, member, ", \"temperature\": 0.7").header("x-cache"))
                .isEqualTo("hit");
    }

    @Test
    void anAnswerPastItsTtlIsAskedAgain() {
        Made router = cached("{\"ttl_seconds\": 1}");
        String question = question();
        chat(router, question, member, "");
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() ->
                        chat(router, question, member, "").header("x-cache").equals("miss"));
    }

    @Test
    void pastItsSizeCapTheLeastRecentlyUsedAnswerGoes() {
        Made router = cached("{\"max_entries\": 2}");
        String first = question();
        String second = question();
        String third = question();
        chat(router, first, member, "");
        chat(router, second, member, "");
        assertThat(chat(router, first, member, "").header("x-cache")).isEqualTo("hit"); // first used after second
        chat(router, third, member, "");
        assertThat(chat(router, first, member, "").header("x-cache")).isEqualTo("hit");
        assertThat(chat(router, second, member, "").header("x-cache")).isEqualTo("miss");
    }

    @Test
    void deletingTheCacheEmptiesIt() {
        Made router = cached("{}");
        String question = question();
        chat(router, question, member, "");
        assertThat(chat(router, question, member, "").header("x-cache")).isEqualTo("hit");

        HttpReply cleared = http.delete("/routers/" + router.id() + "/cache", "Authorization", "Bearer " + member);
        assertThat(cleared.status()).as(cleared.body()).isEqualTo(200);
        assertThat(cleared.json().path("deleted").asInt()).isEqualTo(1);
        assertThat(cleared.json().path("object").asText()).isEqualTo("router.cache.cleared");
        assertThat(chat(router, question, member, "").header("x-cache")).isEqualTo("miss");
    }

    @Test
    void anotherProjectsMemberCannotEmptyTheCache() {
        Made router = cached("{}");
        String stranger = routers.member(routers.project("cache-stranger"));
        http.delete("/routers/" + router.id() + "/cache", "Authorization", "Bearer " + stranger)
                .assertError(404, "router_not_found", "router_id");
    }

    @Test
    void theRoutersStatsCountHitsMissesAndSavedTokens() {
        Made router = cached("{}");
        String question = question();
        chat(router, question, member, "");
        chat(router, question, member, "");
        chat(router, question, member, "");
        JsonNode cache = http.get("/routers/" + router.id() + "/stats", "Authorization", "Bearer " + member)
                .json()
                .path("cache");
        assertThat(cache.path("hits").asLong()).isEqualTo(2);
        assertThat(cache.path("misses").asLong()).isEqualTo(1);
        assertThat(cache.path("hit_rate").asDouble()).isCloseTo(2.0 / 3, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(cache.path("saved_tokens").asLong()).isEqualTo(2 * 17);
    }

    @Test
    void aSemanticStepAnswersAQuestionAskedInOtherWordsAndSaysHowClose() {
        Made router = cached("{\"mode\": \"semantic\", \"similarity_threshold\": 0.85}");
        HttpReply first = chat(router, "What is the capital city of France?", member, "");
        assertThat(first.header("x-cache")).as(first.body()).isEqualTo("miss");

        HttpReply reworded = chat(router, "what's the capital of France", member, "");
        assertThat(reworded.header("x-cache")).isEqualTo("semantic");
        assertThat(Double.parseDouble(reworded.header("x-cache-similarity"))).isBetween(0.85, 1.0);
        assertThat(reworded.json().at("/choices/0/message/content").asText())
                .isEqualTo(first.json().at("/choices/0/message/content").asText());

        assertThat(chat(router, "How long should bread dough rise?", member, "").header("x-cache"))
                .isEqualTo("miss");
    }

    /** The text of a stream's chunks, in order. */
    static String streamedText(HttpReply reply) {
        var text = new StringBuilder();
        for (String line : reply.body().split("\n")) {
            if (line.startsWith("data: {")) {
                JsonNode chunk = dev.arbor.platform.json.Json.read(line.substring("data: ".length()));
                text.append(chunk.at("/choices/0/delta/content").asText(""));
            }
        }
        return text.toString();
    }
}
