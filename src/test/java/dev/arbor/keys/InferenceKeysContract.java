package dev.arbor.keys;

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
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Inference keys as an application uses them, through the official OpenAI client: a key calls what it lists in its
 * project, and is refused as if nothing existed elsewhere; an unknown, revoked or expired key is 401; a key calls no
 * other route; members manage their own projects' keys. Run on each database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class InferenceKeysContract {
    protected static final String ADMIN = "arb_inference_keys_admin";

    private OpenAiUpstream upstream;
    protected RouterFixture routers;
    protected TestServer http;
    private String project;
    private String otherProject;
    private String member;
    private String otherMember;
    private Made helpdesk;
    private Made billing;
    private Made elsewhere;

    /** The settings of the database the server uses. */
    protected abstract Map<String, String> database();

    @BeforeAll
    void start() throws IOException {
        upstream = new OpenAiUpstream("sigma");
        upstream.always(Reply.ok());
        routers = RouterFixture.start(ADMIN, database());
        http = routers.http();
        project = routers.project("apps");
        otherProject = routers.project("others");
        member = routers.member(project);
        otherMember = routers.member(otherProject);
        routers.cloudModel("sigma", upstream, "remote-sigma", "sigma-key");
        helpdesk = routers.router(project, "helpdesk", single("go", "sigma"));
        billing = routers.router(project, "billing", single("go", "sigma"));
        elsewhere = routers.router(otherProject, "theirs", single("go", "sigma"));
    }

    @AfterAll
    void stop() throws IOException {
        routers.close();
    }

    protected String project() {
        return project;
    }

    protected String base() {
        return "http://127.0.0.1:" + http.port() + "/v1";
    }

    private static String[] bearer(String secret) {
        return new String[] {"Authorization", "Bearer " + secret};
    }

    /** A new key's whole answer, made by {@code token} with this body. */
    protected HttpReply create(String token, String body) {
        return http.post("/keys", body, bearer(token));
    }

    /** The secret of a new key of our project with these extra fields ({@code ""} for none). */
    protected String key(String fields) {
        HttpReply created = create(
                ADMIN,
                "{\"name\": \"app\", \"project_id\": \"" + project + "\"" + (fields.isEmpty() ? "" : ", ") + fields
                        + "}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return created.json().path("key").asText();
    }

    private static JsonNode error(List<JsonNode> lines) {
        assertThat(lines)
                .singleElement()
                .satisfies(line ->
                        assertThat(line.has("error")).as(line.toString()).isTrue());
        return lines.getFirst().path("error");
    }

    @Test
    void aKeyCallsItsProjectsRouterWithTheOfficialClient() {
        JsonNode answer = OpenAiClient.call("chat", base(), key(""), "helpdesk").getFirst();
        assertThat(answer.at("/answer/model").asText()).as(answer.toString()).isEqualTo("helpdesk");
        assertThat(answer.at("/answer/content").asText()).isNotEmpty();
    }

    @Test
    void aKeyStreamsFromARouterItLists() {
        List<JsonNode> lines = OpenAiClient.call("stream", base(), key("\"routers\": [\"helpdesk\"]"), "helpdesk");
        assertThat(lines.getLast().path("done").asBoolean())
                .as(lines.toString())
                .isTrue();
    }

    @Test
    void aKeyListingARouterByIdCallsIt() {
        JsonNode answer = OpenAiClient.call("chat", base(), key("\"routers\": [\"" + billing.id() + "\"]"), "billing")
                .getFirst();
        assertThat(answer.at("/answer/model").asText()).as(answer.toString()).isEqualTo("billing");
    }

    static Stream<Arguments> outsideTheScope() {
        return Stream.of(
                Arguments.of("a router of its project it does not list", "\"routers\": [\"helpdesk\"]", "billing"),
                Arguments.of("a cloud model it does not list", "\"routers\": [\"helpdesk\"]", "sigma"),
                Arguments.of("another project's router", "", "theirs"),
                Arguments.of("a name that is nowhere", "", "no-such-model"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("outsideTheScope")
    void outsideItsScopeAKeyGetsModelNotFoundAsForWhatDoesNotExist(String what, String fields, String model) {
        JsonNode error = error(OpenAiClient.call("chat", base(), key(fields), model));
        assertThat(error.path("status").asInt()).as(error.toString()).isEqualTo(404);
        assertThat(error.path("code").asText()).isEqualTo("model_not_found");
        assertThat(error.path("message").asText()).doesNotContain(elsewhere.id());
    }

    @Test
    void aKeyListingACloudModelCallsIt() {
        JsonNode answer = OpenAiClient.call("chat", base(), key("\"models\": [\"sigma\"]"), "sigma")
                .getFirst();
        assertThat(answer.at("/answer/model").asText()).as(answer.toString()).isEqualTo("sigma");
    }

    @Test
    void aKeyNamingAnotherProjectInTheHeaderFindsNothing() {
        HttpReply reply = http.post(
                "/v1/chat/completions",
                "{\"model\": \"sigma\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}",
                "Authorization",
                "Bearer " + key(""),
                "X-Project-Id",
                otherProject);
        assertThat(reply.status()).as(reply.body()).isEqualTo(404);
        assertThat(reply.json().at("/error/code").asText()).isEqualTo("model_not_found");
        assertThat(reply.json().at("/error/param").asText()).isEqualTo("model");
    }

    @Test
    void anUnknownKeyIs401InOpenAisShape() {
        JsonNode error = error(OpenAiClient.call("chat", base(), "sk-arb-" + "x".repeat(43), "helpdesk"));
        assertThat(error.path("class").asText()).isEqualTo("AuthenticationError");
        assertThat(error.path("status").asInt()).isEqualTo(401);
        assertThat(error.path("code").asText()).isEqualTo("invalid_api_key");
    }

    @Test
    void aRevokedKeyIs401FromTheNextRequest() {
        HttpReply created = create(ADMIN, "{\"name\": \"gone\", \"project_id\": \"" + project + "\"}");
        String secret = created.json().path("key").asText();
        assertThat(OpenAiClient.call("chat", base(), secret, "helpdesk")
                        .getFirst()
                        .has("answer"))
                .isTrue();
        HttpReply revoked =
                http.send("DELETE", "/keys/" + created.json().path("id").asText(), null, bearer(ADMIN));
        assertThat(revoked.json().path("status").asText()).as(revoked.body()).isEqualTo("revoked");
        JsonNode error = error(OpenAiClient.call("chat", base(), secret, "helpdesk"));
        assertThat(error.path("status").asInt()).isEqualTo(401);
        assertThat(error.path("code").asText()).isEqualTo("invalid_api_key");
    }

    @Test
    void anExpiredKeyIs401() {
        long soon = System.currentTimeMillis() / 1000 + 2;
        String secret = key("\"expires_at\": " + soon);
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            HttpReply reply = http.post(
                    "/v1/chat/completions",
                    "{\"model\": \"helpdesk\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}",
                    bearer(secret));
            assertThat(reply.status()).as(reply.body()).isEqualTo(401);
            assertThat(reply.json().at("/error/code").asText()).isEqualTo("invalid_api_key");
        });
    }

    @Test
    void aKeyMayNotCallTheRestOfTheApi() {
        HttpReply reply = http.get("/routers", bearer(key("")));
        assertThat(reply.status()).as(reply.body()).isEqualTo(403);
        assertThat(reply.json().at("/error/code").asText()).isEqualTo("inference_key_not_allowed");
    }

    @Test
    void theSecretIsShownOnceAndOnlyItsHintAfter() {
        HttpReply created = create(ADMIN, "{\"name\": \"once\", \"project_id\": \"" + project + "\"}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String secret = created.json().path("key").asText();
        assertThat(secret).startsWith("sk-arb-").hasSize("sk-arb-".length() + 43);
        HttpReply read = http.get("/keys/" + created.json().path("id").asText(), bearer(ADMIN));
        assertThat(read.json().has("key")).as(read.body()).isFalse();
        assertThat(read.body()).doesNotContain(secret);
        assertThat(secret).startsWith(read.json().path("hint").asText());
        assertThat(read.json().path("status").asText()).isEqualTo("active");
    }

    @Test
    void aChangedListTakesEffectOnTheNextRequest() {
        HttpReply created = create(
                ADMIN, "{\"name\": \"narrowed\", \"project_id\": \"" + project + "\", \"routers\": [\"helpdesk\"]}");
        String secret = created.json().path("key").asText();
        HttpReply changed = http.send(
                "PATCH", "/keys/" + created.json().path("id").asText(), "{\"routers\": [\"billing\"]}", bearer(ADMIN));
        assertThat(changed.json().path("routers").toString()).as(changed.body()).isEqualTo("[\"billing\"]");
        assertThat(error(OpenAiClient.call("chat", base(), secret, "helpdesk"))
                        .path("code")
                        .asText())
                .isEqualTo("model_not_found");
    }

    @Test
    void aMemberMakesKeysInItsOwnProject() {
        HttpReply created = http.post(
                "/keys", "{\"name\": \"mine\"}", "Authorization", "Bearer " + member, "X-Project-Id", project);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(created.json().path("project_id").asText()).isEqualTo(project);
    }

    @Test
    void aMemberMakesNoKeyInAnotherProject() {
        HttpReply refused = create(otherMember, "{\"name\": \"theirs\", \"project_id\": \"" + project + "\"}");
        assertThat(refused.status()).as(refused.body()).isEqualTo(403);
        assertThat(refused.json().at("/error/code").asText()).isEqualTo("project_forbidden");
    }

    @Test
    void anotherProjectsKeyIsNotFoundForAMember() {
        String id = create(ADMIN, "{\"name\": \"ours\", \"project_id\": \"" + project + "\"}")
                .json()
                .path("id")
                .asText();
        HttpReply reply = http.get("/keys/" + id, bearer(otherMember));
        assertThat(reply.status()).as(reply.body()).isEqualTo(404);
        assertThat(reply.json().at("/error/code").asText()).isEqualTo("key_not_found");
        assertThat(reply.json().at("/error/param").asText()).isEqualTo("key_id");
    }

    @Test
    void aMembersListShowsOnlyItsProjectsKeys() {
        create(ADMIN, "{\"name\": \"listed\", \"project_id\": \"" + otherProject + "\"}");
        JsonNode list = http.get("/keys", bearer(member)).json();
        assertThat(list.path("data")).isNotEmpty();
        list.path("data")
                .forEach(key -> assertThat(key.path("project_id").asText()).isEqualTo(project));
    }

    static Stream<Arguments> badBodies() {
        return Stream.of(
                Arguments.of("{}", "missing_field", "name"),
                Arguments.of("{\"name\": \"  \"}", "invalid_field", "name"),
                Arguments.of("{\"name\": \"k\", \"routers\": \"helpdesk\"}", "invalid_field", "routers"),
                Arguments.of("{\"name\": \"k\", \"expires_at\": 1}", "invalid_field", "expires_at"),
                Arguments.of("{\"name\": \"k\", \"metadata\": {\"team\": 7}}", "invalid_field", "metadata.team"),
                Arguments.of("{\"name\": \"k\", \"metadata\": [\"team\"]}", "invalid_field", "metadata"),
                Arguments.of("{\"name\": \"k\", \"budget\": {\"usd\": 5}}", "invalid_field", "budget"),
                Arguments.of("{\"name\": \"k\", \"limits\": 60}", "invalid_field", "limits"),
                Arguments.of(
                        "{\"name\": \"k\", \"limits\": {\"requests_per_minute\": 0}}",
                        "invalid_field",
                        "limits.requests_per_minute"),
                Arguments.of(
                        "{\"name\": \"k\", \"limits\": {\"tokens_per_minute\": -5}}",
                        "invalid_field",
                        "limits.tokens_per_minute"),
                Arguments.of(
                        "{\"name\": \"k\", \"limits\": {\"tokens_per_minute\": 10000000000000}}",
                        "invalid_field",
                        "limits.tokens_per_minute"),
                Arguments.of(
                        "{\"name\": \"k\", \"limits\": {\"requests_per_minute\": \"many\"}}",
                        "invalid_field",
                        "limits.requests_per_minute"),
                Arguments.of(
                        "{\"name\": \"k\", \"limits\": {\"requests_per_hour\": 5}}",
                        "invalid_field",
                        "limits.requests_per_hour"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badBodies")
    void aBadKeyIsRefusedWithItsField(String body, String code, String param) {
        HttpReply reply = http.post("/keys", body, "Authorization", "Bearer " + ADMIN, "X-Project-Id", project);
        assertThat(reply.status()).as(reply.body()).isEqualTo(400);
        assertThat(reply.json().at("/error/details").findValuesAsText("param")).contains(param);
        assertThat(reply.json().at("/error/details").findValuesAsText("code")).contains(code);
    }

    @Test
    void badLimitsAreRefusedAllTogether() {
        HttpReply reply = http.post(
                "/keys",
                "{\"name\": \"k\", \"limits\": {\"requests_per_minute\": 0, \"tokens_per_minute\": -1}}",
                "Authorization",
                "Bearer " + ADMIN,
                "X-Project-Id",
                project);
        assertThat(reply.status()).as(reply.body()).isEqualTo(400);
        assertThat(reply.json().at("/error/details").findValuesAsText("param"))
                .contains("limits.requests_per_minute", "limits.tokens_per_minute");
    }

    /** A raw chat completion (the headers are what is looked at), with {@code secret}. */
    private HttpReply chat(String secret, String model) {
        return http.post(
                "/v1/chat/completions",
                "{\"model\": \"" + model + "\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}",
                bearer(secret));
    }

    @Test
    void aKeyShowsItsLimits() {
        HttpReply created = create(
                ADMIN,
                "{\"name\": \"limited\", \"project_id\": \"" + project + "\", \"limits\": "
                        + "{\"requests_per_minute\": 60, \"tokens_per_minute\": 90000}}");
        JsonNode read = http.get("/keys/" + created.json().path("id").asText(), bearer(ADMIN))
                .json();
        assertThat(read.at("/limits/requests_per_minute").asLong())
                .as(read.toString())
                .isEqualTo(60);
        assertThat(read.at("/limits/tokens_per_minute").asLong()).isEqualTo(90_000);
    }

    @Test
    void eachAnswerCarriesOpenAisRequestLimitHeaders() {
        String secret = key("\"limits\": {\"requests_per_minute\": 2}");
        HttpReply first = chat(secret, "helpdesk");
        assertThat(first.status()).as(first.body()).isEqualTo(200);
        assertThat(first.header("x-ratelimit-limit-requests")).isEqualTo("2");
        assertThat(first.header("x-ratelimit-remaining-requests")).isEqualTo("1");
        // one request comes back in 30 s: the bucket is whole again then
        assertThat(first.header("x-ratelimit-reset-requests")).matches("(2\\d|30)(\\.\\d+)?s");
        HttpReply second = chat(secret, "helpdesk");
        assertThat(second.header("x-ratelimit-remaining-requests")).isEqualTo("0");
    }

    @Test
    void pastItsRequestsAMinuteAKeyIs429RateLimitedAndNothingIsSent() {
        String secret = key("\"limits\": {\"requests_per_minute\": 2}");
        assertThat(chat(secret, "helpdesk").status()).isEqualTo(200);
        assertThat(chat(secret, "helpdesk").status()).isEqualTo(200);
        int servedBefore = upstream.served();
        JsonNode error = error(OpenAiClient.call("chat", base(), secret, "helpdesk"));
        assertThat(error.path("status").asInt()).as(error.toString()).isEqualTo(429);
        assertThat(error.path("code").asText()).isEqualTo("rate_limited");
        assertThat(upstream.served()).isEqualTo(servedBefore);
        HttpReply refused = chat(secret, "helpdesk");
        assertThat(refused.status()).isEqualTo(429);
        assertThat(Long.parseLong(refused.header("retry-after"))).isBetween(1L, 30L);
        assertThat(refused.header("x-ratelimit-remaining-requests")).isEqualTo("0");
    }

    @Test
    void aKeyThatUsedItsTokensAMinuteIs429RateLimited() {
        // each answer uses 17 tokens: two fit in 20 a minute (the second ends past it), a third does not
        String secret = key("\"limits\": {\"tokens_per_minute\": 20}");
        HttpReply first = chat(secret, "helpdesk");
        assertThat(first.status()).as(first.body()).isEqualTo(200);
        assertThat(first.header("x-ratelimit-limit-tokens")).isEqualTo("20");
        assertThat(first.header("x-ratelimit-remaining-tokens")).isEqualTo("19");
        assertThat(chat(secret, "helpdesk").status()).isEqualTo(200);
        HttpReply refused = chat(secret, "helpdesk");
        assertThat(refused.status()).as(refused.body()).isEqualTo(429);
        assertThat(refused.json().at("/error/code").asText()).isEqualTo("rate_limited");
        assertThat(refused.header("x-ratelimit-remaining-tokens")).isEqualTo("0");
        assertThat(refused.header("retry-after")).isNotBlank();
    }

    @Test
    void removingAKeysLimitsLiftsThem() {
        HttpReply created = create(
                ADMIN,
                "{\"name\": \"lifted\", \"project_id\": \"" + project + "\", \"limits\": "
                        + "{\"requests_per_minute\": 1}}");
        String secret = created.json().path("key").asText();
        assertThat(chat(secret, "helpdesk").status()).isEqualTo(200);
        assertThat(chat(secret, "helpdesk").status()).isEqualTo(429);
        HttpReply changed =
                http.send("PATCH", "/keys/" + created.json().path("id").asText(), "{\"limits\": null}", bearer(ADMIN));
        assertThat(changed.json().path("limits").path("requests_per_minute").isNull())
                .as(changed.body())
                .isTrue();
        HttpReply after = chat(secret, "helpdesk");
        assertThat(after.status()).as(after.body()).isEqualTo(200);
        assertThat(after.header("x-ratelimit-limit-requests")).isNull();
    }

    @Test
    void aKeyNeedsACurrentProject() {
        HttpReply reply = create(ADMIN, "{\"name\": \"nowhere\"}");
        assertThat(reply.status()).as(reply.body()).isEqualTo(400);
        assertThat(reply.json().at("/error/code").asText()).isEqualTo("missing_field");
    }
}
