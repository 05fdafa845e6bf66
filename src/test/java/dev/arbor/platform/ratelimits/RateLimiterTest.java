package dev.arbor.platform.ratelimits;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.Dialect;
import dev.arbor.platform.ratelimits.RateLimiter.Algorithm;
import dev.arbor.platform.ratelimits.RateLimiter.Limit;
import dev.arbor.platform.ratelimits.RateLimiter.Verdict;
import dev.arbor.platform.ratelimits.RateLimiter.Window;
import dev.arbor.testing.MovableClock;
import dev.arbor.testing.TestPostgres;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The limiter on both stores, under a clock the test moves: in memory (SQLite) and in PostgreSQL's table, where two
 * servers' limiters share one bucket.
 */
class RateLimiterTest {
    private static final Limit THREE_A_MINUTE_SMOOTHLY = new Limit(Algorithm.TOKEN_BUCKET, 3, Window.MINUTE);
    private static final Limit THREE_A_MINUTE_AT_ONCE = new Limit(Algorithm.FIXED_WINDOW, 3, Window.MINUTE);

    @TempDir
    Path temp;

    private final MovableClock clock = MovableClock.stoppedAt(Instant.parse("2026-11-24T12:00:00Z"));
    private final List<Database> opened = new ArrayList<>();

    @AfterEach
    void close() {
        opened.forEach(Database::close);
    }

    private RateLimiter limiter(Dialect dialect) {
        Database database = dialect == Dialect.SQLITE
                ? Database.openSqlite(temp.resolve("arbor.db"))
                : Database.openPostgres(TestPostgres.newDatabaseUrl());
        opened.add(database);
        return RateLimiters.forDatabase(database, clock);
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void aTokenBucketLetsItsRequestsThroughThenRefillsOneEveryShareOfTheWindow(Dialect dialect) {
        RateLimiter limiter = limiter(dialect);

        List<Long> remaining = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Verdict verdict = limiter.take("caller", THREE_A_MINUTE_SMOOTHLY);
            assertThat(verdict.allowed()).isTrue();
            remaining.add(verdict.remaining());
        }
        Verdict refused = limiter.take("caller", THREE_A_MINUTE_SMOOTHLY);
        clock.advance(Duration.ofSeconds(20));
        Verdict refilled = limiter.take("caller", THREE_A_MINUTE_SMOOTHLY);
        Verdict emptyAgain = limiter.take("caller", THREE_A_MINUTE_SMOOTHLY);

        assertThat(remaining).containsExactly(2L, 1L, 0L);
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.limit()).isEqualTo(3);
        assertThat(refused.retryAfter()).isEqualTo(Duration.ofSeconds(20));
        assertThat(refused.reset()).isEqualTo(Duration.ofMinutes(1));
        assertThat(refilled.allowed()).isTrue();
        assertThat(refilled.retryAfter()).isZero();
        assertThat(emptyAgain.allowed()).isFalse();
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void aFixedWindowRefillsWholeOnlyWhenTheWindowEnds(Dialect dialect) {
        RateLimiter limiter = limiter(dialect);
        for (int i = 0; i < 3; i++) {
            assertThat(limiter.take("caller", THREE_A_MINUTE_AT_ONCE).allowed()).isTrue();
        }
        clock.advance(Duration.ofSeconds(40));

        Verdict stillRefused = limiter.take("caller", THREE_A_MINUTE_AT_ONCE);
        clock.advance(Duration.ofSeconds(20));
        List<Boolean> nextWindow = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            nextWindow.add(limiter.take("caller", THREE_A_MINUTE_AT_ONCE).allowed());
        }

        assertThat(stillRefused.allowed()).isFalse();
        assertThat(stillRefused.retryAfter()).isEqualTo(Duration.ofSeconds(20));
        assertThat(stillRefused.reset()).isEqualTo(Duration.ofSeconds(20));
        assertThat(nextWindow).containsExactly(true, true, true, false);
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void keysAreCountedApart(Dialect dialect) {
        RateLimiter limiter = limiter(dialect);
        var one = new Limit(Algorithm.FIXED_WINDOW, 1, Window.HOUR);

        assertThat(limiter.take("a", one).allowed()).isTrue();
        assertThat(limiter.take("b", one).allowed()).isTrue();
        assertThat(limiter.take("a", one).allowed()).isFalse();
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void aChangedLimitUnderTheSameKeyStartsABucketOfItsOwn(Dialect dialect) {
        RateLimiter limiter = limiter(dialect);
        var one = new Limit(Algorithm.FIXED_WINDOW, 1, Window.HOUR);
        limiter.take("deployment", one);

        Verdict raised = limiter.take("deployment", new Limit(Algorithm.FIXED_WINDOW, 5, Window.HOUR));

        assertThat(raised.allowed()).isTrue();
        assertThat(raised.remaining()).isEqualTo(4);
    }

    @Test
    void limitersOfTwoServersOnOnePostgresqlShareTheBucket() {
        String url = TestPostgres.newDatabaseUrl();
        var first = Database.openPostgres(url);
        var second = Database.openPostgres(url);
        opened.addAll(List.of(first, second));
        RateLimiter one = RateLimiters.forDatabase(first, clock);
        RateLimiter other = RateLimiters.forDatabase(second, clock);

        List<Boolean> allowed = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            allowed.add(one.take("shared", THREE_A_MINUTE_AT_ONCE).allowed());
            allowed.add(other.take("shared", THREE_A_MINUTE_AT_ONCE).allowed());
        }

        assertThat(allowed).containsExactly(true, true, true, false, false, false);
    }

    @Test
    void aKeyLongerThanAnIndexEntryIsStoredHashed() {
        RateLimiter limiter = limiter(Dialect.POSTGRESQL);
        var one = new Limit(Algorithm.FIXED_WINDOW, 1, Window.HOUR);
        String longKey = "header-value-".repeat(1_000);

        assertThat(limiter.take(longKey, one).allowed()).isTrue();
        assertThat(limiter.take(longKey, one).allowed()).isFalse();
        assertThat(limiter.take(longKey + "x", one).allowed()).isTrue();
    }

    @Test
    void memoryDropsEveryBucketIdleForAWholeWindowOnceItHoldsMany() {
        var limiter = new MemoryRateLimiter(Buckets.meter(clock));
        var limit = new Limit(Algorithm.TOKEN_BUCKET, 1, Window.SECOND);
        for (int i = 0; i <= MemoryRateLimiter.SWEEP_AT; i++) {
            limiter.take("idle-" + i, limit);
        }
        int held = limiter.size();
        clock.advance(Duration.ofSeconds(1));
        // the keys all busy at the first sweep doubled the next sweep's threshold: these many reach it
        int busy = 2 * MemoryRateLimiter.SWEEP_AT;
        for (int i = 0; i < busy; i++) {
            limiter.take("busy-" + i, limit);
        }

        assertThat(held).isEqualTo(MemoryRateLimiter.SWEEP_AT + 1);
        assertThat(limiter.size()).isEqualTo(busy);
    }
}
