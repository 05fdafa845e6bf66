package dev.arbor.platform.secrets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.arbor.Config;
import dev.arbor.platform.config.ConfigException;
import dev.arbor.platform.config.StorageSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecretBoxTest {
    @TempDir
    Path data;

    private StorageSettings config(Map<String, String> env) {
        var all = new java.util.HashMap<>(env);
        all.put("ARBOR_DATA", data.toString());
        return Config.load(all, List.of()).storage();
    }

    @Test
    void sealedSecretsOpenOnlyInTheirContext() {
        SecretBox box = SecretBox.forStorage(config(Map.of()));
        String sealed = box.seal("hunter2", "gateway:gw_1:credentials");

        assertThat(sealed).startsWith("v1.").doesNotContain("hunter2");
        assertThat(box.open(sealed, "gateway:gw_1:credentials")).isEqualTo("hunter2");
        assertThat(box.seal("hunter2", "gateway:gw_1:credentials")).isNotEqualTo(sealed);
        assertThatThrownBy(() -> box.open(sealed, "gateway:gw_2:credentials"))
                .isInstanceOf(SecretException.class)
                .hasMessageNotContaining("hunter2");
    }

    @Test
    void tamperedOrForeignValuesAreRefused() {
        SecretBox box = SecretBox.forStorage(config(Map.of()));
        String sealed = box.seal("value", "c");
        char last = sealed.charAt(sealed.length() - 1);
        String tampered = sealed.substring(0, sealed.length() - 1) + (last == 'A' ? 'B' : 'A');
        assertThatThrownBy(() -> box.open(tampered, "c")).isInstanceOf(SecretException.class);
        assertThatThrownBy(() -> box.open("plain text", "c")).isInstanceOf(SecretException.class);

        SecretBox other = new SecretBox(new byte[32]);
        assertThatThrownBy(() -> other.open(sealed, "c"))
                .isInstanceOf(SecretException.class)
                .hasMessageContaining("another key");
    }

    @Test
    void theGeneratedKeyFileIsPrivateAndReused() throws Exception {
        String sealed = SecretBox.forStorage(config(Map.of())).seal("kept", "c");
        Path keyFile = data.resolve("secret.key");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(keyFile)))
                .isEqualTo("rw-------");
        assertThat(SecretBox.forStorage(config(Map.of())).open(sealed, "c")).isEqualTo("kept");
    }

    @Test
    void theKeyMayComeFromTheEnvironment() {
        String key = Base64.getEncoder().encodeToString(new byte[32]);
        SecretBox box = SecretBox.forStorage(config(Map.of("ARBOR_SECRET_KEY", key)));
        assertThat(new SecretBox(new byte[32]).open(box.seal("x", "c"), "c")).isEqualTo("x");
        assertThat(Files.exists(data.resolve("secret.key"))).isFalse();
        assertThatThrownBy(() -> SecretBox.forStorage(config(Map.of("ARBOR_SECRET_KEY", "short"))))
                .isInstanceOf(ConfigException.class);
    }
}
