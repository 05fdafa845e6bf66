package dev.arbor.inference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.arbor.ArborServer;
import dev.arbor.inference.endpoints.EndpointBoard;
import dev.arbor.inference.endpoints.EndpointHealth;
import dev.arbor.inference.endpoints.Strategy;
import dev.arbor.inference.openai.InferenceRequest;
import dev.arbor.inference.openai.Operation;
import dev.arbor.inference.usage.UsageLog;
import dev.arbor.models.RemoteEndpoint;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.outbound.AllowedDestination;
import dev.arbor.platform.outbound.OutboundClient;
import dev.arbor.platform.outbound.OutboundPolicy;
import dev.arbor.platform.ratelimits.RateLimiters;
import dev.arbor.routers.RouterUsage;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.MovableClock;
import dev.arbor.testing.OpenAiUpstream;
import dev.arbor.testing.OpenAiUpstream.Reply;
import dev.arbor.testing.TestPostgres;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The routing library as the routers' steps will use it: a strategy over scripted endpoints, served by the real server
 * through a route of the test's own, with the test's clock for cooling down.
 */
class RoutingStrategiesTest {
    private static final String CHAT =
            "{\"model\": \"my-router\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}";

    @TempDir
    Path folder;

    /** What the test route routes with: each test's own. */
    private static final AtomicReference<Routing> routing = new AtomicReference<>();

    private static final AtomicReference<Strategy> strategy = new AtomicReference<>();
    private static ArborServer server;

    private final MovableClock clock = new MovableClock();
    private final Map<String, RemoteEndpoint> endpoints = new HashMap<>();
    private OpenAiUpstream a;
    private OpenAiUpstream b;
    private OpenAiUpstream c;
    private OutboundClient outbound;
    private Database database;

    @BeforeAll
    static void startServer() {
        server = ArborServer.start(
                Map.of(),
                routes -> routes.group("test")
                        .post(
                                "/test/routed",
                                "Routed by the test's strategy",
                                ctx -> routing.get()
                                        .forward(
                                                ctx,
                                                InferenceRequest.read(Operation.CHAT_COMPLETIONS, ctx.bodyAsBytes()),
                                                strategy.get(),
                                                project -> true,
                                                Attribution.router("rtr_test", Map.of("x-router-steps", "pick")))));
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @BeforeEach
    void start() throws IOException {
        a = endpoint("a");
        b = endpoint("b");
        c = endpoint("c");
        outbound = new OutboundClient(new OutboundPolicy(List.of(AllowedDestination.parse("127.0.0.1"))));
        database = Database.openSqlite(folder.resolve("routing.db"));
        routing.set(routing(database));
    }

    private Routing routing(Database on) {
        var random = new SplittableRandom(23);
        var started = new Routing(
                (inProject, ref) ->
                        Optional.ofNullable(endpoints.get(ref)).map(EndpointDirectory.Target.CloudModel::new),
                outbound,
                RateLimiters.forDatabase(on, clock),
                on,
                new RoutingSettings(Duration.ofSeconds(1), 2, Duration.ofSeconds(30)),
                new ServerHop(new byte[32], "srv_test", clock),
                clock,
                new SimpleMeterRegistry(),
                () -> random);
        started.start();
        return started;
    }

    private OpenAiUpstream endpoint(String name) throws IOException {
        var upstream = new OpenAiUpstream(name);
        endpoints.put(name, new RemoteEndpoint(name, URI.create(upstream.url()), name + "-remote", Optional.empty()));
        return upstream;
    }

    @AfterEach
    void stop() throws IOException {
        routing.get().close();
        database.close();
        outbound.close();
        a.close();
        b.close();
        c.close();
    }

    private HttpReply call() {
        return server.http().post("/test/routed", CHAT);
    }

    private static Strategy.Fallback fallback(String... names) {
        return new Strategy.Fallback(List.of(names).stream()
                .map(name -> new Strategy.Step(name, Optional.empty()))
                .toList());
    }

    @Test
    void aRoutedAnswerSaysWhichEndpointGaveItAndTheRoutersHeaders() {
        strategy.set(new Strategy.Single("b"));
        HttpReply reply = call();
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.json().path("model").asText()).isEqualTo("my-router");
        assertThat(reply.json().path("system_fingerprint").asText()).isEqualTo("b");
        assertThat(b.requests().getLast().body().path("model").asText()).isEqualTo("b-remote");
        assertThat(reply.header("x-router-endpoint")).isEqualTo("b");
        assertThat(reply.header("x-router-attempts")).isEqualTo("1");
        assertThat(reply.header("x-router-id")).isEqualTo("rtr_test");
        assertThat(reply.header("x-router-steps")).isEqualTo("pick");
    }

