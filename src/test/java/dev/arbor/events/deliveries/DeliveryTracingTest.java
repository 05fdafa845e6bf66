package dev.arbor.events.deliveries;

import static dev.arbor.testing.OtlpReceiver.named;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.ArborServer;
import dev.arbor.platform.json.Json;
import dev.arbor.testing.GitHubHook;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.OtlpReceiver;
import dev.arbor.testing.OtlpReceiver.Link;
import dev.arbor.testing.OtlpReceiver.ReceivedSpan;
import dev.arbor.testing.TestServer;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A webhook delivery traced to a collector over OTLP/HTTP: the request that brings it holds its verification and its
 * record; its dispatch, on the dispatcher's thread, goes on in that trace with each trigger's firing under it; the
 * pipeline run a trigger starts is a trace of its own that links to the firing. No span carries the payload or the
 * signing secret.
 */
class DeliveryTracingTest {
    private static final String ADMIN_SECRET = "arb_delivery_tracing_admin";
    private static final String[] ADMIN = {"Authorization", "Bearer " + ADMIN_SECRET};

    private static OtlpReceiver collector;
    private static ArborServer server;
    private static GitHubHook hook;
    private static String pipeline;
    private static String trigger;

    @BeforeAll
    static void start() throws IOException {
        collector = new OtlpReceiver();
        server = ArborServer.start(Map.of(
                "ARBOR_ADMIN_TOKEN",
                ADMIN_SECRET,
                "OTEL_EXPORTER_OTLP_ENDPOINT",
                collector.url(),
                "OTEL_BSP_SCHEDULE_DELAY",
                "50"));
        String project = http().newProject("deliveries", ADMIN);
        hook = GitHubHook.connect(http(), project, ADMIN);
        HttpReply created = http().post("/pipelines", """
                {"name": "noted", "steps": [{"id": "note", "action": "set_output",
                  "params": {"key": "seen", "value": "{{ event.payload.issue.title }}"}}]}""", ADMIN);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        pipeline = created.json().path("id").asText();
        ObjectNode body = Json.object()
                .put("name", "traced")
                .put("project_id", project)
                .put("connection_id", hook.connectionId());
        body.putArray("event_types").add("issues.opened");
        body.putObject("target").put("pipeline_id", pipeline);
        HttpReply made = http().post("/triggers", body.toString(), ADMIN);
        assertThat(made.status()).as(made.body()).isEqualTo(201);
        trigger = made.json().path("id").asText();
    }

    @AfterAll
    static void stop() {
        server.close();
        collector.close();
    }

    private static TestServer http() {
        return server.http();
    }

    private static ReceivedSpan serverSpan(HttpReply reply) {
        return collector.awaitSpan(
                span -> span.attribute("arbor.request_id").equals(Optional.of(reply.header("x-request-id"))));
    }

    @Test
    void aDeliveryIsOneTraceFromItsRequestThroughItsDispatchToTheTriggersFiringAndTheRunLinksToIt() {
        HttpReply reply = hook.deliver(http(), UUID.randomUUID().toString());
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        String deliveryId = reply.json().path("delivery_id").asText();

        ReceivedSpan request = serverSpan(reply);
        List<ReceivedSpan> trace = collector.awaitTrace(request.traceId(), 5);
        ReceivedSpan verify = named(trace, "webhook verify");
        assertThat(verify.parentSpanId()).isEqualTo(request.spanId());
        assertThat(verify.attributes())
                .containsEntry("arbor.event.provider", "github")
                .containsEntry("arbor.event.type", "issues.opened")
                .containsEntry("arbor.delivery.outcome", "verified");
        ReceivedSpan record = named(trace, "webhook record");
        assertThat(record.parentSpanId()).isEqualTo(request.spanId());
        assertThat(record.attributes())
                .containsEntry("arbor.delivery.id", deliveryId)
                .containsEntry("arbor.delivery.duplicate", "false");
        ReceivedSpan dispatch = named(trace, "webhook dispatch");
        assertThat(dispatch.parentSpanId()).isEqualTo(record.spanId());
        assertThat(dispatch.attributes())
                .containsEntry("arbor.delivery.id", deliveryId)
                .containsEntry("arbor.delivery.round", "0");
        ReceivedSpan fire = named(trace, "trigger fire");
        assertThat(fire.parentSpanId()).isEqualTo(dispatch.spanId());
        assertThat(fire.attributes()).containsEntry("arbor.trigger.id", trigger);

        String runId = firingRun(deliveryId);
        String runTrace =
                http().get("/runs/" + runId, ADMIN).json().path("trace_id").asText();
        assertThat(runTrace).isNotEqualTo(request.traceId());
        ReceivedSpan run = named(collector.awaitTrace(runTrace, 2), "pipeline run " + pipeline);
        assertThat(run.links()).containsExactly(new Link(fire.traceId(), fire.spanId()));

        for (ReceivedSpan span : trace) {
            assertThat(String.join("\n", span.attributes().values()) + span.statusMessage())
                    .as(span.name())
                    .doesNotContain("Found a bug")
                    .doesNotContain(hook.secret());
        }
    }

    @Test
    void aRefusedSignatureIsAFailedVerificationSpan() {
        HttpReply reply = http().post(
                        hook.path(),
                        "{\"action\": \"opened\"}",
                        "X-GitHub-Event",
                        "issues",
                        "X-Hub-Signature-256",
                        "sha256=0");
        reply.assertError(401, "invalid_signature", null);

        ReceivedSpan request = serverSpan(reply);
        ReceivedSpan verify = named(collector.awaitTrace(request.traceId(), 2), "webhook verify");
        assertThat(verify.statusCode()).isEqualTo("STATUS_CODE_ERROR");
        assertThat(verify.attributes())
                .containsEntry("arbor.delivery.outcome", "refused")
                .containsEntry("error.type", "invalid_signature");
    }

    private static String firingRun(String deliveryId) {
        return await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> {
                            JsonNode firing = http().get(
                                            "/events/shared-connections/" + hook.connectionId() + "/deliveries/"
                                                    + deliveryId,
                                            ADMIN)
                                    .json()
                                    .path("firings")
                                    .path(0);
                            return firing.path("run_id").asText("");
                        },
                        id -> !id.isEmpty());
    }
}
