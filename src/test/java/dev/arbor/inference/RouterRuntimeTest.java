package dev.arbor.inference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.OpenAiClient;
import dev.arbor.testing.OpenAiUpstream;
import dev.arbor.testing.OpenAiUpstream.Reply;
import dev.arbor.testing.TestServer;
import dev.arbor.testing.TwoProjects;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Routers serving inference: {@code model} names an active router, whose steps pick the endpoint (scripted
 * OpenAI-compatible upstreams, one per cloud model) or answer themselves; called with the official OpenAI client and
 * plain HTTP.
 */
class RouterRuntimeTest {
    private static final String ADMIN = "arb_runtime_admin";
    private static final AtomicInteger NAMES = new AtomicInteger();

    private static OpenAiUpstream alpha;
    private static OpenAiUpstream beta;
    private static OpenAiUpstream gamma;
    private static ArborServer server;
    private static TestServer http;
    private static String mine;
    private static String theirs;
    private static String member;

    @BeforeAll
    static void start() throws IOException {
        alpha = new OpenAiUpstream("alpha");
        beta = new OpenAiUpstream("beta");
        gamma = new OpenAiUpstream("gamma");
        server = ArborServer.start(Map.of(
                "ARBOR_ADMIN_TOKEN", ADMIN,
                "ARBOR_OUTBOUND_ALLOW", "127.0.0.1",
                "ARBOR_ROUTING_TIMEOUT_SECONDS", "2"));
        http = server.http();
        var projects = TwoProjects.create(http, ADMIN);
        mine = projects.mine();
        theirs = projects.theirs();
        member = projects.memberSecret();
        for (OpenAiUpstream upstream : List.of(alpha, beta, gamma)) {
            HttpReply added = http.post(
                    "/models",
                    "{\"id\": \"" + upstream.name() + "\", \"model_uri\": \"" + upstream.url()
                            + "\", \"model_name\": \""
                            + upstream.name() + "\", \"model_source\": \"cloud\", \"engine\": \"remote\", "
                            + "\"remote_model\": \"remote-" + upstream.name() + "\"}",
                    admin());
            assertThat(added.status()).as(added.body()).isEqualTo(201);
        }
    }

    @AfterAll
    static void stop() throws IOException {
        server.close();
        alpha.close();
        beta.close();
        gamma.close();
    }

    private static String[] admin() {
        return new String[] {"Authorization", "Bearer " + ADMIN};
    }

    private static String base() {
        return "http://127.0.0.1:" + http.port() + "/v1";
    }

    /** An active router in {@code project} with these steps (the first is the entry); its name. */
    private static String router(String project, String steps) {
        String name = "router-" + NAMES.incrementAndGet();
        String first = steps.replaceFirst("(?s).*?\"step_id\":\\s*\"([^\"]+)\".*", "$1");
        HttpReply created = http.post(
                "/routers",
                "{\"project_id\": \"" + project + "\", \"name\": \"" + name + "\", \"dag_config\": {\"entry_step\": \""
                        + first + "\", \"steps\": [" + steps + "]}}",
                admin());
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(created.json().path("status").asText()).isEqualTo("active");
        return name;
    }

    /** The id of the router named {@code name}. */
    private static String routerId(String name) {
        return http.get("/routers?q=" + name, admin())
                .json()
                .path("data")
                .path(0)
                .path("id")
                .asText();
    }

    private static String router(String steps) {
        return router(mine, steps);
    }

    private static String single(String id, String endpoint) {
        return "{\"step_id\": \"" + id + "\", \"action_type\": \"single_endpoint\", \"params\": {\"endpoint\": \""
                + endpoint + "\"}}";
    }

    private static HttpReply chat(String model, String extra, String... headers) {
        String[] all = Stream.concat(Stream.of("Authorization", "Bearer " + member), Stream.of(headers))
                .toArray(String[]::new);
        return http.post(
                "/v1/chat/completions",
                "{\"model\": \"" + model + "\", \"messages\": [{\"role\": \"user\", \"content\": \"Call 555-0100 now."
                        + "\"}]" + extra + "}",
                all);
    }

    private static JsonNode lastSent(OpenAiUpstream upstream) {
        return upstream.requests().getLast().body();
    }