    @Test
    void weightedSharesFollowTheRelativeWeights() {
        strategy.set(new Strategy.Weighted(List.of(new Strategy.Weight("a", 1), new Strategy.Weight("b", 3))));
        int calls = 400;
        for (int i = 0; i < calls; i++) {
            assertThat(call().status()).isEqualTo(200);
        }
        // b's share is 0.75 with a standard deviation of 0.022 over 400 calls: 0.65..0.85 is beyond 4.5 of them
        assertThat(b.served() / (double) calls).isBetween(0.65, 0.85);
        assertThat(a.served() + b.served()).isEqualTo(calls);
    }

    @Test
    void fallbackTriesTheNextEndpointOn5xxAnd429InOrder() {
        a.then(Reply.error(500, "server_error"));
        b.then(Reply.error(429, "rate_limit_exceeded"));
        strategy.set(fallback("a", "b", "c"));
        HttpReply reply = call();
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.json().path("system_fingerprint").asText()).isEqualTo("c");
        assertThat(reply.header("x-router-endpoint")).isEqualTo("c");
        assertThat(reply.header("x-router-attempts")).isEqualTo("3");
        assertThat(List.of(a.served(), b.served(), c.served())).containsExactly(1, 1, 1);
    }

    @Test
    void fallbackTriesTheNextEndpointOnATimeoutAndARefusedConnection() throws IOException {
        try (var closed = new ServerSocket(0)) {
            endpoints.put(
                    "closed",
                    new RemoteEndpoint(
                            "closed",
                            URI.create("http://127.0.0.1:" + closed.getLocalPort() + "/v1"),
                            "m",
                            Optional.empty()));
        }
        a.then(Reply.hang());
        strategy.set(new Strategy.Fallback(List.of(
                new Strategy.Step("a", Optional.of(Duration.ofMillis(300))),
                new Strategy.Step("closed", Optional.empty()),
                new Strategy.Step("c", Optional.empty()))));
        HttpReply reply = call();
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.header("x-router-endpoint")).isEqualTo("c");
        assertThat(reply.header("x-router-attempts")).isEqualTo("3");
    }

    @Test
    void whenEveryEndpointFailsTheLastOnesErrorIsTheAnswer() {
        a.then(Reply.error(500, "server_error"));
        b.then(Reply.error(503, "overloaded"));
        strategy.set(fallback("a", "b"));
        HttpReply reply = call();
        assertThat(reply.status()).isEqualTo(503);
        assertThat(reply.json().at("/error/code").asText()).isEqualTo("overloaded");
        assertThat(reply.header("x-router-endpoint")).isEqualTo("b");
        assertThat(reply.header("x-router-attempts")).isEqualTo("2");
    }

    @Test
    void aClientErrorIsTheAnswerWithoutFallingBack() {
        a.then(Reply.error(400, "context_length_exceeded"));
        strategy.set(fallback("a", "b"));
        assertThat(call().status()).isEqualTo(400);
        assertThat(b.served()).isZero();
    }

    @Test
    void aStreamFallsBackBeforeItsFirstByte() throws Exception {
        a.then(Reply.error(500, "server_error"));
        b.then(Reply.stream(2, Duration.ZERO));
        strategy.set(fallback("a", "b"));
        HttpResponse<String> response = stream();
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("x-router-endpoint")).hasValue("b");
        assertThat(response.body()).contains("\"model\":\"my-router\"").endsWith("data: [DONE]\n\n");
    }

    @Test
    void aStreamThatBrokeAfterItsFirstByteEndsWithAnErrorEventAndNoFallback() throws Exception {
        a.then(Reply.streamThenReset(1));
        strategy.set(fallback("a", "b"));
        HttpResponse<String> response = stream();
        assertThat(response.statusCode()).isEqualTo(200);
        String[] events = response.body().split("\n\n");
        assertThat(events).hasSize(2);
        assertThat(events[1]).startsWith("data: {\"error\":").contains("\"code\":\"upstream_unavailable\"");
        assertThat(b.served()).isZero();
    }

    @Test
    void anEndpointThatKeepsFailingCoolsDownAndIsTriedAgainAfterwards() {
        a.always(Reply.error(500, "server_error"));
        strategy.set(fallback("a", "b"));
        call();
        assertThat(health("a").status()).isEqualTo(EndpointHealth.Status.FAILING);
        call();
        EndpointHealth cooling = health("a");
        assertThat(cooling.status()).isEqualTo(EndpointHealth.Status.COOLING);
        assertThat(cooling.consecutiveFailures()).isEqualTo(2);
        assertThat(cooling.coolingUntil()).isPresent();
        assertThat(cooling.lastError())
                .hasValueSatisfying(error -> assertThat(error).contains("500"));

        HttpReply skipped = call();
        assertThat(skipped.header("x-router-endpoint")).isEqualTo("b");
        assertThat(skipped.header("x-router-attempts")).isEqualTo("1");
        assertThat(a.served()).isEqualTo(2);

        a.always(Reply.ok());
        clock.advance(Duration.ofSeconds(31));
        HttpReply recovered = call();
        assertThat(recovered.header("x-router-endpoint")).isEqualTo("a");
        assertThat(health("a").status()).isEqualTo(EndpointHealth.Status.HEALTHY);
    }

    @Test
    void whenEveryEndpointIsCoolingTheyAreTriedAnyway() {
        a.then(Reply.error(500, "e"), Reply.error(500, "e"));
        strategy.set(new Strategy.Single("a"));
        call();
        call();
        assertThat(health("a").status()).isEqualTo(EndpointHealth.Status.COOLING);
        assertThat(call().status()).isEqualTo(200);
    }

    @Test
    void leastBusyAvoidsAnEndpointWithARequestInFlight() throws Exception {
        var release = new CountDownLatch(1);
        a.then(Reply.streamHeldAfterFirst(2, release));
        strategy.set(new Strategy.Single("a"));
        CompletableFuture<HttpResponse<InputStream>> held =
                HttpClient.newHttpClient().sendAsync(streamRequest(), HttpResponse.BodyHandlers.ofInputStream());
        try {
            InputStream body = held.get().body();
            assertThat(body.read()).isEqualTo('d'); // its first event arrived: the stream is open
            strategy.set(new Strategy.LeastBusy(List.of("a", "b")));
            for (int i = 0; i < 3; i++) {
                assertThat(call().header("x-router-endpoint")).isEqualTo("b");
            }
            release.countDown();
            body.readAllBytes();
            await().until(() -> health("a").inFlight() == 0);
            assertThat(call().header("x-router-endpoint")).isEqualTo("a");
        } finally {
            release.countDown();
        }
    }

    @Test
    void latencyAwarePrefersTheFastestEndpointOnceBothAreMeasured() {
        a.always(Reply.okAfter(Duration.ofMillis(60)));
        strategy.set(new Strategy.LatencyAware(List.of("a", "b"), Strategy.Percentile.P50));
        for (int i = 0; i < 2 * EndpointBoard.MIN_SAMPLES; i++) {
            call();
        }
        assertThat(List.of(a.served(), b.served()))
                .containsExactly(EndpointBoard.MIN_SAMPLES, EndpointBoard.MIN_SAMPLES);
        int toB = 0;
        for (int i = 0; i < 40; i++) {
            toB += call().header("x-router-endpoint").equals("b") ? 1 : 0;
        }
        assertThat(toB).isGreaterThanOrEqualTo(34); // 5% explore: 38 expected
        assertThat(health("a").p50Millis().getAsDouble())
                .isGreaterThan(health("b").p50Millis().getAsDouble());
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void usageIsRecordedOffTheRequestPathAndSummarisedByRouter(String dialect) {
        Database on = dialect.equals("sqlite") ? database : Database.openPostgres(TestPostgres.newDatabaseUrl());
        Routing previous = routing.getAndSet(routing(on));
        previous.close();
        try {
            a.then(Reply.ok(), Reply.ok(), Reply.ok(), Reply.error(500, "server_error"));
            strategy.set(new Strategy.Single("a"));
            for (int i = 0; i < 4; i++) {
                call();
            }
            Instant since = Instant.ofEpochMilli(clock.millis()).minusSeconds(60);
            await().until(() -> routing.get().stats("rtr_test", since).requests() == 4);
            RouterUsage stats = routing.get().stats("rtr_test", since);
            assertThat(stats.outcomes()).containsEntry("ok", 3L).containsEntry("upstream_error", 1L);
            assertThat(stats.promptTokens()).isEqualTo(36);
            assertThat(stats.completionTokens()).isEqualTo(15);
            assertThat(stats.endpoints()).singleElement().satisfies(endpoint -> {
                assertThat(endpoint.endpoint()).isEqualTo("a");
                assertThat(endpoint.requests()).isEqualTo(4);
                assertThat(endpoint.succeeded()).isEqualTo(3);
                assertThat(endpoint.averageLatencyMillis()).isPositive();
            });
            assertThat(routing.get().stats("rtr_other", since).requests()).isZero();
        } finally {
            if (on != database) {
                routing.get().close();
                routing.set(routing(database));
                on.close();
            }
        }
    }

    @Test
    void usageOlderThanThirtyDaysIsRemoved() {
        strategy.set(new Strategy.Single("a"));
        Instant since = Instant.ofEpochMilli(clock.millis()).minusSeconds(60);
        call();
        call();
        await().until(() -> routing.get().stats("rtr_test", since).requests() == 2);

        clock.advance(UsageLog.RETENTION.minusHours(1));
        call();
        await().until(() -> routing.get().stats("rtr_test", since).requests() == 3);
        clock.advance(Duration.ofHours(2));
        await().until(() -> routing.get().stats("rtr_test", since).requests() == 1);
    }

    private EndpointHealth health(String endpoint) {
        return routing.get().health(List.of(endpoint)).getFirst();
    }

    private HttpRequest streamRequest() {
        return HttpRequest.newBuilder(server.http().uri("/test/routed"))
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"model\": \"my-router\", \"stream\": true, \"messages\": []}"))
                .build();
    }

    private HttpResponse<String> stream() throws IOException, InterruptedException {
        return HttpClient.newHttpClient()
                .send(streamRequest(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }
}
