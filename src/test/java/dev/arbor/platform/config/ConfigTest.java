package dev.arbor.platform.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigTest {

    @Test
    void defaultsAreLoopbackPort8420AndDataBesideTheCaller() {
        Config config = Config.load(Map.of(), List.of());
        assertThat(config.host()).isEqualTo("127.0.0.1");
        assertThat(config.port()).isEqualTo(8420);
        assertThat(config.dataDir()).isEqualTo(Path.of("data").toAbsolutePath());
        assertThat(config.databaseUrl()).isEmpty();
        assertThat(config.studioApiKey()).isEmpty();
    }

    @Test
    void flagsWinOverTheEnvironmentTheyMirror() {
        Config config = Config.load(Map.of("ARBOR_HOST", "0.0.0.0", "ARBOR_PORT", "9000", "ARBOR_DATA", "/srv/a"),
                List.of("--port", "9100", "--data=/srv/b"));
        assertThat(config.host()).isEqualTo("0.0.0.0");
        assertThat(config.port()).isEqualTo(9100);
        assertThat(config.dataDir()).isEqualTo(Path.of("/srv/b"));
    }

    @Test
    void listsAreCommaSeparatedAndTrimmed() {
        Config config = Config.load(Map.of("STUDIO_CORS_ORIGINS", " https://a.example , https://b.example,,"),
                List.of());
        assertThat(config.corsOrigins()).containsExactly("https://a.example", "https://b.example");
    }

    @Test
    void badValuesSayWhatIsWrong() {
        assertThatThrownBy(() -> Config.load(Map.of("ARBOR_PORT", "eighty"), List.of()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("eighty");
        assertThatThrownBy(() -> Config.load(Map.of(), List.of("--port", "70000")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("65535");
        assertThatThrownBy(() -> Config.load(Map.of(), List.of("--colour", "red")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("--colour");
        assertThatThrownBy(() -> Config.load(Map.of(), List.of("--host")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("needs a value");
    }
}
