package dev.arbor.platform.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.arbor.platform.config.ConfigException;
import dev.arbor.platform.logging.LogFormat;
import dev.arbor.testing.OtlpReceiver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.trace.SpanKind;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.function.Consumer;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/**
 * The server's own logging configuration ({@code logback.xml}) in both formats: a line written inside a span carries
 * its trace and span ids, one written after it does not; in JSON each line is one object with the exception as one
 * field.
 */
class LogLinesTest {
    private static OtlpReceiver collector;
    private static Tracing tracing;

    @BeforeAll
    static void start() throws Exception {
        collector = new OtlpReceiver();
        tracing = Tracing.start(
                new TracingSettings(Map.of("otel.exporter.otlp.endpoint", collector.url())), new SimpleMeterRegistry());
    }

    @AfterAll
    static void stop() {
        tracing.close();
        collector.close();
    }

    /** What the server's logging configuration writes in {@code format} while {@code logging} runs. */
    private static String[] written(String format, Consumer<LoggerContext> logging) throws Exception {
        var err = new ByteArrayOutputStream();
        PrintStream stderr = System.err;
        var context = new LoggerContext();
        context.setMDCAdapter(MDC.getMDCAdapter());
        context.putProperty("ARBOR_LOG_FORMAT", format);
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            var configurator = new JoranConfigurator();
            configurator.setContext(context);
            configurator.doConfigure(LogLinesTest.class.getResource("/logback.xml"));
            logging.accept(context);
        } finally {
            context.stop();
            System.setErr(stderr);
        }
        return err.toString(StandardCharsets.UTF_8).lines().toArray(String[]::new);
    }

    @Test
    void jsonLinesAreOneObjectEachWithTheSpansIdsAndTheExceptionAsOneField() throws Exception {
        String[] traceAndSpan = new String[2];
        String[] lines = written("json", context -> {
            MDC.put("request_id", "req_json");
            try (Traced span = Traced.start(tracing, "work", SpanKind.INTERNAL)) {
                traceAndSpan[0] = span.traceId().orElseThrow();
                traceAndSpan[1] = MDC.get("span_id");
                context.getLogger("dev.arbor.Example").error("it failed", new IllegalStateException("boom"));
            } finally {
                MDC.remove("request_id");
            }
            context.getLogger("dev.arbor.Example").warn("after the span");
        });
        assertThat(lines).hasSize(2);
        var json = new ObjectMapper();
        JsonNode inside = json.readTree(lines[0]);
        assertThat(inside.path("level").asText()).isEqualTo("ERROR");
        assertThat(inside.path("logger").asText()).isEqualTo("dev.arbor.Example");
        assertThat(inside.path("message").asText()).isEqualTo("it failed");
        assertThat(inside.path("time").asText()).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
        assertThat(inside.path("request_id").asText()).isEqualTo("req_json");
        assertThat(inside.path("trace_id").asText()).isEqualTo(traceAndSpan[0]);
        assertThat(inside.path("span_id").asText()).isEqualTo(traceAndSpan[1]).matches("[0-9a-f]{16}");
        assertThat(inside.path("exception").asText())
                .startsWith("java.lang.IllegalStateException: boom")
                .contains("at dev.arbor.platform.tracing.LogLinesTest");
        JsonNode after = json.readTree(lines[1]);
        assertThat(after.has("trace_id")).isFalse();
        assertThat(after.has("span_id")).isFalse();
    }

    @Test
    void textLinesEndWithTheSpansIdsWhileOneIsCurrent() throws Exception {
        String[] ids = new String[2];
        String[] lines = written("text", context -> {
            try (Traced span = Traced.start(tracing, "work", SpanKind.INTERNAL)) {
                ids[0] = span.traceId().orElseThrow();
                ids[1] = MDC.get("span_id");
                context.getLogger("dev.arbor.Example").info("inside");
            }
            context.getLogger("dev.arbor.Example").info("outside");
        });
        assertThat(lines).hasSize(2);
        assertThat(lines[0]).endsWith("INFO  Example - inside trace_id=" + ids[0] + " span_id=" + ids[1]);
        assertThat(lines[1]).endsWith("INFO  Example - outside");
    }

    @Test
    void aLogFormatOtherThanTextOrJsonIsRefused() {
        assertThat(LogFormat.parse("json")).isEqualTo(LogFormat.JSON);
        Assertions.assertThatThrownBy(() -> LogFormat.parse("xml"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ARBOR_LOG_FORMAT");
    }
}
