package dev.arbor.events;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.events.SharedConnection.PreviousSecret;
import dev.arbor.events.providers.SigningSecret;
import dev.arbor.platform.json.Json;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The secrets a delivery to a connection may be signed with, around a rotation. */
class SharedConnectionTest {
    private static final Instant ROTATED = Instant.parse("2026-11-20T10:00:00Z");

    private static SharedConnection connection(Optional<PreviousSecret> previous) {
        var secrets = Json.object();
        secrets.put("signing_secret", "new");
        return new SharedConnection(
                "esc_1", "GitHub", "github", false, List.of("p1"), Json.object(), secrets, previous, ROTATED, ROTATED);
    }

    private static List<String> values(List<SigningSecret> secrets) {
        return secrets.stream().map(SigningSecret::value).toList();
    }

    @Test
    void withoutARotationOnlyTheCurrentSecret() {
        assertThat(values(connection(Optional.empty()).signingSecrets("signing_secret", ROTATED)))
                .containsExactly("new");
    }

    @Test
    void thePreviousSecretIsAcceptedAfterTheCurrentOneUntilItExpires() {
        Instant expires = ROTATED.plus(SharedConnectionRoutes.ROTATION_GRACE);
        SharedConnection rotated = connection(Optional.of(new PreviousSecret(new SigningSecret("old"), expires)));

        assertThat(values(rotated.signingSecrets("signing_secret", ROTATED.plus(Duration.ofHours(23)))))
                .containsExactly("new", "old");
        assertThat(values(rotated.signingSecrets("signing_secret", expires.minusMillis(1))))
                .containsExactly("new", "old");
        assertThat(values(rotated.signingSecrets("signing_secret", expires))).containsExactly("new");
    }

    @Test
    void itsTextShowsNoSecret() {
        SharedConnection rotated = connection(Optional.of(new PreviousSecret(new SigningSecret("old"), ROTATED)));
        assertThat(rotated.toString()).doesNotContain("new").doesNotContain("old");
    }
}
