package dev.arbor.inference;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.testing.HttpReply;
import dev.arbor.testing.OpenAiUpstream;
import dev.arbor.testing.OpenAiUpstream.Reply;
import dev.arbor.testing.OtlpReceiver;
import dev.arbor.testing.OtlpReceiver.ReceivedSpan;
import dev.arbor.testing.RouterFixture;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A chat completion through a router whose ordered fallback's first endpoint fails, traced to a collector over
 * OTLP/HTTP: one trace holds the request's server span, the step, the failed attempt and the good one, and both
 * upstreams were sent that trace in {@code traceparent}. Nothing secret or said is an attribute.
 */
class RouterTracingTest {
    private static final String ADMIN = "arb_tracing_admin";
    private static final String BAD_KEY = "sk-bad-endpoint-secret-1234";
    private static final String GOOD_KEY = "sk-good-endpoint-secret-5678";
    private static final String PROMPT = "Call 555-0100 about my refund.";

    private static OtlpReceiver collector;
    private static OpenAiUpstream bad;
    private static OpenAiUpstream good;
    private static RouterFixture fixture;
    private static String member;
    private static String router;

    @BeforeAll
    static void start() throws IOException {
        collector = new OtlpReceiver();
        fixture = RouterFixture.start(
                ADMIN,
                Map.of(
                        "OTEL_EXPORTER_OTLP_ENDPOINT", collector.url(),
                        "OTEL_BSP_SCHEDULE_DELAY", "50",
                        "OTEL_RESOURCE_ATTRIBUTES", "deployment.environment.name=test"));
        bad = new OpenAiUpstream("bad").always(Reply.error(500, "server_error"));
        good = new OpenAiUpstream("good");
        String project = fixture.project("traced");
        member = fixture.member(project);
        fixture.cloudModel("bad-model", bad, "remote-bad", BAD_KEY);
        fixture.cloudModel("good-model", good, "remote-good", GOOD_KEY);
        router = fixture.router(
                        project,
                        "{\"step_id\": \"chain\", \"action_type\": \"ordered_fallback\", \"params\": {\"endpoints\": ["
                                + "{\"endpoint\": \"bad-model\"}, {\"endpoint\": \"good-model\"}], "
                                + "\"retry_on\": [\"server_error\"]}}")
                .name();
    }

    @AfterAll
    static void stop() throws IOException {
        fixture.close();
        collector.close();
    }

    private static HttpReply chat(String... headers) {
        String[] all = new String[headers.length + 2];
        all[0] = "Authorization";
        all[1] = "Bearer " + member;
        System.arraycopy(headers, 0, all, 2, headers.length);
        return fixture.http()
                .post(
                        "/v1/chat/completions",
                        "{\"model\": \"" + router + "\", \"messages\": [{\"role\": \"user\", \"content\": \"" + PROMPT
                                + "\"}]}",
                        all);
    }

    /** The server span of the request whose id is {@code requestId}, once the collector has it. */
    private static ReceivedSpan serverSpan(String requestId) {
        return collector.awaitSpan(span -> span.attribute("arbor.request_id").equals(Optional.of(requestId)));
    }

    /** The spans of {@code root}'s trace, once it holds {@code count} of them. */
    private static List<ReceivedSpan> trace(ReceivedSpan root, int count) {
        return collector.awaitTrace(root.traceId(), count);
    }

