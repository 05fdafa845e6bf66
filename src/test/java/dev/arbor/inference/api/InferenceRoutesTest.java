package dev.arbor.inference.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.OpenAiClient;
import dev.arbor.testing.OpenAiUpstream;
import dev.arbor.testing.OpenAiUpstream.Reply;
import dev.arbor.testing.TestServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Direct calls: {@code /v1/chat/completions}, {@code /v1/completions} and {@code /v1/embeddings} naming a cloud model
 * of the registry, against a scripted OpenAI-compatible upstream, called with the official OpenAI client and plain
 * HTTP; every way the upstream fails becomes its status, never a 500 or a stuck request.
 */
class InferenceRoutesTest {
    private static final String KEY = "sk-upstream-7d1e";

    private static OpenAiUpstream upstream;
    private static ArborServer server;
    private static TestServer http;
    private static String admin;
    private static String member;

    @BeforeAll
    static void start() throws IOException {
        upstream = new OpenAiUpstream("scripted");
        server = ArborServer.start(Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1", "ARBOR_ROUTING_TIMEOUT_SECONDS", "1"));
        http = server.http();
        String project =
                http.post("/projects", "{\"name\": \"apps\"}").json().path("id").asText();
        admin = http.post("/auth/tokens", "{\"name\": \"ops\", \"role\": \"admin\"}")
                .json()
                .path("token")
                .asText();
        member = http.post(
                        "/auth/tokens",
                        "{\"name\": \"app\", \"role\": \"member\", \"projects\": [\"" + project + "\"]}",
                        "Authorization",
                        "Bearer " + admin)
                .json()
                .path("token")
                .asText();
        addCloudModel("gpt-local", upstream.url(), "llama-3-8b");
    }

    private static void addCloudModel(String id, String url, String remoteModel) {
        HttpReply added = http.post(
                "/models",
                "{\"id\": \"" + id + "\", \"model_uri\": \"" + url + "\", \"model_name\": \"" + id + "\", "
                        + "\"model_source\": \"cloud\", \"engine\": \"remote\", \"remote_model\": \"" + remoteModel
                        + "\", \"api_key\": \"" + KEY + "\"}",
                "Authorization",
                "Bearer " + admin);
        assertThat(added.status()).as(added.body()).isEqualTo(201);
    }

    @AfterAll
    static void stop() throws IOException {
        server.close();
        upstream.close();
    }

    private static HttpReply chat(String body) {
        return http.post("/v1/chat/completions", body, "Authorization", "Bearer " + member);
    }

    private static String base() {
        return "http://127.0.0.1:" + http.port() + "/v1";
    }

    @Test
    void theOfficialClientGetsTheUpstreamsAnswerWithTheModelAsItNamedIt() {
        List<JsonNode> lines = OpenAiClient.call("chat", base(), member, "gpt-local");
        JsonNode answer = lines.getFirst().path("answer");
        assertThat(answer.path("model").asText()).as(lines.toString()).isEqualTo("gpt-local");
        assertThat(answer.path("content").asText()).isEqualTo("Hello from scripted.");
        assertThat(answer.at("/usage/prompt_tokens").asInt()).isEqualTo(12);
        OpenAiUpstream.Request sent = upstream.requests().getLast();
        assertThat(sent.path()).isEqualTo("/v1/chat/completions");
        assertThat(sent.body().path("model").asText()).isEqualTo("llama-3-8b");
        assertThat(sent.body().at("/messages/0/content").asText()).isEqualTo("Say hello.");
        assertThat(sent.headers()).containsEntry("authorization", "Bearer " + KEY);
    }

    @Test
    void theBodyPassesThroughWithOnlyTheModelReplaced() {
        String body = "{\"messages\": [{\"role\": \"user\", \"content\": \"h\\u00e9\"}], \"model\": \"gpt-local\", "
                + "\"temperature\": 0.25, \"vendor_extension\": {\"keep\": [1, 2]}}";
        HttpReply reply = chat(body);
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.header("x-router-endpoint")).isEqualTo("gpt-local");
        assertThat(reply.header("x-router-attempts")).isEqualTo("1");
        assertThat(reply.json().path("system_fingerprint").asText()).isEqualTo("scripted");
        JsonNode sent = upstream.requests().getLast().body();
        assertThat(sent.toString())
                .isEqualTo("{\"messages\":[{\"role\":\"user\",\"content\":\"hé\"}],\"model\":\"llama-3-8b\","
                        + "\"temperature\":0.25,\"vendor_extension\":{\"keep\":[1,2]}}");
    }

