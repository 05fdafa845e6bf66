package dev.arbor.platform.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.arbor.Config;
import dev.arbor.platform.config.ConfigException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** When tracing is on, and the settings OpenTelemetry refuses, which stop the server at start with their reason. */
class TracingSettingsTest {

    static Stream<Arguments> switches() {
        return Stream.of(
                Arguments.of("no endpoint", Map.of(), false),
                Arguments.of("an endpoint", Map.of("otel.exporter.otlp.endpoint", "http://127.0.0.1:4318"), true),
                Arguments.of(
                        "a traces endpoint",
                        Map.of("otel.exporter.otlp.traces.endpoint", "http://127.0.0.1:4318/v1/traces"),
                        true),
                Arguments.of(
                        "the SDK disabled",
                        Map.of("otel.exporter.otlp.endpoint", "http://127.0.0.1:4318", "otel.sdk.disabled", "true"),
                        false),
                Arguments.of(
                        "no traces exporter",
                        Map.of("otel.exporter.otlp.endpoint", "http://127.0.0.1:4318", "otel.traces.exporter", "none"),
                        false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("switches")
    void tracingIsOnOnlyWithAnEndpointAndTheSdkEnabled(String what, Map<String, String> properties, boolean on) {
        assertThat(new TracingSettings(properties).enabled()).isEqualTo(on);
        try (var tracing = Tracing.start(new TracingSettings(properties), new SimpleMeterRegistry())) {
            assertThat(tracing.enabled()).isEqualTo(on);
        }
    }

    @Test
    void theServersSettingsGiveOpenTelemetryItsVariablesAndArborsEndpoint() {
        var config = Config.load(
                Map.of(
                        "OTEL_SERVICE_NAME", "edge-gateway",
                        "OTEL_EXPORTER_OTLP_ENDPOINT", "http://ignored:4318",
                        "ARBOR_OTLP_ENDPOINT", "http://collector:4318/",
                        "ARBOR_DATA", "unused"),
                List.of());
        assertThat(config.tracing().properties())
                .containsEntry("otel.service.name", "edge-gateway")
                .containsEntry("otel.exporter.otlp.endpoint", "http://collector:4318");
        assertThat(config.tracing().enabled()).isTrue();
    }

    @Test
    void anArborEndpointThatIsNotAWebUrlIsRefused() {
        assertThatThrownBy(() -> Config.load(Map.of("ARBOR_OTLP_ENDPOINT", "collector:4318"), List.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ARBOR_OTLP_ENDPOINT");
    }

    static Stream<Arguments> refused() {
        return Stream.of(
                Arguments.of("otel.traces.sampler", "sometimes", "sometimes"),
                Arguments.of("otel.exporter.otlp.protocol", "carrier-pigeon", "carrier-pigeon"),
                Arguments.of("otel.exporter.otlp.timeout", "soon", "soon"),
                Arguments.of("otel.exporter.otlp.protocol", "grpc", "grpc"),
                Arguments.of("otel.exporter.otlp.traces.protocol", "http/json", "http/json"));
    }

    @ParameterizedTest(name = "{0}={1}")
    @MethodSource("refused")
    void aSettingOpenTelemetryRefusesIsRefusedWithItsValue(String property, String value, String named) {
        var settings =
                new TracingSettings(Map.of("otel.exporter.otlp.endpoint", "http://127.0.0.1:4318", property, value));
        assertThatThrownBy(() -> Tracing.start(settings, new SimpleMeterRegistry()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(named);
    }
}
