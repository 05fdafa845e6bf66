package dev.arbor.inference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.OpenAiClient;
import dev.arbor.testing.OpenAiUpstream;
import dev.arbor.testing.OpenAiUpstream.Reply;
import dev.arbor.testing.RouterFixture;
import dev.arbor.testing.RouterFixture.Made;
import dev.arbor.testing.TestServer;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The ways real upstreams fail, each played by a scripted upstream behind an {@code ordered_fallback} router, with a
 * second endpoint to fall back to and without one, and read with the official OpenAI client: what the client sees is
 * an answer (whole, or a stream that ends with {@code [DONE]}) or an error it raises, never a stream cut short that
 * reads as complete. The table here is the one in the manual (inference-and-routers.md, "When an endpoint fails").
 *
 * <p>Every step sets timeouts generous for a loaded machine (first byte and idle 2 s, against upstreams that never
 * answer or answer after 20 s), and the tests assert outcomes, never durations.
 */
class UpstreamFailureScenariosTest {
    private static final String ADMIN = "arb_failure_scenarios_admin";
    private static final AtomicInteger MODELS = new AtomicInteger();

    private static RouterFixture routers;
    private static TestServer http;
    private static String project;
    private static String member;

    @BeforeAll
    static void start() {
        routers = RouterFixture.start(ADMIN);
        http = routers.http();
        project = routers.project("failures");
        member = routers.member(project);
    }

    @AfterAll
    static void stop() throws IOException {
        routers.close();
    }

    /** How a request is made: {@code chat} (a whole answer) or {@code stream}. */
    enum Call {
        CHAT,
        STREAM
    }

    /** What the client sees: an answer by {@code primary}, by {@code fallback}, by either, or an error it raises. */
    record Seen(String answeredBy, int status, String code) {
        static Seen answer(String by) {
            return new Seen(by, 0, "");
        }

        static Seen error(int status, String code) {
            return new Seen("", status, code);
        }

        boolean isAnswer() {
            return !answeredBy.isEmpty();
        }
    }

    /**
     * One scenario: what the primary endpoint does (refuse: the endpoint's server is closed), and what the client sees
     * with a fallback and without one.
     */
    record Scenario(String name, Call call, List<Reply> primary, boolean refuse, Seen withFallback, Seen alone) {
        @Override
        public String toString() {
            return name;
        }
    }

    static List<Scenario> scenarios() {
        return List.of(
                new Scenario(
                        "refuses connections",
                        Call.CHAT,
                        List.of(),
                        true,
                        Seen.answer("fallback"),
                        Seen.error(502, "upstream_unavailable")),
                new Scenario(
                        "accepts and never answers",
                        Call.CHAT,
                        List.of(Reply.hang()),
                        false,
                        Seen.answer("fallback"),
                        Seen.error(504, "upstream_timeout")),
                new Scenario(
                        "sends headers then nothing",
                        Call.STREAM,
                        List.of(Reply.headersThenNothing()),
                        false,
                        Seen.answer("fallback"),
                        Seen.error(504, "upstream_timeout")),
                new Scenario(
                        "streams chunks then resets",
                        Call.STREAM,
                        List.of(Reply.streamThenReset(2)),
                        false,
                        Seen.answer("fallback"),
                        Seen.error(0, "upstream_unavailable")),
                new Scenario(
                        "streams then goes idle",
                        Call.STREAM,
                        List.of(Reply.streamThenHang(2)),
                        false,
                        Seen.answer("fallback"),
                        Seen.error(0, "upstream_timeout")),
                new Scenario(
                        "streams a malformed chunk",
                        Call.STREAM,
                        List.of(Reply.streamThenMalformed(2)),
                        false,
                        Seen.answer("fallback"),
                        Seen.error(0, "upstream_invalid_response")),
                new Scenario(
                        "streams an error event part-way",
                        Call.STREAM,
                        List.of(Reply.streamThenErrorEvent(2)),
                        false,
                        Seen.answer("fallback"),
                        Seen.error(0, "upstream_error")),
                new Scenario(
                        "answers 200 with an error body",
                        Call.CHAT,
                        List.of(Reply.errorIn200()),
                        false,
                        Seen.answer("fallback"),
                        Seen.error(502, "internal_error_in_a_200")),
                new Scenario(
                        "answers 429 with retry-after",
                        Call.CHAT,
                        List.of(Reply.rateLimited(1), Reply.ok()),
                        false,
                        Seen.answer("either"),
                        Seen.answer("primary")),
                new Scenario(
                        "answers 429 with a retry-after past the cap",
                        Call.CHAT,
                        List.of(Reply.rateLimited(30), Reply.ok()),
                        false,
                        Seen.answer("fallback"),
                        Seen.error(429, "rate_limit_exceeded")),
                new Scenario(
                        "answers 500 then succeeds",
                        Call.CHAT,
                        List.of(Reply.error(500, "server_error"), Reply.ok()),
                        false,
                        Seen.answer("either"),
                        Seen.answer("primary")),
                new Scenario(
                        "answers slowly but within the total timeout",
                        Call.STREAM,
                        List.of(Reply.stream(3, Duration.ofMillis(200))),
                        false,
                        Seen.answer("either"),
                        Seen.answer("primary")),
                new Scenario(
                        "answers after the first-byte timeout",
                        Call.CHAT,
                        List.of(Reply.okAfter(Duration.ofSeconds(20))),
                        false,
                        Seen.answer("fallback"),
                        Seen.error(504, "upstream_timeout")),
                new Scenario(
                        "closes mid-body on an answer that does not stream",
                        Call.CHAT,
                        List.of(Reply.closedMidBody()),
                        false,
                        Seen.answer("fallback"),
                        Seen.error(502, "upstream_unavailable")));
    }

