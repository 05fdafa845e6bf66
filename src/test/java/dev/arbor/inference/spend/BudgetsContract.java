package dev.arbor.inference.spend;

import static dev.arbor.testing.RouterFixture.single;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.json.Json;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.OpenAiClient;
import dev.arbor.testing.OpenAiUpstream;
import dev.arbor.testing.OpenAiUpstream.Reply;
import dev.arbor.testing.RouterFixture;
import dev.arbor.testing.TestServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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
 * Budgets hold exactly: a request that could pass one is refused before anything is sent upstream (429
 * budget_exceeded naming the budget and when it resets), and 200 concurrent streamed requests against a budget fit
 * for 50 never spend past it. The scripted upstream streams 7 prompt and 3 completion tokens. Run on each database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class BudgetsContract {
    private static final String ADMIN = "arb_budgets_admin";
    private static final AtomicInteger ROUTERS = new AtomicInteger();

    private RouterFixture routers;
    private TestServer http;
    private String project;

    protected abstract java.util.Map<String, String> database();

    @BeforeAll
    void start() {
        var settings = new java.util.HashMap<>(database());
        // 200 streams at once on a busy machine: an upstream's answer may wait longer than the fixture's 2 s
        settings.put("ARBOR_ROUTING_TIMEOUT_SECONDS", "60");
        routers = RouterFixture.start(ADMIN, settings);
        http = routers.http();
        project = routers.project("budgeted");
    }

    @AfterAll
    void stop() throws IOException {
        routers.close();
    }

    private String[] admin(String... more) {
        var headers = new ArrayList<>(List.of("Authorization", "Bearer " + ADMIN, "X-Project-Id", project));
        headers.addAll(List.of(more));
        return headers.toArray(String[]::new);
    }

    /** A router of our project before a new cloud model on {@code upstream}; the router's name. */
    private String router(OpenAiUpstream upstream) {
        String name = "budgeted-" + ROUTERS.incrementAndGet();
        routers.cloudModel(name + "-model", upstream, "remote", "key");
        routers.router(project, name, single("go", name + "-model"));
        return name;
    }

    /** A new key of our project: its id and secret. */
    private String[] key() {
        HttpReply created = http.post("/keys", "{\"name\": \"app\"}", admin());
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return new String[] {
            created.json().path("id").asText(), created.json().path("key").asText()
        };
    }

    private JsonNode budget(String body) {
        HttpReply created = http.post("/budgets", body, admin());
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return created.json();
    }

    private static HttpResponse<String> streamedChat(HttpClient client, String base, String secret, String model) {
        try {
            return client.send(
                    HttpRequest.newBuilder(URI.create(base + "/v1/chat/completions"))
                            .header("Authorization", "Bearer " + secret)
                            .header("content-type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"model\": \"" + model + "\", \"stream\": "
                                    + "true, \"max_tokens\": 3, \"messages\": [{\"role\": \"user\", \"content\": "
                                    + "\"hi\"}]}"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void twoHundredConcurrentStreamsNeverSpendPastABudgetFitForFifty() throws Exception {
        var upstream = new OpenAiUpstream("budget-stream");
        upstream.always(Reply.stream(2, Duration.ofMillis(5)));
        String model = router(upstream);
        String[] key = key();
        // each stream uses 7 + 3 tokens: a budget fit for 50 of them
        JsonNode budget = budget("{\"scope\": \"key\", \"scope_id\": \"" + key[0] + "\", \"tokens\": 500, "
                + "\"period\": \"day\", \"time_zone\": \"+05:45\"}");
        String base = "http://127.0.0.1:" + http.port();

        var answers = new ArrayList<Future<HttpResponse<String>>>();
        try (var client = HttpClient.newHttpClient();
                var callers = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 200; i++) {
                answers.add(callers.submit(() -> streamedChat(client, base, key[1], model)));
            }
            int answered = 0;
            for (Future<HttpResponse<String>> future : answers) {
                HttpResponse<String> answer = future.get();
                if (answer.statusCode() == 200) {
                    answered++;
                    assertThat(answer.body()).contains("[DONE]");
                } else {
                    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(429);
                    JsonNode error = Json.read(answer.body()).path("error");
                    assertThat(error.path("code").asText()).isEqualTo("budget_exceeded");
                    assertThat(error.path("budget_id").asText())
                            .isEqualTo(budget.path("id").asText());
                }
            }
            int served = answered;
            JsonNode after = await().until(
                            () -> http.get("/budgets/" + budget.path("id").asText(), admin())
                                    .json(),
                            state -> state.path("reserved_tokens").asLong() == 0);
            // nothing refused reached the upstream; what was answered is exactly what was spent, within the budget
            assertThat(upstream.served()).isEqualTo(served);
            assertThat(after.path("spent_tokens").asLong())
                    .isEqualTo(10L * served)
                    .isLessThanOrEqualTo(500);
            assertThat(served).isPositive();
        }
    }

    @Test
    void theOfficialClientSeesA429BudgetExceededNamingTheBudgetAndItsReset() throws IOException {
        var upstream = new OpenAiUpstream("budget-small");
        upstream.always(Reply.ok());
        String model = router(upstream);
        String[] key = key();
        JsonNode budget = budget("{\"scope\": \"project\", \"usd\": 0.000001, \"period\": \"month\", "
                + "\"time_zone\": \"Europe/Paris\"}");
        routers.http()
                .put(
                        "/prices/" + model + "-model",
                        "{\"input\": 1000, \"output\": 1000}",
                        "Authorization",
                        "Bearer " + ADMIN);
        try {
            JsonNode error = OpenAiClient.call("chat", "http://127.0.0.1:" + http.port() + "/v1", key[1], model)
                    .getFirst()
                    .path("error");

            assertThat(error.path("status").asInt()).as(error.toString()).isEqualTo(429);
            assertThat(error.path("code").asText()).isEqualTo("budget_exceeded");
            assertThat(error.path("message").asText())
                    .contains(budget.path("id").asText())
                    .contains("resets at");
            assertThat(upstream.served()).isZero();
        } finally {
            http.delete("/budgets/" + budget.path("id").asText(), admin());
        }
    }

    @Test
    void aBudgetShowsItsPeriodAndWhatItSpent() {
        JsonNode budget = budget(
                "{\"scope\": \"project\", \"tokens\": 1000000, \"period\": \"week\", \"time_zone\": \"-03:17:30\"}");
        try {
            assertThat(budget.path("period_start").asLong()).isPositive();
            assertThat(budget.path("resets_at").asLong()
                            - budget.path("period_start").asLong())
                    .isEqualTo(7 * 86_400);
            assertThat(budget.path("time_zone").asText()).isEqualTo("-03:17:30");
            assertThat(http.get("/budgets", admin()).json().path("data").findValuesAsText("id"))
                    .contains(budget.path("id").asText());
        } finally {
            http.delete("/budgets/" + budget.path("id").asText(), admin());
        }
    }

    @Test
    void aKeyShowsWhatItSpentTodayInTotalAndInItsBudgets() throws IOException {
        var upstream = new OpenAiUpstream("key-spend");
        upstream.always(Reply.ok());
        String model = router(upstream);
        String[] key = key();
        JsonNode budget = budget("{\"scope\": \"key\", \"scope_id\": \"" + key[0] + "\", \"tokens\": 1000000, "
                + "\"period\": \"month\"}");
        JsonNode answer = OpenAiClient.call("chat", "http://127.0.0.1:" + http.port() + "/v1", key[1], model)
                .getFirst();
        assertThat(answer.has("answer")).as(answer.toString()).isTrue();

        // the upstream answers 12 prompt and 5 completion tokens; the usage row reaches the database shortly after
        JsonNode spend = await().until(
                        () -> http.get("/keys/" + key[0], admin()).json().path("spend"),
                        shown -> shown.at("/total/requests").asLong() == 1);
        assertThat(spend.at("/today/requests").asLong()).as(spend.toString()).isEqualTo(1);
        assertThat(spend.at("/today/prompt_tokens").asLong()).isEqualTo(12);
        assertThat(spend.at("/total/completion_tokens").asLong()).isEqualTo(5);
        assertThat(spend.path("budgets").findValuesAsText("id"))
                .containsExactly(budget.path("id").asText());
        assertThat(spend.at("/budgets/0/spent_tokens").asLong()).isEqualTo(17);
        assertThat(spend.at("/budgets/0/reserved_tokens").asLong()).isZero();
    }

    static Stream<Arguments> badBudgets() {
        return Stream.of(
                Arguments.of("{\"scope\": \"planet\", \"tokens\": 1, \"period\": \"day\"}", "scope"),
                Arguments.of("{\"scope\": \"project\", \"tokens\": 1, \"period\": \"fortnight\"}", "period"),
                Arguments.of(
                        "{\"scope\": \"project\", \"tokens\": 1, \"period\": \"day\", \"time_zone\": \"Mars/Olympus\"}",
                        "time_zone"),
                Arguments.of(
                        "{\"scope\": \"project\", \"tokens\": 1, \"period\": \"day\", \"time_zone\": \"+25:00\"}",
                        "time_zone"),
                Arguments.of("{\"scope\": \"project\", \"usd\": -1, \"period\": \"day\"}", "usd"),
                Arguments.of("{\"scope\": \"project\", \"usd\": 0, \"period\": \"day\"}", "usd"),
                Arguments.of("{\"scope\": \"project\", \"usd\": 0.0000001, \"period\": \"day\"}", "usd"),
                Arguments.of("{\"scope\": \"project\", \"usd\": 1e12, \"period\": \"day\"}", "usd"),
                Arguments.of("{\"scope\": \"project\", \"tokens\": 0, \"period\": \"day\"}", "tokens"),
                Arguments.of("{\"scope\": \"project\", \"period\": \"day\"}", "usd"),
                Arguments.of("{\"scope\": \"key\", \"tokens\": 1, \"period\": \"day\"}", "scope_id"),
                Arguments.of("{\"scope\": \"project\", \"tokens\": 1, \"period\": \"day\", \"limit\": 5}", "limit"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badBudgets")
    void aBadBudgetIsRefusedNamingItsField(String body, String param) {
        http.post("/budgets", body, admin()).assertError(400, "invalid_field", param);
    }

    @Test
    void everyProblemOfABudgetIsListed() {
        JsonNode details = http.post(
                        "/budgets",
                        "{\"scope\": \"planet\", \"tokens\": 0, \"period\": \"fortnight\", \"time_zone\": \"x\"}",
                        admin())
                .json()
                .path("error")
                .path("details");
        assertThat(details.findValuesAsText("param"))
                .containsExactlyInAnyOrder("scope", "tokens", "period", "time_zone");
    }

    @Test
    void aBudgetOnAKeyOfNoProjectOfOursIsKeyNotFound() {
        http.post(
                        "/budgets",
                        "{\"scope\": \"key\", \"scope_id\": \"key_nope\", \"tokens\": 1, \"period\": \"day\"}",
                        admin())
                .assertError(404, "key_not_found", "scope_id");
    }

    @Test
    void anUnknownBudgetIsBudgetNotFound() {
        http.get("/budgets/bgt_nope", admin()).assertError(404, "budget_not_found", "budget_id");
    }
}
