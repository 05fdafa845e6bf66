package dev.arbor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.arbor.platform.config.ConfigException;
import dev.arbor.platform.config.StorageSettings;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ConfigTest {

    @Test
    void defaultsAreLoopbackPort8420AndDataBesideTheCaller() {
        Config config = Config.load(Map.of(), List.of());
        assertThat(config.http().host()).isEqualTo("127.0.0.1");
        assertThat(config.http().port()).isEqualTo(8420);
        assertThat(config.storage().dataDir()).isEqualTo(Path.of("data").toAbsolutePath());
        assertThat(config.storage().databaseUrl()).isEmpty();
        assertThat(config.http().studioApiKey()).isEmpty();
    }

    @Test
    void flagsWinOverTheEnvironmentTheyMirror() {
        Config config = Config.load(
                Map.of("ARBOR_HOST", "0.0.0.0", "ARBOR_PORT", "9000", "ARBOR_DATA", "/srv/a"),
                List.of("--port", "9100", "--data=/srv/b"));
        assertThat(config.http().host()).isEqualTo("0.0.0.0");
        assertThat(config.http().port()).isEqualTo(9100);
        assertThat(config.storage().dataDir()).isEqualTo(Path.of("/srv/b"));
    }

    @Test
    void listsAreCommaSeparatedAndTrimmed() {
        Config config =
                Config.load(Map.of("STUDIO_CORS_ORIGINS", " https://a.example , https://b.example,,"), List.of());
        assertThat(config.http().corsOrigins()).containsExactly("https://a.example", "https://b.example");
    }

    @Test
    void badValuesSayWhatIsWrong() {
        assertThatThrownBy(() -> Config.load(Map.of("ARBOR_PORT", "eighty"), List.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("eighty");
        assertThatThrownBy(() -> Config.load(Map.of(), List.of("--port", "70000")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("65535");
        assertThatThrownBy(() -> Config.load(Map.of(), List.of("--colour", "red")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("--colour");
        assertThatThrownBy(() -> Config.load(Map.of(), List.of("--host")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("needs a value");
        assertThatThrownBy(() -> Config.load(Map.of("ARBOR_MODEL_IDLE_SECONDS", "-1"), List.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("at least 0");
        assertThatThrownBy(() -> Config.load(Map.of("ARBOR_MODEL_MEMORY_MB", "lots"), List.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("megabytes");
        assertThatThrownBy(() -> Config.load(Map.of("ARBOR_MODEL_HUB_URL", "ftp://hub"), List.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ARBOR_MODEL_HUB_URL");
    }

    @Test
    void thePublicUrlIsAnAbsoluteWebAddress() {
        assertThat(Config.load(Map.of(), List.of()).publicUrl()).isEmpty();
        assertThat(Config.load(Map.of("ARBOR_PUBLIC_URL", "https://arbor.example.com/"), List.of())
                        .publicUrl())
                .contains("https://arbor.example.com");
        for (String wrong : List.of("arbor.example.com", "ftp://arbor.example.com", "https://", "http://a b")) {
            assertThatThrownBy(() -> Config.load(Map.of("ARBOR_PUBLIC_URL", wrong), List.of()))
                    .as(wrong)
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("ARBOR_PUBLIC_URL");
        }
    }

    @Test
    void modelSettingsHaveDefaultsAndTakeTheirVariables() {
        Config defaults = Config.load(Map.of(), List.of());
        assertThat(defaults.models().idle()).hasMinutes(30);
        assertThat(defaults.models().memoryMb()).isEmpty();
        assertThat(defaults.models().hubUrl()).isEqualTo("https://huggingface.co");
        assertThat(defaults.models().downloads()).isTrue();
        Config set = Config.load(
                Map.of(
                        "ARBOR_MODEL_IDLE_SECONDS",
                        "0",
                        "ARBOR_MODEL_MEMORY_MB",
                        "2048",
                        "ARBOR_MODEL_HUB_URL",
                        "http://hub.local:8080/",
                        "ARBOR_NO_DOWNLOADS",
                        "1"),
                List.of());
        assertThat(set.models().idle()).isZero();
        assertThat(set.models().memoryMb()).contains(2048L);
        assertThat(set.models().hubUrl()).isEqualTo("http://hub.local:8080");
        assertThat(set.models().downloads()).isFalse();
    }

    @Test
    void routingSettingsHaveDefaultsAndTakeTheirVariables() {
        Config defaults = Config.load(Map.of(), List.of());
        assertThat(defaults.routing().timeout()).hasSeconds(120);
        assertThat(defaults.routing().failuresToCool()).isEqualTo(3);
        assertThat(defaults.routing().cooldown()).hasSeconds(30);
        Config set = Config.load(
                Map.of(
                        "ARBOR_ROUTING_TIMEOUT_SECONDS", "7",
                        "ARBOR_ROUTING_FAILURES_TO_COOL", "1",
                        "ARBOR_ROUTING_COOLDOWN_SECONDS", "90"),
                List.of());
        assertThat(set.routing().timeout()).hasSeconds(7);
        assertThat(set.routing().failuresToCool()).isEqualTo(1);
        assertThat(set.routing().cooldown()).hasSeconds(90);
        assertThatThrownBy(() -> Config.load(Map.of("ARBOR_ROUTING_FAILURES_TO_COOL", "0"), List.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ARBOR_ROUTING_FAILURES_TO_COOL");
    }

    @Test
    void deliverySettingsHaveDefaultsAndTakeTheirVariables() {
        Config defaults = Config.load(Map.of(), List.of());
        assertThat(defaults.deliveries().refusedPerHour()).isEqualTo(100);
        assertThat(defaults.deliveries().refusedBodyChars()).isEqualTo(1024);
        assertThat(defaults.deliveries().refusedRetention()).hasDays(7);
        assertThat(defaults.deliveries().replaysPerMinute()).isEqualTo(10);
        Config set = Config.load(
                Map.of(
                        "ARBOR_REFUSED_DELIVERIES_PER_HOUR", "0",
                        "ARBOR_REFUSED_DELIVERY_BODY_CHARS", "999999",
                        "ARBOR_REFUSED_DELIVERY_RETENTION_DAYS", "2",
                        "ARBOR_DELIVERY_REPLAYS_PER_MINUTE", "1"),
                List.of());
        assertThat(set.deliveries().refusedPerHour()).isZero();
        assertThat(set.deliveries().refusedBodyChars()).as("at most 64 KiB").isEqualTo(65536);
        assertThat(set.deliveries().refusedRetention()).hasDays(2);
        assertThat(set.deliveries().replaysPerMinute()).isEqualTo(1);
    }

    @Test
    void theAuditLogKeepsAChangeAYearUnlessToldOtherwise() {
        assertThat(Config.load(Map.of(), List.of()).auditRetention()).hasDays(365);
        assertThat(Config.load(Map.of("ARBOR_AUDIT_RETENTION_DAYS", "30"), List.of())
                        .auditRetention())
                .hasDays(30);
        assertThat(Config.load(Map.of("ARBOR_AUDIT_RETENTION_DAYS", "9999999999"), List.of())
                        .auditRetention())
                .as("at most a hundred years")
                .hasDays(36_500);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-3", "a year"})
    void aBadAuditRetentionStopsTheStartNamingIt(String days) {
        assertThatThrownBy(() -> Config.load(Map.of("ARBOR_AUDIT_RETENTION_DAYS", days), List.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ARBOR_AUDIT_RETENTION_DAYS");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "ARBOR_REFUSED_DELIVERIES_PER_HOUR=-1",
                "ARBOR_REFUSED_DELIVERY_BODY_CHARS=lots",
                "ARBOR_REFUSED_DELIVERY_RETENTION_DAYS=0",
                "ARBOR_DELIVERY_REPLAYS_PER_MINUTE=0"
            })
    void aBadDeliverySettingStopsTheStartNamingIt(String setting) {
        String name = setting.substring(0, setting.indexOf('='));
        assertThatThrownBy(() -> Config.load(Map.of(name, setting.substring(name.length() + 1)), List.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(name);
    }

    @Test
    void connectionLimitsHaveDefaultsAndTakeTheirVariables() {
        Config defaults = Config.load(Map.of(), List.of());
        assertThat(defaults.http().headerTimeout()).hasSeconds(20);
        assertThat(defaults.http().maxConnectionsPerAddress()).isEqualTo(256);
        assertThat(defaults.http().largeBodyPermits()).isEmpty();
        assertThat(defaults.http().largeBodyWait()).hasSeconds(30);
        Config set = Config.load(
                Map.of(
                        "ARBOR_HEADER_TIMEOUT_SECONDS",
                        "5",
                        "ARBOR_MAX_CONNECTIONS_PER_ADDRESS",
                        "8",
                        "ARBOR_LARGE_BODY_PERMITS",
                        "2",
                        "ARBOR_LARGE_BODY_WAIT_SECONDS",
                        "3"),
                List.of());
        assertThat(set.http().headerTimeout()).hasSeconds(5);
        assertThat(set.http().maxConnectionsPerAddress()).isEqualTo(8);
        assertThat(set.http().largeBodyPermits()).contains(2);
        assertThat(set.http().largeBodyWait()).hasSeconds(3);
        assertThatThrownBy(() -> Config.load(Map.of("ARBOR_MAX_CONNECTIONS_PER_ADDRESS", "0"), List.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ARBOR_MAX_CONNECTIONS_PER_ADDRESS");
        assertThatThrownBy(() -> Config.load(Map.of("ARBOR_HEADER_TIMEOUT_SECONDS", "soon"), List.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ARBOR_HEADER_TIMEOUT_SECONDS");
    }

    @Test
    void databasePoolHasDefaultsAndTakesItsVariables() {
        assertThat(Config.load(Map.of(), List.of()).storage().pool()).isEqualTo(StorageSettings.Pool.DEFAULT);
        StorageSettings.Pool set = Config.load(
                        Map.of("ARBOR_DATABASE_POOL_SIZE", "40", "ARBOR_DATABASE_POOL_WAIT_SECONDS", "30"), List.of())
                .storage()
                .pool();
        assertThat(set.size()).isEqualTo(40);
        assertThat(set.timeout()).hasSeconds(30);
        assertThatThrownBy(() -> Config.load(Map.of("ARBOR_DATABASE_POOL_SIZE", "0"), List.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ARBOR_DATABASE_POOL_SIZE");
    }
}