    @Test
    void completionsGoToTheUpstreamsCompletionsPath() {
        HttpReply reply = http.post(
                "/v1/completions",
                "{\"model\": \"gpt-local\", \"prompt\": \"Once\"}",
                "Authorization",
                "Bearer " + member);
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.json().path("model").asText()).isEqualTo("gpt-local");
        assertThat(upstream.requests().getLast().path()).isEqualTo("/v1/completions");
    }

    @Test
    void theOfficialClientGetsEmbeddings() {
        JsonNode answer = OpenAiClient.call("embeddings", base(), member, "gpt-local")
                .getFirst()
                .path("answer");
        assertThat(answer.path("model").asText()).as(answer.toString()).isEqualTo("gpt-local");
        assertThat(answer.path("embedding").toString()).isEqualTo("[0.25,-0.5,1]"); // as JavaScript prints numbers
        assertThat(upstream.requests().getLast().path()).isEqualTo("/v1/embeddings");
    }

    @Test
    void theOfficialClientReadsAStreamChunkByChunkBeforeTheUpstreamFinishes() {
        var release = new CountDownLatch(1);
        upstream.then(Reply.streamHeldAfterFirst(3, release));
        try (var client = OpenAiClient.start("stream", base(), member, "gpt-local")) {
            // the upstream sends its second chunk only once the client has the first: a buffered relay never gets it
            JsonNode first = client.next();
            assertThat(first.path("chunk").path("content").asText())
                    .as(first.toString())
                    .isEqualTo("part0 ");
            assertThat(first.path("chunk").path("model").asText()).isEqualTo("gpt-local");
            release.countDown();
            var rest = new ArrayList<JsonNode>();
            for (JsonNode line = client.next(); line != null; line = client.next()) {
                rest.add(line);
            }
            assertThat(rest)
                    .map(line -> line.path("chunk").path("content").asText(""))
                    .containsExactly("part1 ", "part2 ", "", "");
            assertThat(rest.get(2).at("/chunk/usage/completion_tokens").asInt()).isEqualTo(3);
            assertThat(rest.getLast().path("done").asBoolean()).isTrue();
        } finally {
            release.countDown();
        }
    }

    @Test
    void aStreamComesThroughAsServerSentEventsWithDoneKept() throws Exception {
        upstream.then(Reply.stream(2, Duration.ZERO));
        HttpResponse<InputStream> response = streamRequest();
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("text/event-stream"));
        String all = new String(response.body().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(all.split("\n\n")).hasSize(4);
        assertThat(all)
                .contains("\"model\":\"gpt-local\"")
                .doesNotContain("llama-3-8b")
                .endsWith("data: [DONE]\n\n");
    }

    @Test
    void aStreamThatBreaksOffEndsWithAnErrorTheClientRaises() {
        upstream.then(Reply.streamThenReset(2));
        List<JsonNode> lines = OpenAiClient.call("stream", base(), member, "gpt-local");
        // a reset can drop what reached this server's socket unread, the answer's head too (then the error is a 502
        // before any chunk): what comes first is the sent chunks' start
        assertThat(lines).as(lines.toString()).hasSizeBetween(1, 3);
        for (int i = 0; i < lines.size() - 1; i++) {
            assertThat(lines.get(i).at("/chunk/content").asText()).isEqualTo("part" + i + " ");
        }
        JsonNode error = lines.getLast().path("error");
        assertThat(error.path("api_error").asBoolean()).as(error.toString()).isTrue();
        assertThat(error.path("code").asText()).isEqualTo("upstream_unavailable");
        assertThat(error.path("message").asText())
                .contains("Endpoint 'gpt-local' ")
                .endsWith(" (the connection ended early).");
    }

    @Test
    void aStreamThatStallsEndsWithATimeoutErrorInsteadOfHanging() {
        upstream.then(Reply.streamThenHang(1));
        List<JsonNode> lines = OpenAiClient.call("stream", base(), member, "gpt-local");
        assertThat(lines).as(lines.toString()).hasSize(2);
        assertThat(lines.getLast().at("/error/code").asText()).isEqualTo("upstream_timeout");
    }

    @Test
    void anUpstreamErrorReachesTheOfficialClientAsAnApiErrorWithItsStatusAndCode() {
        upstream.then(Reply.error(429, "rate_limit_exceeded"));
        JsonNode error = OpenAiClient.call("chat", base(), member, "gpt-local")
                .getFirst()
                .path("error");
        assertThat(error.path("class").asText()).as(error.toString()).isEqualTo("RateLimitError");
        assertThat(error.path("api_error").asBoolean()).isTrue();
        assertThat(error.path("status").asInt()).isEqualTo(429);
        assertThat(error.path("code").asText()).isEqualTo("rate_limit_exceeded");
    }

    @Test
    void anUnknownModelIsNotFoundForTheOfficialClient() {
        JsonNode error = OpenAiClient.call("chat", base(), member, "no-such-model")
                .getFirst()
                .path("error");
        assertThat(error.path("class").asText()).as(error.toString()).isEqualTo("NotFoundError");
        assertThat(error.path("code").asText()).isEqualTo("model_not_found");
    }

    static Stream<Arguments> upstreamFailures() {
        return Stream.of(
                Arguments.of(Reply.error(429, "rate_limit_exceeded"), 429, "rate_limit_exceeded"),
                Arguments.of(Reply.error(500, "server_error"), 500, "server_error"),
                Arguments.of(Reply.error(400, "context_length_exceeded"), 400, "context_length_exceeded"),
                Arguments.of(Reply.hang(), 504, "upstream_timeout"),
                Arguments.of(Reply.reset(), 502, "upstream_unavailable"),
                Arguments.of(Reply.invalidJson(), 502, "upstream_invalid_response"));
    }

    @ParameterizedTest
    @MethodSource("upstreamFailures")
    void eachUpstreamFailureBecomesItsStatusInOpenAisErrorShape(Reply reply, int status, String code) {
        upstream.then(reply);
        HttpReply answer = chat("{\"model\": \"gpt-local\", \"messages\": []}");
        assertThat(answer.status()).as(answer.body()).isEqualTo(status);
        JsonNode error = answer.json().path("error");
        assertThat(error.path("code").asText()).isEqualTo(code);
        assertThat(error.path("message").asText()).isNotBlank();
        assertThat(error.has("type")).isTrue();
        assertThat(error.has("param")).isTrue();
        assertThat(answer.header("x-router-endpoint")).isEqualTo("gpt-local");
    }

    @Test
    void anEndpointNobodyListensOnIsUnavailable() throws IOException {
        int port;
        try (var socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        addCloudModel("gone", "http://127.0.0.1:" + port + "/v1", "m");
        chat("{\"model\": \"gone\", \"messages\": []}").assertError(502, "upstream_unavailable", null);
    }

    @Test
    void anUpstreamAnswerThatIsNotJsonIsInvalid() {
        upstream.then(Reply.invalidJson());
        chat("{\"model\": \"gpt-local\", \"messages\": []}").assertError(502, "upstream_invalid_response", null);
    }

    static Stream<Arguments> badRequests() {
        return Stream.of(
                Arguments.of("{\"model\": \"nope\"}", 404, "model_not_found", "model"),
                Arguments.of("{\"model\": \"minilm-decider\"}", 404, "model_not_found", "model"),
                Arguments.of("{\"messages\": []}", 400, "missing_field", "model"),
                Arguments.of("{\"model\": 7}", 400, "invalid_field", "model"),
                Arguments.of("{\"model\": \"\"}", 400, "invalid_field", "model"),
                Arguments.of("{\"model\": \"gpt-local\", \"stream\": \"yes\"}", 400, "invalid_field", "stream"),
                Arguments.of("{\"model\": \"gpt-local\"", 400, "invalid_json", null),
                Arguments.of("[{\"model\": \"gpt-local\"}]", 400, "invalid_json", null),
                Arguments.of("{\"model\": \"a\", \"model\": \"b\"}", 400, "invalid_json", null),
                Arguments.of("{\"model\": \"gpt-local\"} {}", 400, "invalid_json", null),
                Arguments.of("", 400, "invalid_json", null));
    }

    @ParameterizedTest
    @MethodSource("badRequests")
    void aRequestThatCannotBeRoutedIsRefusedBeforeAnyUpstreamCall(String body, int status, String code, String param) {
        int before = upstream.served();
        chat(body).assertError(status, code, param);
        assertThat(upstream.served()).isEqualTo(before);
    }

    /** The project a request names in X-Project-Id is checked as on every route, though looked up only if needed. */
    static Stream<Arguments> namedProjects() {
        return Stream.of(
                Arguments.of("member", "prj_of_someone_else", 403, "project_forbidden"),
                Arguments.of("admin", "prj_that_does_not_exist", 404, "project_not_found"));
    }

    @ParameterizedTest
    @MethodSource("namedProjects")
    void aProjectTheCallerMayNotUseIsRefusedAtItsHeader(String caller, String project, int status, String code) {
        int before = upstream.served();
        http.post(
                        "/v1/chat/completions",
                        "{\"model\": \"gpt-local\", \"messages\": []}",
                        "Authorization",
                        "Bearer " + (caller.equals("admin") ? admin : member),
                        "X-Project-Id",
                        project)
                .assertError(status, code, "X-Project-Id");
        assertThat(upstream.served()).isEqualTo(before);
    }

    @Test
    void everyWrongFieldIsListed() {
        JsonNode error = chat("{\"stream\": \"yes\"}").assertError(400, "missing_field", "model");
        assertThat(error.path("details").findValuesAsText("param")).containsExactly("model", "stream");
    }

    @Test
    void callersNeedAToken() {
        http.post("/v1/chat/completions", "{\"model\": \"gpt-local\"}").assertError(401, "missing_api_key", null);
    }

    @Test
    void endpointHealthAndMetricsShowWhatWasRouted() {
        chat("{\"model\": \"gpt-local\", \"messages\": []}");
        JsonNode health = http.get("/routing/endpoints/health", "Authorization", "Bearer " + admin)
                .json()
                .path("data");
        JsonNode local = null;
        for (JsonNode endpoint : health) {
            if (endpoint.path("endpoint").asText().equals("gpt-local")) {
                local = endpoint;
            }
        }
        assertThat(local).as(health.toString()).isNotNull();
        assertThat(local.path("requests").asLong()).isPositive();
        assertThat(local.path("p50_ms").isNumber()).isTrue();
        assertThat(http.get("/metrics", "Authorization", "Bearer " + admin).body())
                .contains("arbor_routing_requests_seconds_count{endpoint=\"gpt-local\",outcome=\"ok\",via=\"direct\"}")
                .contains("arbor_routing_tokens_total{endpoint=\"gpt-local\",kind=\"prompt\",via=\"direct\"}");
        http.get("/routing/endpoints/health", "Authorization", "Bearer " + member)
                .assertError(403, "admin_required", null);
    }

    private static HttpResponse<InputStream> streamRequest() throws IOException, InterruptedException {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(http.uri("/v1/chat/completions"))
                                .header("Authorization", "Bearer " + member)
                                .POST(HttpRequest.BodyPublishers.ofString(
                                        "{\"model\": \"gpt-local\", \"stream\": true, \"messages\": []}"))
                                .build(),
                        HttpResponse.BodyHandlers.ofInputStream());
    }
}
