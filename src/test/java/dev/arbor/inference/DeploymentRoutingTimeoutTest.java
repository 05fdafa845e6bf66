package dev.arbor.inference;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.ArborServer;
import dev.arbor.platform.json.Json;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.StatusWaits;
import dev.arbor.testing.TestServer;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The routing timeout holds for a deployment's replicas on this machine as for an endpoint: embeddings that take longer
 * than it end with 504 {@code upstream_timeout}, the cloud path's answer, instead of keeping the caller waiting until
 * the model is done. The bundled embedding model gets a batch it needs far longer than the one second allowed for.
 */
class DeploymentRoutingTimeoutTest {
    private static final String ADMIN = "admin-secret-1";

    private static ArborServer server;
    private static TestServer http;

    @BeforeAll
    static void start() {
        server = ArborServer.start(Map.of("ARBOR_ADMIN_TOKEN", ADMIN, "ARBOR_ROUTING_TIMEOUT_SECONDS", "1"));
        http = server.http();
        HttpReply project = http.post("/projects", "{\"name\": \"timeouts\"}", admin());
        assertThat(project.status()).as(project.body()).isEqualTo(201);
        HttpReply deployment = http.post(
                "/deployments",
                "{\"project_id\": \"" + project.json().path("id").asText()
                        + "\", \"name\": \"minilm\", \"model_id\": \"minilm-decider\"}",
                admin());
        assertThat(deployment.status()).as(deployment.body()).isEqualTo(202);
        StatusWaits.until(
                http,
                "/deployments/" + deployment.json().path("id").asText() + "?wait=5",
                "running",
                Duration.ofSeconds(180),
                admin());
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static String[] admin() {
        return new String[] {"Authorization", "Bearer " + ADMIN};
    }

    @Test
    void embeddingsThatTakeLongerThanTheRoutingTimeoutAre504UpstreamTimeout() {
        String text = String.join(" ", Collections.nCopies(40, "a billing question about a refund"));
        var inputs = IntStream.range(0, 2048).mapToObj(i -> i + " " + text).toList();
        long started = System.nanoTime();

        HttpReply reply =
                http.post("/v1/embeddings", Json.writeString(Map.of("model", "minilm", "input", inputs)), admin());

        reply.assertError(504, "upstream_timeout", null);
        // a second for the timeout, the sweep that ends late calls, and a loaded machine; the batch needs minutes
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(20));
    }
}