    private static ReceivedSpan named(List<ReceivedSpan> spans, String name) {
        return spans.stream()
                .filter(span -> span.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no span " + name + " in "
                        + spans.stream().map(ReceivedSpan::name).toList()));
    }

    @Test
    void aFallbackIsOneTraceFromTheRequestThroughTheFailedAttemptToTheGoodOne() {
        HttpReply reply = chat();
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.header("x-router-endpoint")).isEqualTo("good-model");

        ReceivedSpan server = serverSpan(reply.header("x-request-id"));
        assertThat(server.name()).isEqualTo("POST /v1/chat/completions");
        assertThat(server.kind()).isEqualTo("SPAN_KIND_SERVER");
        assertThat(server.attributes())
                .containsEntry("http.route", "/v1/chat/completions")
                .containsEntry("http.request.method", "POST")
                .containsEntry("http.response.status_code", "200");
        assertThat(server.parentSpanId()).isEmpty();
        assertThat(server.resource())
                .containsEntry("service.name", "arbor")
                .containsEntry("deployment.environment.name", "test");

        List<ReceivedSpan> trace = trace(server, 4);
        ReceivedSpan step = named(trace, "router step route");
        assertThat(step.parentSpanId()).isEqualTo(server.spanId());
        assertThat(step.attributes()).containsEntry("arbor.router.step", "chain");
        ReceivedSpan failed = named(trace, "chat bad-model");
        ReceivedSpan answered = named(trace, "chat good-model");
        assertThat(List.of(failed.parentSpanId(), answered.parentSpanId())).containsOnly(step.spanId());
        assertThat(failed.statusCode()).isEqualTo("STATUS_CODE_ERROR");
        assertThat(failed.statusMessage()).contains("answered 500");
        assertThat(failed.attributes())
                .containsEntry("error.type", "upstream_error")
                .containsEntry("gen_ai.operation.name", "chat")
                .containsEntry("gen_ai.request.model", "bad-model")
                .containsEntry("arbor.router.attempt", "1");
        assertThat(answered.statusCode()).isEqualTo("STATUS_CODE_UNSET");
        assertThat(answered.attributes())
                .containsEntry("gen_ai.request.model", "good-model")
                .containsEntry("arbor.router.attempt", "2")
                .containsEntry("http.response.status_code", "200")
                .containsKey("gen_ai.usage.input_tokens")
                .containsKey("gen_ai.usage.output_tokens");

        String badSaw = bad.requests().getLast().headers().get("traceparent");
        String goodSaw = good.requests().getLast().headers().get("traceparent");
        assertThat(badSaw).startsWith("00-" + server.traceId() + "-" + failed.spanId() + "-");
        assertThat(goodSaw).startsWith("00-" + server.traceId() + "-" + answered.spanId() + "-");
    }

    @Test
    void aCallersTraceparentMakesTheRequestPartOfItsTrace() {
        String traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
        HttpReply reply = chat("traceparent", "00-" + traceId + "-00f067aa0ba902b7-01");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);

        ReceivedSpan server = serverSpan(reply.header("x-request-id"));
        assertThat(server.traceId()).isEqualTo(traceId);
        assertThat(server.parentSpanId()).isEqualTo("00f067aa0ba902b7");
        assertThat(good.requests().getLast().headers().get("traceparent")).startsWith("00-" + traceId + "-");
    }

    @Test
    void aMalformedTraceparentStartsATraceOfItsOwnAndTheRequestIsServed() {
        HttpReply reply = chat("traceparent", "00-not-a-trace-id-zz");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);

        ReceivedSpan server = serverSpan(reply.header("x-request-id"));
        assertThat(server.parentSpanId()).isEmpty();
        assertThat(server.traceId()).matches("[0-9a-f]{32}").isNotEqualTo("0".repeat(32));
        assertThat(good.requests().getLast().headers().get("traceparent")).startsWith("00-" + server.traceId() + "-");
    }

    @Test
    void noSpanCarriesAKeyThePromptOrTheAnswer() {
        HttpReply reply = chat();
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        ReceivedSpan server = serverSpan(reply.header("x-request-id"));
        List<ReceivedSpan> trace = trace(server, 4);

        String answer = reply.json()
                .path("choices")
                .path(0)
                .path("message")
                .path("content")
                .asText();
        assertThat(answer).isNotBlank();
        for (ReceivedSpan span : trace) {
            assertThat(String.join("\n", span.attributes().values()) + span.statusMessage())
                    .as(span.name())
                    .doesNotContain(BAD_KEY)
                    .doesNotContain(GOOD_KEY)
                    .doesNotContain(member)
                    .doesNotContain("555-0100")
                    .doesNotContain(answer);
        }
    }
}
