package dev.arbor.connectors.agents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.connectors.agents.CallStore.Filter;
import dev.arbor.connectors.agents.CallStore.Outcome;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.Dialect;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.json.Json;
import dev.arbor.testing.MovableClock;
import dev.arbor.testing.TestPostgres;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The audit keeps a tool call for its retention and no longer, on SQLite and on PostgreSQL. */
class CallAuditTest {
    private static final Filter EVERY_CALL =
            new Filter(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());

    @TempDir
    Path temp;

    private Database open(Dialect dialect) {
        return dialect == Dialect.SQLITE
                ? Database.openSqlite(temp.resolve("arbor.db"))
                : Database.openPostgres(TestPostgres.newDatabaseUrl());
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void aCallOlderThanTheRetentionIsPrunedAndAYoungerOneIsKept(Dialect dialect) {
        var clock = MovableClock.stoppedAt(Instant.parse("2026-11-01T00:00:00Z"));
        try (Database database = open(dialect)) {
            var store = new CallStore(database);
            var audit = new CallAudit(store, new SimpleMeterRegistry(), Duration.ofDays(30), clock);
            audit.ended(
                    audit.start("p1", "tok_1", "agent", "gw_1", "g__old", Json.object()), Outcome.OK, Optional.empty());
            clock.advance(Duration.ofDays(20));
            audit.ended(
                    audit.start("p1", "tok_1", "agent", "gw_1", "g__young", Json.object()),
                    Outcome.FAILED,
                    Optional.of("gone"));
            clock.advance(Duration.ofDays(11));

            assertThat(audit.prune()).isEqualTo(1);

            assertThat(store.list(new Page(10, Optional.empty(), Optional.empty()), EVERY_CALL)
                            .items())
                    .singleElement()
                    .satisfies(call -> {
                        assertThat(call.tool()).isEqualTo("g__young");
                        assertThat(call.outcome()).isEqualTo(Outcome.FAILED);
                        assertThat(call.error()).contains("gone");
                    });
        }
    }
}