    static Stream<Arguments> table() {
        var rows = new ArrayList<Arguments>();
        for (Scenario scenario : scenarios()) {
            rows.add(Arguments.of(scenario, true));
            rows.add(Arguments.of(scenario, false));
        }
        return rows.stream();
    }

    @ParameterizedTest(name = "{0}, fallback {1}")
    @MethodSource("table")
    void theClientSeesAnAnswerOrAnErrorItRaisesNeverASilentTruncation(Scenario scenario, boolean fallback)
            throws IOException {
        int n = MODELS.incrementAndGet();
        var primary = new OpenAiUpstream("primary");
        var second = new OpenAiUpstream("fallback");
        primary.then(scenario.primary().toArray(Reply[]::new));
        second.always(scenario.call() == Call.STREAM ? Reply.streamOf("from ", "the ", "fallback") : Reply.ok());
        routers.cloudModel("primary-" + n, primary, "remote-primary", "key");
        routers.cloudModel("fallback-" + n, second, "remote-fallback", "key");
        if (scenario.refuse()) {
            primary.close();
        }
        Made router = routers.router(project, step(n, fallback));
        List<JsonNode> lines = OpenAiClient.call(
                scenario.call() == Call.STREAM ? "stream" : "chat",
                "http://127.0.0.1:" + http.port() + "/v1",
                member,
                router.name());
        Seen expected = fallback ? scenario.withFallback() : scenario.alone();
        if (expected.isAnswer()) {
            assertAnswer(scenario.call(), lines, expected.answeredBy());
        } else {
            assertRaised(lines, expected);
            // the stream broke after its first byte reached the client (a reset may drop what was sent before it)
            if (expected.status() == 0 && lines.stream().anyMatch(line -> line.has("chunk"))) {
                await().untilAsserted(() -> assertThat(http.get(
                                        "/routers/" + router.id() + "/stats?since=0",
                                        "Authorization",
                                        "Bearer " + ADMIN)
                                .json()
                                .at("/outcomes/truncated")
                                .asInt())
                        .isEqualTo(1));
            }
        }
    }

    /**
     * The step: an ordered fallback to the primary (and the fallback endpoint), first byte and idle 2 s, 429 and 500
     * retried once (retry-after honoured up to 2 s); with a fallback, a hedge after 1 s and the first 3 chunks of a
     * stream held back.
     */
    private static String step(int n, boolean fallback) {
        String endpoints =
                "{\"endpoint\": \"primary-" + n + "\"}" + (fallback ? ", {\"endpoint\": \"fallback-" + n + "\"}" : "");
        return "{\"step_id\": \"go\", \"action_type\": \"ordered_fallback\", \"params\": {\"endpoints\": [" + endpoints
                + "], \"first_byte_timeout_ms\": 2000, \"idle_timeout_ms\": 2000, \"total_timeout_ms\": 30000, "
                + "\"retry_statuses\": [\"429\", \"500\"], \"max_retries\": 1, \"backoff_ms\": 50, "
                + "\"retry_after_cap_seconds\": 2"
                + (fallback ? ", \"hedge_after_ms\": 1000, \"hold_back_tokens\": 3" : "")
                + "}}";
    }

    private static void assertAnswer(Call call, List<JsonNode> lines, String by) {
        assertThat(lines).as(lines.toString()).isNotEmpty();
        assertThat(lines.getLast().has("error")).as(lines.toString()).isFalse();
        if (call == Call.CHAT) {
            String content = lines.getFirst().at("/answer/content").asText();
            assertThat(content).as(lines.toString()).isIn(expectedAnswers(by, "Hello from %s."));
            return;
        }
        assertThat(lines.getLast().path("done").asBoolean())
                .as(lines.toString())
                .isTrue();
        String text = String.join(
                "",
                lines.stream()
                        .filter(line ->
                                line.has("chunk") && line.at("/chunk/content").isTextual())
                        .map(line -> line.at("/chunk/content").asText())
                        .toList());
        assertThat(text).as(lines.toString()).isIn(expectedAnswers(by, "%s"));
    }

    /** The answers {@code by} gives: a whole one says "Hello from <upstream>.", the streams differ in their text. */
    private static List<String> expectedAnswers(String by, String format) {
        List<String> who = by.equals("either") ? List.of("primary", "fallback") : List.of(by);
        return who.stream()
                .map(name -> format.equals("%s")
                        ? (name.equals("primary") ? "part0 part1 part2 " : "from the fallback")
                        : format.formatted(name))
                .toList();
    }

    private static void assertRaised(List<JsonNode> lines, Seen expected) {
        assertThat(lines).as(lines.toString()).isNotEmpty();
        JsonNode error = lines.getLast().path("error");
        assertThat(error.isObject()).as(lines.toString()).isTrue();
        assertThat(error.path("api_error").asBoolean()).as(error.toString()).isTrue();
        assertThat(error.path("code").asText()).as(error.toString()).isEqualTo(expected.code());
        if (expected.status() != 0) {
            assertThat(error.path("status").asInt()).as(error.toString()).isEqualTo(expected.status());
            assertThat(lines).as("nothing came before the error").hasSize(1);
        }
        assertThat(lines).noneMatch(line -> line.has("done"));
    }
}
