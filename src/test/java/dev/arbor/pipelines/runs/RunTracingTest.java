package dev.arbor.pipelines.runs;

import static dev.arbor.testing.OtlpReceiver.named;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.MovableClock;
import dev.arbor.testing.OtlpReceiver;
import dev.arbor.testing.OtlpReceiver.Link;
import dev.arbor.testing.OtlpReceiver.ReceivedSpan;
import dev.arbor.testing.TestServer;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A pipeline run traced to a collector over OTLP/HTTP: the run is a trace of its own, begun by the span of its start
 * (which links to the request that started it), with a span per step attempt under it; the run's API gives its
 * trace id, and a run resumed by the next server on the same data goes on in the same trace.
 */
class RunTracingTest {
    private static final String ADMIN_SECRET = "arb_run_tracing_admin";
    private static final String[] ADMIN = {"Authorization", "Bearer " + ADMIN_SECRET};

    private final MovableClock clock = new MovableClock();
    private OtlpReceiver collector;
    private Map<String, String> env;
    private ArborServer server;

    @BeforeEach
    void start() throws IOException {
        collector = new OtlpReceiver();
        env = new HashMap<>();
        env.put("ARBOR_ADMIN_TOKEN", ADMIN_SECRET);
        env.put("OTEL_EXPORTER_OTLP_ENDPOINT", collector.url());
        env.put("OTEL_BSP_SCHEDULE_DELAY", "50");
        server = ArborServer.start(env, clock);
        env.put("ARBOR_DATA", server.dataDir().toString());
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        collector.close();
    }

    private TestServer http() {
        return server.http();
    }

    @Test
    void aRunIsATraceOfItsOwnWithASpanPerStepAttemptLinkedToTheRequestThatStartedIt() {
        String pipeline = pipeline("""
                {"name": "traced", "steps": [
                  {"id": "first", "action": "set_output", "params": {"key": "n", "value": 7}},
                  {"id": "second", "action": "log", "depends_on": ["first"], "params": {"message": "secret-ish words"}}]}""");
        HttpReply started = http().post("/pipelines/" + pipeline + "/runs", "{}", ADMIN);
        assertThat(started.status()).as(started.body()).isEqualTo(202);
        String runId = started.json().path("id").asText();
        JsonNode run = completed(runId);

        String traceId = run.path("trace_id").asText();
        assertThat(traceId).matches("[0-9a-f]{32}");
        ReceivedSpan request = collector.awaitSpan(
                span -> span.attribute("arbor.request_id").equals(Optional.of(started.header("x-request-id"))));
        assertThat(request.traceId()).as("the run is a trace of its own").isNotEqualTo(traceId);

        List<ReceivedSpan> trace = collector.awaitTrace(traceId, 3);
        ReceivedSpan root = named(trace, "pipeline run " + pipeline);
        assertThat(root.parentSpanId()).isEmpty();
        assertThat(root.attributes()).containsEntry("arbor.run.id", runId).containsEntry("arbor.pipeline.id", pipeline);
        assertThat(root.links()).containsExactly(new Link(request.traceId(), request.spanId()));
        for (String step : List.of("first", "second")) {
            ReceivedSpan attempt = named(trace, "pipeline step " + step);
            assertThat(attempt.parentSpanId()).isEqualTo(root.spanId());
            assertThat(attempt.attributes())
                    .containsEntry("arbor.run.id", runId)
                    .containsEntry("arbor.pipeline.step", step)
                    .containsEntry("arbor.pipeline.attempt", "1")
                    .containsEntry("arbor.pipeline.outcome", "done");
            assertThat(String.join(" ", attempt.attributes().values())).doesNotContain("secret-ish");
        }
    }

    @Test
    void aFailedAttemptIsAnErrorSpanWithTheStepsErrorCode() {
        String pipeline = pipeline("""
                {"name": "fails", "steps": [
                  {"id": "boom", "action": "fail", "params": {"message": "stopped on purpose", "error_code": "on_purpose"}}]}""");
        String runId = http().post("/pipelines/" + pipeline + "/runs", "{}", ADMIN)
                .json()
                .path("id")
                .asText();
        await().atMost(Duration.ofSeconds(30)).until(() -> status(runId).equals("failed"));

        String traceId =
                http().get("/runs/" + runId, ADMIN).json().path("trace_id").asText();
        ReceivedSpan attempt = named(collector.awaitTrace(traceId, 2), "pipeline step boom");
        assertThat(attempt.statusCode()).isEqualTo("STATUS_CODE_ERROR");
        assertThat(attempt.attributes()).containsEntry("arbor.pipeline.outcome", "failed");
        assertThat(attempt.attributes()).containsKey("error.type");
    }

    @Test
    void aRunResumedByTheNextServerOnTheSameDataGoesOnInTheSameTrace() {
        String pipeline = pipeline("""
                {"name": "waits", "parameters": [{"name": "at", "type": "integer", "required": true}],
                 "steps": [{"id": "wait", "action": "wait_until",
                            "params": {"condition": "now >= params.at", "poll_interval_seconds": 1}},
                           {"id": "after", "action": "log", "depends_on": ["wait"], "params": {"message": "after"}}]}""");
        long at = clock.instant().getEpochSecond() + 600;
        String runId = http().post("/pipelines/" + pipeline + "/runs", "{\"params\": {\"at\": " + at + "}}", ADMIN)
                .json()
                .path("id")
                .asText();
        await().atMost(Duration.ofSeconds(30)).until(() -> status(runId).equals("running"));
        String traceId =
                http().get("/runs/" + runId, ADMIN).json().path("trace_id").asText();
        ReceivedSpan root = named(collector.awaitTrace(traceId, 2), "pipeline run " + pipeline);
        server.close();
        server = null;
        int before = collector.trace(traceId).size();

        clock.advance(Duration.ofSeconds(601));
        server = ArborServer.start(env, clock);

        JsonNode run = completed(runId);
        assertThat(run.path("trace_id").asText()).isEqualTo(traceId);
        ReceivedSpan after = collector.awaitSpan(span -> span.name().equals("pipeline step after"));
        assertThat(after.traceId()).isEqualTo(traceId);
        assertThat(after.parentSpanId()).isEqualTo(root.spanId());
        assertThat(collector.trace(traceId))
                .as("the wait's last attempt, on the second server, is in the trace too")
                .hasSizeGreaterThanOrEqualTo(before + 2)
                .filteredOn(span -> span.name().equals("pipeline step wait")
                        && span.attributes().get("arbor.pipeline.outcome").equals("done"))
                .hasSize(1);
    }

    private String pipeline(String definition) {
        HttpReply created = http().post("/pipelines", definition, ADMIN);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return created.json().path("id").asText();
    }

    private String status(String runId) {
        return http().get("/runs/" + runId, ADMIN).json().path("status").asText();
    }

    private JsonNode completed(String runId) {
        await().atMost(Duration.ofSeconds(30)).until(() -> status(runId).equals("completed"));
        return http().get("/runs/" + runId, ADMIN).json();
    }
}
