package dev.arbor.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/** The real time plus an offset a test moves forward, to see what a day or a month does. */
public final class MovableClock extends Clock {
    private final AtomicLong offsetMillis = new AtomicLong();
    private final LongSupplier baseMillis;

    public MovableClock() {
        this(System::currentTimeMillis);
    }

    private MovableClock(LongSupplier baseMillis) {
        this.baseMillis = baseMillis;
    }

    /** A clock that stands still at {@code start} until the test moves it: what it shows depends on nothing else. */
    public static MovableClock stoppedAt(Instant start) {
        long startMillis = start.toEpochMilli();
        return new MovableClock(() -> startMillis);
    }

    public void advance(Duration by) {
        offsetMillis.addAndGet(by.toMillis());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("a movable clock stays in UTC");
    }

    @Override
    public long millis() {
        return baseMillis.getAsLong() + offsetMillis.get();
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis());
    }
}
