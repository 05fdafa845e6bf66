package dev.arbor.inference.spend;

import static dev.arbor.testing.RouterFixture.single;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.OpenAiClient;
import dev.arbor.testing.OpenAiUpstream;
import dev.arbor.testing.OpenAiUpstream.Reply;
import dev.arbor.testing.RouterFixture;
import dev.arbor.testing.TestServer;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What requests cost, as a team sees it: an inference key's requests through the official OpenAI client, priced from
 * the catalog entry its model is priced as or from an admin's own price, stored with each usage row and added up by
 * {@code GET /spend} (JSON or CSV) and {@code /metrics}. The scripted upstream reports 12 prompt and 5 completion
 * tokens for an answer, 7 and 3 for a stream. Run on each database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class SpendContract {
    private static final String ADMIN = "arb_spend_admin";
    private static final AtomicInteger MODELS = new AtomicInteger();

    private OpenAiUpstream upstream;
    private RouterFixture routers;
    private TestServer http;
    private String project;

    protected abstract Map<String, String> database();

    @BeforeAll
    void start() throws IOException {
        upstream = new OpenAiUpstream("tau");
        upstream.always(Reply.ok());
        routers = RouterFixture.start(ADMIN, database());
        http = routers.http();
        project = routers.project("spenders");
    }

    @AfterAll
    void stop() throws IOException {
        routers.close();
    }

    private String base() {
        return "http://127.0.0.1:" + http.port() + "/v1";
    }

    private static String[] admin(String... more) {
        var headers = new java.util.ArrayList<>(List.of("Authorization", "Bearer " + ADMIN));
        headers.addAll(List.of(more));
        return headers.toArray(String[]::new);
    }

    /** A new cloud model on the upstream, and a router of our project before it; the model's id. */
    private String cloudModelBehindRouter(String router) {
        return cloudModelBehindRouter(router, upstream);
    }

    private String cloudModelBehindRouter(String router, OpenAiUpstream on) {
        String model = "tau-" + MODELS.incrementAndGet();
        routers.cloudModel(model, on, "remote-tau", "tau-key");
        routers.router(project, router, single("go", model));
        return model;
    }

    /** A new key of our project: its id and secret. */
    private String[] key() {
        HttpReply created = http.post("/keys", "{\"name\": \"app\", \"project_id\": \"" + project + "\"}", admin());
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return new String[] {
            created.json().path("id").asText(), created.json().path("key").asText()
        };
    }

    private HttpReply price(String endpoint, String body) {
        return http.put("/prices/" + endpoint, body, admin());
    }

    /** The key's one row of spend this month, once its usage is stored. */
    private JsonNode spendOf(String keyId) {
        return await().until(
                        () -> {
                            HttpReply spend = http.get("/spend?group_by=key", admin("X-Project-Id", project));
                            assertThat(spend.status()).as(spend.body()).isEqualTo(200);
                            for (JsonNode row : spend.json().path("data")) {
                                if (row.at("/group/key_id").asText().equals(keyId)) {
                                    return row;
                                }
                            }
                            return null;
                        },
                        row -> row != null);
    }

    @Test
    void aKeysRequestIsPricedFromTheCatalogEntryItsModelIsPricedAs() {
        String model = cloudModelBehindRouter("priced-as");
        assertThat(price(model, "{\"priced_as\": \"openai/gpt-4o-mini\"}").status())
                .isEqualTo(200);
        String[] key = key();

        OpenAiClient.call("chat", base(), key[1], "priced-as");

        JsonNode row = spendOf(key[0]);
        // gpt-4o-mini: 0.15 USD per million prompt tokens, 0.60 per million completion tokens
        BigDecimal expected = new BigDecimal("0.15")
                .multiply(BigDecimal.valueOf(12))
                .add(new BigDecimal("0.60").multiply(BigDecimal.valueOf(5)))
                .movePointLeft(6);
        assertThat(row.path("cost_usd").decimalValue()).isEqualByComparingTo(expected);
        // on the wire in plain digits, exactly (never 4.8E-6)
        assertThat(http.get("/spend?group_by=key", admin("X-Project-Id", project))
                        .body())
                .containsPattern("\"cost_usd\"\\s*:\\s*0\\.0000048[,}]");
        assertThat(row.path("requests").asLong()).isEqualTo(1);
        assertThat(row.path("prompt_tokens").asLong()).isEqualTo(12);
        assertThat(row.path("completion_tokens").asLong()).isEqualTo(5);
    }

    @Test
    void aStreamIsPricedFromItsFinalUsageChunkAtTheAdminsOwnPrice() throws IOException {
        var streaming = new OpenAiUpstream("tau-stream");
        streaming.always(Reply.stream(3, Duration.ZERO));
        String model = cloudModelBehindRouter("own-price", streaming);
        HttpReply set = price(model, "{\"input\": 2.5, \"output\": 10, \"cached_input\": 1.25}");
        assertThat(set.status()).as(set.body()).isEqualTo(200);
        assertThat(set.json().path("input").toString()).isEqualTo("2.5");
        String[] key = key();

        OpenAiClient.call("stream", base(), key[1], "own-price");

        // 7 prompt tokens at 2.5 and 3 completion tokens at 10 USD per million
        assertThat(spendOf(key[0]).path("cost_usd").decimalValue()).isEqualByComparingTo("0.0000475");
    }

    @Test
    void aCloudModelNoPriceCoversIsCountedAsUnpriced() {
        cloudModelBehindRouter("unpriced");
        String[] key = key();

        OpenAiClient.call("chat", base(), key[1], "unpriced");

        JsonNode row = spendOf(key[0]);
        assertThat(row.path("unpriced_requests").asLong()).isEqualTo(1);
        assertThat(row.path("cost_usd").decimalValue()).isZero();
    }

    @Test
    void spendIsExportedAsCsvGroupedByKeyAndDay() {
        String model = cloudModelBehindRouter("csv");
        price(model, "{\"input\": 1, \"output\": 2}");
        String[] key = key();
        OpenAiClient.call("chat", base(), key[1], "csv");
        spendOf(key[0]);

        HttpReply csv = http.get("/spend?group_by=key,day", admin("X-Project-Id", project, "Accept", "text/csv"));

        assertThat(csv.status()).isEqualTo(200);
        assertThat(csv.header("content-type")).startsWith("text/csv");
        List<String> lines = csv.body().lines().toList();
        assertThat(lines.getFirst())
                .isEqualTo("key_id,day,requests,prompt_tokens,completion_tokens,cost_usd,unpriced_requests");
        // 12 prompt tokens at 1 and 5 completion tokens at 2 USD per million
        assertThat(lines).anyMatch(line -> line.startsWith(key[0] + ",") && line.endsWith(",1,12,5,0.000022,0"));
        assertThat(http.get("/spend?group_by=key&format=csv", admin("X-Project-Id", project))
                        .body())
                .startsWith("key_id,requests,");
    }

    @Test
    void metricsCountSpendByProjectModelAndKey() {
        String model = cloudModelBehindRouter("metered");
        price(model, "{\"input\": 1000, \"output\": 1000}");
        String[] key = key();

        OpenAiClient.call("chat", base(), key[1], "metered");

        // 17 tokens at 1000 USD per million
        await().untilAsserted(() -> assertThat(
                        http.get("/metrics", admin()).body().lines())
                .anyMatch(line -> line.startsWith("arbor_spend_usd_total{")
                        && line.contains("key=\"" + key[0] + "\"")
                        && line.contains("model=\"" + model + "\"")
                        && line.contains("project=\"" + project + "\"")
                        && line.endsWith(" 0.017")));
    }

    @Test
    void aMemberSeesTheSpendOfTheirOwnProjectsOnly() {
        String theirs = routers.project("not-theirs");
        String member = routers.member(project);

        HttpReply own = http.get("/spend", "Authorization", "Bearer " + member);
        HttpReply other = http.get("/spend", "Authorization", "Bearer " + member, "X-Project-Id", theirs);

        assertThat(own.status()).isEqualTo(200);
        assertThat(other.status()).isIn(403, 404);
    }

    static Stream<Arguments> badSpendQueries() {
        return Stream.of(
                Arguments.of("group_by=bogus", "group_by"),
                Arguments.of("group_by=day,month", "group_by"),
                Arguments.of("group_by=key,key", "group_by"),
                Arguments.of("from=yesterday", "from"),
                Arguments.of("from=2000&to=1000", "from"),
                Arguments.of("to=-5", "to"),
                Arguments.of("format=xml", "format"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badSpendQueries")
    void aBadSpendQueryIsRefusedNamingItsParameter(String query, String param) {
        http.get("/spend?" + query, admin()).assertError(400, "invalid_parameter", param);
    }

    @Test
    void everyProblemOfASpendQueryIsListed() {
        JsonNode errors = http.get("/spend?group_by=bogus&from=x&format=xml", admin())
                .json()
                .path("error")
                .path("details");
        assertThat(errors.findValuesAsText("param")).containsExactlyInAnyOrder("group_by", "from", "format");
    }

    static Stream<Arguments> badPrices() {
        return Stream.of(
                Arguments.of("{\"input\": -1}", "input"),
                Arguments.of("{\"input\": 0.0000001}", "input"),
                Arguments.of("{\"input\": 20000}", "input"),
                Arguments.of("{\"output\": 1}", "input"),
                Arguments.of("{\"input\": 1, \"priced_as\": \"openai/gpt-4o\"}", "priced_as"),
                Arguments.of("{\"priced_as\": \"openai/no-such-model\"}", "priced_as"),
                Arguments.of("{\"priced_as\": \"gpt-4o\"}", "priced_as"),
                Arguments.of("{\"input\": 1, \"per\": \"token\"}", "per"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badPrices")
    void aBadPriceIsRefusedNamingItsField(String body, String param) {
        String model = "tau-bad-" + MODELS.incrementAndGet();
        routers.cloudModel(model, upstream, "remote-tau", "tau-key");
        price(model, body).assertError(400, "invalid_field", param);
    }

    @Test
    void aPriceForWhatIsNotThereIsModelNotFound() {
        price("no-such-model", "{\"input\": 1}").assertError(404, "model_not_found", "endpoint");
    }

    @Test
    void theCatalogIsListedWithItsDate() {
        JsonNode prices = http.get("/prices", admin()).json();
        assertThat(prices.path("catalog_date").asText()).matches("\\d{4}-\\d{2}-\\d{2}");
        assertThat(prices.path("catalog").findValuesAsText("model")).contains("gpt-4o-mini", "claude-sonnet-4-5");
    }

    @Test
    void onlyAnAdminSetsPrices() {
        String member = routers.member(project);
        http.put("/prices/x", "{\"input\": 1}", "Authorization", "Bearer " + member)
                .assertError(403, "admin_required", null);
    }
}
