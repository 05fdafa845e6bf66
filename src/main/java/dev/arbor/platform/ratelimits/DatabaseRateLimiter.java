package dev.arbor.platform.ratelimits;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.db.Database;
import io.github.bucket4j.TimeMeter;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.jdbc.PrimaryKeyMapper;
import io.github.bucket4j.postgresql.Bucket4jPostgreSQL;
import io.github.bucket4j.postgresql.PostgreSQLSelectForUpdateBasedProxyManager;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Buckets in PostgreSQL's {@code rate_limit_buckets}, shared by every server on the database: each take locks the
 * bucket's row ({@code SELECT ... FOR UPDATE}), so two servers never both spend its last request. A row expires once
 * its bucket would be full again, and expired rows are removed now and then, off the request's path.
 */
final class DatabaseRateLimiter implements RateLimiter {
    private static final Logger LOG = LoggerFactory.getLogger(DatabaseRateLimiter.class);
    /** Row ids longer than this are hashed: a key from a header may be long, and an index entry may not. */
    private static final int LONGEST_ID = 200;

    private static final long CLEAN_EVERY_NANOS = Duration.ofMinutes(1).toNanos();
    private static final int CLEAN_BATCH = 1_000;

    private final TimeMeter time;
    private final PostgreSQLSelectForUpdateBasedProxyManager<String> buckets;
    private final AtomicLong nextCleanNanos;

    DatabaseRateLimiter(Database database, TimeMeter time) {
        this.time = requireNonNull(time, "time");
        this.buckets = Bucket4jPostgreSQL.selectForUpdateBasedBuilder(
                        requireNonNull(database, "database").dataSource())
                .primaryKeyMapper(PrimaryKeyMapper.STRING)
                .table("rate_limit_buckets")
                .idColumn("id")
                .stateColumn("state")
                .expiresAtColumn("expires_at")
                .clientClock(time)
                .expirationAfterWrite(
                        ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
                .build();
        this.nextCleanNanos = new AtomicLong(time.currentTimeNanos() + CLEAN_EVERY_NANOS);
    }

    @Override
    public Verdict take(String key, Limit limit) {
        requireNonNull(key, "key");
        requireNonNull(limit, "limit");
        cleanNowAndThen();
        try {
            return Buckets.verdict(
                    limit,
                    buckets.builder()
                            .build(id(Buckets.name(key, limit)), () -> Buckets.configuration(limit))
                            .tryConsumeAndReturnRemaining(1));
        } catch (RuntimeException e) {
            throw Database.unavailableOr(e);
        }
    }

    @Override
    public void spend(String key, Limit limit, long amount) {
        requireNonNull(key, "key");
        requireNonNull(limit, "limit");
        if (amount <= 0) {
            return;
        }
        try {
            var _ = buckets.builder()
                    .build(id(Buckets.name(key, limit)), () -> Buckets.configuration(limit))
                    .consumeIgnoringRateLimits(amount);
        } catch (RuntimeException e) {
            throw Database.unavailableOr(e);
        }
    }

    private void cleanNowAndThen() {
        long now = time.currentTimeNanos();
        long due = nextCleanNanos.get();
        if (now < due || !nextCleanNanos.compareAndSet(due, now + CLEAN_EVERY_NANOS)) {
            return;
        }
        Thread.ofVirtual().name("arbor-rate-limit-clean").start(() -> {
            try {
                buckets.removeExpired(CLEAN_BATCH);
            } catch (RuntimeException e) {
                LOG.warn("could not remove expired rate limit buckets: {}", e.toString());
            }
        });
    }

    private static String id(String name) {
        if (name.length() <= LONGEST_ID) {
            return name;
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
            return "sha256:" + HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
