package dev.arbor.platform.tracing;

import java.util.Map;

/**
 * How traces are exported: OpenTelemetry's own settings, as {@code otel.*} properties (the {@code OTEL_*} variables,
 * lower-cased with dots, and {@code ARBOR_OTLP_ENDPOINT} as {@code otel.exporter.otlp.endpoint}). Tracing is on when
 * an OTLP endpoint is named and the SDK is not disabled; off, nothing of the SDK is built.
 *
 * @param properties the {@code otel.*} properties, the only ones the SDK reads
 */
public record TracingSettings(Map<String, String> properties) {
    public static final TracingSettings OFF = new TracingSettings(Map.of());

    public TracingSettings {
        properties = Map.copyOf(properties);
    }

    public boolean enabled() {
        return !"true"
                        .equalsIgnoreCase(properties
                                .getOrDefault("otel.sdk.disabled", "false")
                                .trim())
                && !"none"
                        .equalsIgnoreCase(properties
                                .getOrDefault("otel.traces.exporter", "otlp")
                                .trim())
                && (properties.containsKey("otel.exporter.otlp.endpoint")
                        || properties.containsKey("otel.exporter.otlp.traces.endpoint"));
    }

    /**
     * Whether each SQL statement of traced work is a span ({@code OTEL_INSTRUMENTATION_JDBC_ENABLED=true}, the name
     * OpenTelemetry's Java agent gives its switch); off by default, unlike the agent's: a request makes many.
     */
    public boolean statementSpans() {
        return flag("otel.instrumentation.jdbc.enabled");
    }

    /**
     * Whether prompts and answers are captured as span events ({@code
     * OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true}, OpenTelemetry's GenAI opt-in), masked as the logs
     * mask them; off by default.
     */
    public boolean capturesContent() {
        return flag("otel.instrumentation.genai.capture.message.content");
    }

    private boolean flag(String name) {
        return "true".equalsIgnoreCase(properties.getOrDefault(name, "false").trim());
    }
}