    @Test
    void theOfficialClientChatsThroughARouterAndSeesItsName() {
        String name = router(single("go", "alpha"));
        JsonNode answer =
                OpenAiClient.call("chat", base(), member, name).getFirst().path("answer");
        assertThat(answer.path("model").asText()).as(answer.toString()).isEqualTo(name);
        assertThat(answer.path("content").asText()).isEqualTo("Hello from alpha.");
        assertThat(lastSent(alpha).path("model").asText()).isEqualTo("remote-alpha");
    }

    @Test
    void theAnswerSaysWhichRouterStepsAndEndpointGaveIt() {
        String name = router("{\"step_id\": \"limits\", \"action_type\": \"request_limits\", \"params\": "
                + "{\"max_tokens\": 100}, \"next_steps\": [\"go\"]}, " + single("go", "beta"));
        HttpReply reply = chat(name, "");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        String id = routerId(name);
        assertThat(reply.header("x-router-id")).isEqualTo(id);
        assertThat(reply.header("x-router-steps")).isEqualTo("limits,go");
        assertThat(reply.header("x-router-endpoint")).isEqualTo("beta");
        assertThat(reply.header("x-router-attempts")).isEqualTo("1");
    }

    @Test
    void aRouterIsNamedByItsIdToo() {
        String name = router(single("go", "alpha"));
        String id = routerId(name);
        HttpReply reply = chat(id, "");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.json().path("model").asText()).isEqualTo(id);
    }

    @Test
    void streamingPassesThroughARouterChunkByChunk() {
        String name = router(single("go", "gamma"));
        gamma.then(Reply.stream(3, java.time.Duration.ZERO));
        List<JsonNode> lines = OpenAiClient.call("stream", base(), member, name);
        assertThat(lines.getLast().path("done").asBoolean())
                .as(lines.toString())
                .isTrue();
        assertThat(lines.stream()
                        .filter(l -> l.has("chunk"))
                        .map(l -> l.at("/chunk/model").asText()))
                .isNotEmpty()
                .allMatch(name::equals);
    }

    @Test
    void weightedRoutingSharesRequestsByWeight() {
        String name = router(
                "{\"step_id\": \"split\", \"action_type\": \"weighted_routing\", \"params\": "
                        + "{\"weights\": [{\"endpoint\": \"alpha\", \"weight\": 3}, {\"endpoint\": \"beta\", \"weight\": 1}]}}");
        int requests = 400;
        int toAlpha = 0;
        for (int i = 0; i < requests; i++) {
            HttpReply reply = chat(name, "");
            assertThat(reply.status()).as(reply.body()).isEqualTo(200);
            toAlpha += reply.header("x-router-endpoint").equals("alpha") ? 1 : 0;
        }
        // 3:1 is a share of 0.75; with 400 draws its standard deviation is about 0.022, so this is over 4.5 of them
        assertThat(toAlpha / (double) requests).isBetween(0.65, 0.85);
    }

    @Test
    void orderedFallbackTriesTheNextEndpointOnARateLimitAndAServerError() {
        String name = router(fallback("[\"rate_limited\", \"server_error\"]"));
        alpha.then(Reply.error(429, "rate_limit_exceeded"));
        beta.then(Reply.error(500, "server_error"));
        HttpReply reply = chat(name, "");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.header("x-router-endpoint")).isEqualTo("gamma");
        assertThat(reply.header("x-router-attempts")).isEqualTo("3");
        assertThat(reply.json().path("system_fingerprint").asText()).isEqualTo("gamma");
    }

    @Test
    void orderedFallbackAnswersWithAFailureItsRetryOnLeavesOut() {
        String name = router(fallback("[\"rate_limited\"]"));
        alpha.then(Reply.error(500, "server_error"));
        HttpReply reply = chat(name, "");
        assertThat(reply.status()).as(reply.body()).isEqualTo(500);
        assertThat(reply.header("x-router-endpoint")).isEqualTo("alpha");
        assertThat(reply.header("x-router-attempts")).isEqualTo("1");
    }

    private static String fallback(String retryOn) {
        return "{\"step_id\": \"chain\", \"action_type\": \"ordered_fallback\", \"params\": {\"endpoints\": ["
                + "{\"endpoint\": \"alpha\"}, {\"endpoint\": \"beta\"}, {\"endpoint\": \"gamma\"}], \"retry_on\": "
                + retryOn + "}}";
    }

    static Stream<Arguments> branchCases() {
        return Stream.of(
                Arguments.of("a header", "", new String[] {"X-Tier", "gold"}, "alpha"),
                Arguments.of("metadata", ", \"metadata\": {\"plan\": \"pro\"}", new String[0], "beta"),
                Arguments.of("the default", "", new String[0], "gamma"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("branchCases")
    void decisionBranchesGoWhereTheFirstConditionThatHoldsLeads(
            String what, String extra, String[] headers, String endpoint) {
        String name =
                router("{\"step_id\": \"pick\", \"action_type\": \"decision_branches\", \"params\": {\"branches\": ["
                        + "{\"name\": \"gold\", \"condition\": \"request.headers['x-tier'] == 'gold'\", \"next_step\": \"a\"},"
                        + "{\"name\": \"pro\", \"condition\": \"request.metadata.plan == 'pro'\", \"next_step\": \"b\"},"
                        + "{\"name\": \"rest\", \"next_step\": \"c\"}]}}, "
                        + single("a", "alpha") + ", " + single("b", "beta") + ", " + single("c", "gamma"));
        HttpReply reply = chat(name, extra, headers);
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.header("x-router-endpoint")).isEqualTo(endpoint);
    }

    static Stream<Arguments> stepErrors() {
        String phone = "{\"match\": \"regex\", \"pattern\": \"\\\\d{3}-\\\\d{4}\", \"action\": \"block\", \"on\": "
                + "\"input\"}";
        return Stream.of(
                Arguments.of(
                        "a content rule blocks",
                        rules(phone) + ", " + single("go", "alpha"),
                        "",
                        400,
                        "content_blocked",
                        null,
                        "guard"),
                Arguments.of(
                        "a blocked param is sent",
                        limits() + ", " + single("go", "gamma"),
                        ", \"logit_bias\": {\"50256\": -100}",
                        400,
                        "param_blocked",
                        "logit_bias",
                        "limits"),
                Arguments.of(
                        "a condition that is not true or false",
                        "{\"step_id\": \"pick\", \"action_type\": \"decision_branches\", \"params\": {\"branches\": ["
                                + "{\"name\": \"odd\", \"condition\": \"request.model\", \"next_step\": \"a\"},"
                                + "{\"name\": \"rest\", \"next_step\": \"a\"}]}}, " + single("a", "alpha"),
                        "",
                        400,
                        "router_step_failed",
                        null,
                        "pick"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("stepErrors")
    void aStepThatRefusesTheRequestAnswersInOpenAisErrorShapeNamingTheStep(
            String what, String steps, String extra, int status, String code, String param, String step) {
        String name = router(steps);
        int before = alpha.served() + beta.served() + gamma.served();
        HttpReply reply = chat(name, extra);
        JsonNode error = reply.assertError(status, code, param);
        assertThat(error.path("step").asText()).isEqualTo(step);
        assertThat(reply.header("x-router-id")).isNotBlank();
        assertThat(alpha.served() + beta.served() + gamma.served()).isEqualTo(before);
    }

    static Stream<Arguments> oddBodies() {
        return Stream.of(
                Arguments.of("messages not a list", ", \"messages\": \"hello\""),
                Arguments.of("messages of other things", ", \"messages\": [1, null, \"x\", {\"content\": 5}]"),
                Arguments.of(
                        "content in parts",
                        ", \"messages\": [{\"role\": \"user\", \"content\": [{\"type\": \"text\", \"text\": "
                                + "\"555-0100\"}, {\"type\": \"image_url\"}]}]"),
                Arguments.of("metadata not an object", ", \"messages\": [], \"metadata\": [1, 2]"),
                Arguments.of("max_tokens as text", ", \"messages\": [], \"max_tokens\": \"many\""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("oddBodies")
    void oddlyShapedBodiesGoThroughEveryStepToTheEndpoint(String what, String fields) {
        String name = router(
                rules("{\"match\": \"regex\", \"pattern\": \"\\\\d{3}\", \"action\": \"redact\", \"on\": \"both\"}")
                                .replace("[\"go\"]", "[\"prompt\"]")
                        + ", {\"step_id\": \"prompt\", \"action_type\": \"system_prompt\", \"params\": {\"prompt\": "
                        + "\"Tokens: {{ request.tokens }}\", \"mode\": \"replace\"}, \"next_steps\": [\"pick\"]}, "
                        + "{\"step_id\": \"pick\", \"action_type\": \"decision_branches\", \"params\": {\"branches\": ["
                        + "{\"name\": \"meta\", \"condition\": \"request.metadata.plan == 'pro'\", \"next_step\": "
                        + "\"limits\"}, {\"name\": \"rest\", \"next_step\": \"limits\"}]}}, "
                        + limits() + ", " + single("go", "alpha"));
        HttpReply reply = http.post(
                "/v1/chat/completions",
                "{\"model\": \"" + name + "\"" + fields + "}",
                "Authorization",
                "Bearer " + member);
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.header("x-router-steps")).isEqualTo("guard,prompt,pick,limits,go");
    }

    @Test
    void aContentRuleBlocksWithItsBlockMessage() {
        String name = router(
                rules("{\"match\": \"keyword\", \"pattern\": \"555\", \"action\": \"block\", " + "\"on\": \"both\"}")
                        + ", " + single("go", "alpha"));
        assertThat(chat(name, "").json().at("/error/message").asText()).isEqualTo("No phone numbers.");
    }

    @Test
    void aContentRuleRedactsWhatItMatchesBeforeTheEndpointSeesIt() {
        String name = router(rules(
                        "{\"match\": \"regex\", \"pattern\": \"\\\\d{3}-\\\\d{4}\", \"action\": \"redact\", \"on\": \"input\"}")
                + ", " + single("go", "alpha"));
        HttpReply reply = chat(name, "");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(lastSent(alpha).at("/messages/0/content").asText()).isEqualTo("Call [REDACTED] now.");
    }

    @Test
    void aContentRuleOnOutputRedactsTheAnswer() {
        String name = router(rules("{\"match\": \"keyword\", \"pattern\": \"hello\", \"action\": \"redact\", "
                        + "\"on\": \"output\"}")
                + ", " + single("go", "beta"));
        HttpReply reply = chat(name, "");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.json().at("/choices/0/message/content").asText()).isEqualTo("[REDACTED] from beta.");
        assertThat(reply.json().path("model").asText()).isEqualTo(name);
        assertThat(lastSent(beta).at("/messages/0/content").asText()).isEqualTo("Call 555-0100 now.");
    }

    @Test
    void aContentRuleTagsARequestForLaterBranches() {
        String name = router(rules(
                        "{\"match\": \"keyword\", \"pattern\": \"CALL\", \"action\": \"tag\", \"tag\": \"phone\", \"on\": \"input\"}")
                + ", {\"step_id\": \"pick\", \"action_type\": \"decision_branches\", \"params\": {\"branches\": ["
                + "{\"name\": \"phone\", \"condition\": \"'phone' in request.tags\", \"next_step\": \"b\"},"
                + "{\"name\": \"rest\", \"next_step\": \"a\"}]}}, " + single("a", "alpha") + ", "
                + single("b", "beta"));
        HttpReply reply = chat(name, "");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.header("x-router-endpoint")).isEqualTo("beta");
        assertThat(reply.header("x-router-steps")).isEqualTo("guard,pick,b");
    }

    @Test
    void aContentRuleWithABackreferenceIsRefusedAtSave() {
        String steps = rules("{\"match\": \"regex\", \"pattern\": \"^(\\\\w+)+\\\\1$\", \"action\": \"block\","
                        + " \"on\": \"input\"}")
                + ", " + single("go", "alpha");
        JsonNode error = http.post(
                        "/routers",
                        "{\"project_id\": \"" + mine + "\", \"name\": \"backreference\", \"dag_config\": "
                                + "{\"entry_step\": \"guard\", \"steps\": [" + steps + "]}}",
                        admin())
                .assertError(400, "invalid_field", "dag_config.steps[0].params.rules[0].pattern");
        assertThat(error.path("message").asText()).contains("RE2", "without backreferences or lookaround");
        assertThat(http.get("/routers?q=backreference", admin()).json().path("data"))
                .isEmpty();
    }

    @Test
    void aPatternThatMakesBacktrackingExplodeAnswersThroughTheRouter() {
        String name = router(
                rules("{\"match\": \"regex\", \"pattern\": \"^(a+)+$\", \"action\": \"block\", \"on\": \"input\"}")
                        + ", " + single("go", "alpha"));
        String text = "a".repeat(10_000) + "!";
        HttpReply reply = http.post(
                "/v1/chat/completions",
                "{\"model\": \"" + name + "\", \"messages\": [{\"role\": \"user\", \"content\": \"" + text + "\"}]}",
                "Authorization",
                "Bearer " + member);
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(lastSent(alpha).at("/messages/0/content").asText()).isEqualTo(text);
    }

    private static String rules(String rule) {
        String next = rule.contains("\"tag\"") ? "pick" : "go";
        return "{\"step_id\": \"guard\", \"action_type\": \"content_rules\", \"params\": {\"rules\": [" + rule
                + "], \"block_message\": \"No phone numbers.\"}, \"next_steps\": [\"" + next + "\"]}";
    }

    @Test
    void theEndpointSeesTheSystemPromptRenderedFromTheRequest() {
        String name = router("{\"step_id\": \"prompt\", \"action_type\": \"system_prompt\", \"params\": {\"prompt\": "
                + "\"You help team {{ request.headers['x-team'] }}.\", \"mode\": \"prepend\"}, \"next_steps\": "
                + "[\"go\"]}, " + single("go", "beta"));
        HttpReply reply = chat(name, "", "X-Team", "billing");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        JsonNode messages = lastSent(beta).path("messages");
        assertThat(messages.path(0).path("role").asText()).isEqualTo("system");
        assertThat(messages.path(0).path("content").asText()).isEqualTo("You help team billing.");
        assertThat(messages.path(1).path("content").asText()).isEqualTo("Call 555-0100 now.");
    }

    @Test
    void requestLimitsCapClampAndFillTheRequest() {
        String name = router(limits() + ", " + single("go", "gamma"));
        HttpReply reply = chat(name, ", \"max_tokens\": 5000, \"temperature\": 1.9");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        JsonNode sent = lastSent(gamma);
        assertThat(sent.path("max_tokens").asInt()).isEqualTo(256);
        assertThat(sent.path("temperature").asDouble()).isEqualTo(1.0);
        assertThat(sent.path("top_p").asDouble()).isEqualTo(0.9);
        assertThat(sent.path("model").asText()).isEqualTo("remote-gamma");
    }

    private static String limits() {
        return "{\"step_id\": \"limits\", \"action_type\": \"request_limits\", \"params\": {\"max_tokens\": 256, "
                + "\"blocked_params\": [\"logit_bias\"], \"temperature\": {\"min\": 0, \"max\": 1}, "
                + "\"default_params\": {\"top_p\": 0.9}}, \"next_steps\": [\"go\"]}";
    }

    @Test
    void aCannedResponseAnswersTheOfficialClientWithoutAnEndpoint() {
        String name = router(canned());
        int before = alpha.served() + beta.served() + gamma.served();
        JsonNode answer =
                OpenAiClient.call("chat", base(), member, name).getFirst().path("answer");
        assertThat(answer.path("model").asText()).as(answer.toString()).isEqualTo(name);
        assertThat(answer.path("content").asText()).isEqualTo("We are closed (" + name + ").");
        assertThat(alpha.served() + beta.served() + gamma.served()).isEqualTo(before);
    }

    @Test
    void aCannedResponseStreamsOneChunkThenDone() {
        String name = router(canned());
        List<JsonNode> lines = OpenAiClient.call("stream", base(), member, name);
        assertThat(lines).as(lines.toString()).hasSize(2);
        assertThat(lines.getFirst().at("/chunk/content").asText()).isEqualTo("We are closed (" + name + ").");
        assertThat(lines.getFirst().at("/chunk/model").asText()).isEqualTo(name);
        assertThat(lines.getLast().path("done").asBoolean()).isTrue();
    }

    @Test
    void aCannedResponseCannotAnswerAnEmbeddingsRequest() {
        String name = router(canned());
        http.post(
                        "/v1/embeddings",
                        "{\"model\": \"" + name + "\", \"input\": \"hello\"}",
                        "Authorization",
                        "Bearer " + member)
                .assertError(400, "model_capability_unsupported", "model");
    }

    private static String canned() {
        return "{\"step_id\": \"closed\", \"action_type\": \"canned_response\", \"params\": {\"message\": "
                + "\"We are closed ({{ request.model }}).\"}}";
    }

    @Test
    void aRateLimitAnswers429WithItsHeadersOnceTheWindowIsFull() {
        String name = router("{\"step_id\": \"limit\", \"action_type\": \"rate_limit\", \"params\": {\"requests\": 2, "
                + "\"window\": \"hour\", \"per\": \"header\", \"header\": \"X-User\"}, \"next_steps\": [\"go\"]}, "
                + single("go", "alpha"));
        assertThat(chat(name, "", "X-User", "ann").header("x-ratelimit-remaining"))
                .isEqualTo("1");
        assertThat(chat(name, "", "X-User", "ann").status()).isEqualTo(200);
        HttpReply refused = chat(name, "", "X-User", "ann");
        JsonNode error = refused.assertError(429, "rate_limited", null);
        assertThat(error.path("step").asText()).isEqualTo("limit");
        assertThat(Long.parseLong(refused.header("retry-after"))).isBetween(1L, 3600L);
        assertThat(refused.header("x-ratelimit-limit")).isEqualTo("2");
        assertThat(refused.header("x-ratelimit-remaining")).isEqualTo("0");
        assertThat(refused.header("x-router-steps")).isEqualTo("limit");
        assertThat(chat(name, "", "X-User", "bob").status()).isEqualTo(200);
    }

    @Test
    void theOfficialClientGetsModelNotFoundForAnotherProjectsRouter() {
        String name = router(theirs, single("go", "alpha"));
        JsonNode error =
                OpenAiClient.call("chat", base(), member, name).getFirst().path("error");
        assertThat(error.path("status").asInt()).as(error.toString()).isEqualTo(404);
        assertThat(error.path("code").asText()).isEqualTo("model_not_found");
    }

    @Test
    void anInactiveRouterIsNotFound() {
        String name = router(single("go", "alpha"));
        String id = routerId(name);
        assertThat(http.patch("/routers/" + id, "{\"status\": \"inactive\"}", admin())
                        .status())
                .isEqualTo(200);
        chat(name, "").assertError(404, "model_not_found", "model");
    }

    @Test
    void aNameActiveInTwoProjectsNeedsTheProjectOrTheIdFromAnAdmin() {
        String name = router(single("go", "alpha"));
        String twin = http.post(
                        "/routers",
                        "{\"project_id\": \"" + theirs + "\", \"name\": \"" + name + "\", \"dag_config\": {"
                                + "\"entry_step\": \"go\", \"steps\": [" + single("go", "beta") + "]}}",
                        admin())
                .json()
                .path("id")
                .asText();
        String body = "{\"model\": \"" + name + "\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}";
        JsonNode error = http.post("/v1/chat/completions", body, admin()).assertError(404, "model_not_found", "model");
        assertThat(error.path("message").asText()).contains("X-Project-Id");
        HttpReply narrowed =
                http.post("/v1/chat/completions", body, "Authorization", "Bearer " + ADMIN, "X-Project-Id", theirs);
        assertThat(narrowed.status()).as(narrowed.body()).isEqualTo(200);
        assertThat(narrowed.header("x-router-id")).isEqualTo(twin);
    }

    @Test
    void aSaveSwapsTheGraphTheNextRequestWalks() {
        String name = router(single("go", "alpha"));
        assertThat(chat(name, "").header("x-router-endpoint")).isEqualTo("alpha");
        String id = routerId(name);
        HttpReply saved = http.put(
                "/routers/" + id,
                "{\"dag_config\": {\"entry_step\": \"go\", \"steps\": [" + single("go", "beta") + "]}}",
                admin());
        assertThat(saved.status()).as(saved.body()).isEqualTo(200);
        assertThat(chat(name, "").header("x-router-endpoint")).isEqualTo("beta");
    }

    @Test
    void aDecideStepWhoseTemplateCannotRunFailsNamingTheStep() {
        String name = routerDeciding(
                "route-vars",
                "{\"id\": \"route-vars\", \"state\": \"{{ ticket }}\", \"variables\": {\"ticket\": {\"type\": "
                        + "\"string\", \"required\": true}}, \"questions\": {\"kind\": {\"type\": \"noul\"}}}");
        JsonNode error = chat(name, "").json().path("error");
        assertThat(error.path("step").asText()).as(error.toString()).isEqualTo("ask");
        assertThat(error.path("message").asText()).contains("route-vars");
    }

    @Test
    void decideBranchesOnTheStudiosAnswerAndKeepsTheDecisionInHistory() {
        HttpReply reply = chatDeciding(
                "route-certain",
                "{\"id\": \"route-certain\", \"questions\": {\"kind\": {\"type\": \"choice\", \"criteria\": "
                        + "[\"billing\"]}}}",
                "ask,billing",
                "beta");
        JsonNode decision = http.get("/v1/studio/decisions/" + reply.header("x-router-decision-id"), admin())
                .json();
        assertThat(decision.at("/template/id").asText()).as(decision.toString()).isEqualTo("route-certain");
        assertThat(decision.at("/answers/kind/decision").asText()).isEqualTo("billing");
    }

    @Test
    void decideNamesNoDecisionWhenItsTemplateKeepsNothingInHistory() {
        HttpReply reply = chatDeciding(
                "route-unkept",
                "{\"id\": \"route-unkept\", \"storage\": \"none\", \"questions\": {\"kind\": {\"type\": "
                        + "\"choice\", \"criteria\": [\"billing\"]}}}",
                "ask,billing",
                "beta");
        assertThat(reply.header("x-router-decision-id")).isNull();
    }

    @Test
    void decideGoesToItsFallbackStepWhenTheStudioWouldNotAct() {
        chatDeciding(
                "route-unsure",
                "{\"id\": \"route-unsure\", \"settings\": {\"act_threshold\": 1.0}, \"questions\": {\"kind\": "
                        + "{\"type\": \"choice\", \"criteria\": [\"billing\", \"tech\"]}}}",
                "ask,unsure",
                "gamma");
    }

    /** A router whose first step asks the studio template {@code id}, created from {@code templateJson}. */
    private String routerDeciding(String id, String templateJson) {
        HttpReply template = http.post("/v1/studio/templates", templateJson, admin());
        assertThat(template.status()).as(template.body()).isEqualTo(201);
        return router(decide(id));
    }

    /** Chats through a router deciding by template {@code id}: the reply, having walked {@code steps} to {@code endpoint}. */
    private HttpReply chatDeciding(String id, String templateJson, String steps, String endpoint) {
        HttpReply reply = chat(routerDeciding(id, templateJson), "");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.header("x-router-steps")).isEqualTo(steps);
        assertThat(reply.header("x-router-endpoint")).isEqualTo(endpoint);
        return reply;
    }

    private static String decide(String template) {
        return "{\"step_id\": \"ask\", \"action_type\": \"decide\", \"params\": {\"template\": \"" + template
                + "\", \"input\": \"{{ request.text }}\", \"fallback_step\": \"unsure\", \"branches\": ["
                + "{\"name\": \"billing\", \"condition\": \"decide.answer == 'billing' and decide.probability > 0.5\", "
                + "\"next_step\": \"billing\"}, {\"name\": \"other\", \"next_step\": \"other\"}]}}, "
                + single("billing", "beta") + ", " + single("other", "alpha") + ", " + single("unsure", "gamma");
    }

    @Test
    void healthAndStatsCoverTheRoutersEndpointsAndRequests() {
        String name = router(single("go", "beta"));
        String id = routerId(name);
        assertThat(chat(name, "").status()).isEqualTo(200);
        String[] asMember = {"Authorization", "Bearer " + member};
        JsonNode health = http.get("/routers/" + id + "/health", asMember).json();
        assertThat(health.path("data").findValuesAsText("endpoint")).containsExactly("beta");
        await().untilAsserted(() -> {
            JsonNode stats =
                    http.get("/routers/" + id + "/stats?since=0", asMember).json();
            assertThat(stats.path("router_id").asText()).isEqualTo(id);
            assertThat(stats.path("requests").asLong()).isEqualTo(1);
        });
        http.get("/routers/" + id + "/stats?since=soon", asMember).assertError(400, "invalid_parameter", "since");
    }
}
