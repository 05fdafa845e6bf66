package dev.arbor.studio;

import static dev.arbor.testing.OtlpReceiver.named;
import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.OtlpReceiver;
import dev.arbor.testing.OtlpReceiver.ReceivedSpan;
import dev.arbor.testing.StatusWaits;
import dev.arbor.testing.TestServer;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A studio decision traced to a collector over OTLP/HTTP: under the request's span, its planning, then the decision
 * with its model call (OpenTelemetry's GenAI attributes) and its write to history; a background decision's model call
 * and write join the request's trace. No span carries the state or an answer.
 */
class DecisionTracingTest {
    private static final String D = "/v1/studio/decisions";
    private static final String STATE = "Customer 4417 wants a refund of the blue kettle";

    private static OtlpReceiver collector;
    private static ArborServer server;

    @BeforeAll
    static void start() throws IOException {
        collector = new OtlpReceiver();
        server = ArborServer.start(Map.of(
                "ARBOR_TEST_MODELS", "1",
                "OTEL_EXPORTER_OTLP_ENDPOINT", collector.url(),
                "OTEL_BSP_SCHEDULE_DELAY", "50"));
        http().post("/models/hash-decider/load", "{\"options\": {\"reject_marker\": \"REJECT\"}}");
        StatusWaits.until(http(), "/models/hash-decider", "loaded", Duration.ofSeconds(60));
    }

    @AfterAll
    static void stop() {
        server.close();
        collector.close();
    }

    private static TestServer http() {
        return server.http();
    }

    private static String decision(String state, String extra) {
        return "{" + extra + "\"model\": \"hash-decider\", \"state\": \"" + state + "\", \"questions\": {\"ok\": "
                + "{\"type\": \"noul\"}, \"kind\": {\"type\": \"choice\", \"criteria\": [\"refund\", \"other\"]}}}";
    }

    private static List<ReceivedSpan> traceOf(HttpReply reply, int count) {
        ReceivedSpan request = collector.awaitSpan(
                span -> span.attribute("arbor.request_id").equals(Optional.of(reply.header("x-request-id"))));
        return collector.awaitTrace(request.traceId(), count);
    }

    @Test
    void aDecisionIsItsPlanningThenItsModelCallAndItsWriteUnderTheRequest() {
        HttpReply reply = http().post(D, decision(STATE, ""));
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        String id = reply.json().path("id").asText();

        List<ReceivedSpan> trace = traceOf(reply, 5);
        ReceivedSpan request = named(trace, "POST " + D);
        ReceivedSpan plan = named(trace, "studio plan");
        assertThat(plan.parentSpanId()).isEqualTo(request.spanId());
        assertThat(plan.attributes())
                .containsEntry("gen_ai.request.model", "hash-decider")
                .containsEntry("arbor.studio.questions", "2");
        ReceivedSpan decision = named(trace, "studio decision");
        assertThat(decision.parentSpanId()).isEqualTo(request.spanId());
        assertThat(decision.attributes())
                .containsEntry("arbor.decision.id", id)
                .containsEntry("arbor.studio.background", "false");
        ReceivedSpan model = named(trace, "score hash-decider");
        assertThat(model.parentSpanId()).isEqualTo(decision.spanId());
        assertThat(model.kind()).isEqualTo("SPAN_KIND_CLIENT");
        assertThat(model.attributes())
                .containsEntry("gen_ai.operation.name", "score")
                .containsEntry("gen_ai.request.model", "hash-decider")
                .containsKey("gen_ai.usage.input_tokens");
        ReceivedSpan store = named(trace, "studio store");
        assertThat(store.parentSpanId()).isEqualTo(decision.spanId());
        assertThat(store.attributes()).containsEntry("arbor.studio.store", "full");

        for (ReceivedSpan span : trace) {
            assertThat(String.join("\n", span.attributes().values()) + span.statusMessage())
                    .as(span.name())
                    .doesNotContain("4417")
                    .doesNotContain("kettle")
                    .doesNotContain("refund");
        }
    }

    @Test
    void aModelThatRefusesIsAFailedModelSpanWithTheErrorCode() {
        HttpReply reply = http().post(D, decision("please REJECT this", ""));
        reply.assertError(400, "model_rejected_input", null);

        ReceivedSpan model = named(traceOf(reply, 4), "score hash-decider");
        assertThat(model.statusCode()).isEqualTo("STATUS_CODE_ERROR");
        assertThat(model.attributes()).containsEntry("error.type", "model_rejected_input");
    }

    @Test
    void aBackgroundDecisionsModelCallAndWriteJoinTheRequestsTrace() {
        HttpReply reply = http().post(D, decision(STATE, "\"background\": true, "));
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.json().path("status").asText()).isEqualTo("queued");

        List<ReceivedSpan> trace = traceOf(reply, 5);
        ReceivedSpan decision = named(trace, "studio decision");
        assertThat(decision.attributes()).containsEntry("arbor.studio.background", "true");
        assertThat(named(trace, "score hash-decider").parentSpanId()).isEqualTo(decision.spanId());
        assertThat(named(trace, "studio store").parentSpanId()).isEqualTo(decision.spanId());
    }
}
