package dev.arbor.events;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.events.SharedConnection.PreviousSecret;
import dev.arbor.events.SharedConnectionStore.Visible;
import dev.arbor.events.providers.SigningSecret;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.Dialect;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.secrets.SecretBox;
import dev.arbor.testing.TestPostgres;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What the ingest will read back: a rotated connection's secrets, sealed at rest and opened again, with the previous
 * one's expiry, on SQLite and on PostgreSQL.
 */
class SharedConnectionStoreTest {
    private static final Instant CREATED = Instant.parse("2026-11-20T10:00:00Z");

    @TempDir
    Path temp;

    private Database open(Dialect dialect) {
        return dialect == Dialect.SQLITE
                ? Database.openSqlite(temp.resolve("arbor.db"))
                : Database.openPostgres(TestPostgres.newDatabaseUrl());
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void aRotatedSecretIsKeptSealedAndAcceptedUntilItsWindowEnds(Dialect dialect) {
        try (Database database = open(dialect)) {
            var store = new SharedConnectionStore(database, new SecretBox(new byte[32]));
            var secrets = Json.object();
            secrets.put("signing_secret", "first");
            var connection = new SharedConnection(
                    "esc_1",
                    "GitHub",
                    "github",
                    false,
                    List.of("p1", "p2"),
                    Json.object(),
                    secrets,
                    Optional.empty(),
                    CREATED,
                    CREATED);
            store.create(connection, "hash-of-the-token");
            var rotatedSecrets = Json.object();
            rotatedSecrets.put("signing_secret", "second");
            Instant rotatedAt = CREATED.plus(Duration.ofHours(2));
            Instant expires = rotatedAt.plus(SharedConnectionRoutes.ROTATION_GRACE);
            store.update(
                    connection.withCredentials(
                            Json.object(),
                            rotatedSecrets,
                            Optional.of(new PreviousSecret(new SigningSecret("first"), expires))),
                    rotatedAt);

            SharedConnection read = store.find("esc_1").orElseThrow();

            assertThat(read.projects()).containsExactly("p1", "p2");
            assertThat(read.updatedAt()).isEqualTo(rotatedAt);
            assertThat(read.previous().map(PreviousSecret::expiresAt)).contains(expires);
            assertThat(read.signingSecrets("signing_secret", expires.minusSeconds(1)).stream()
                            .map(SigningSecret::value))
                    .containsExactly("second", "first");
            assertThat(read.signingSecrets("signing_secret", expires).stream().map(SigningSecret::value))
                    .containsExactly("second");
            String stored = database.read(
                    h -> h.createQuery("SELECT secrets || ' ' || previous_secret FROM event_shared_connections")
                            .mapTo(String.class)
                            .one());
            assertThat(stored).doesNotContain("first").doesNotContain("second");
            assertThat(store.list(
                                    new Page(10, Optional.empty(), Optional.empty()),
                                    new Visible.SharedWith(Set.of("p2")))
                            .items())
                    .extracting(SharedConnection::id)
                    .containsExactly("esc_1");
            assertThat(store.list(
                                    new Page(10, Optional.empty(), Optional.empty()),
                                    new Visible.SharedWith(Set.of("p3")))
                            .items())
                    .isEmpty();
        }
    }
}
