package dev.arbor.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** The real time plus an offset a test moves forward, to see what a day or a month does. */
public final class MovableClock extends Clock {
    private final AtomicLong offsetMillis = new AtomicLong();

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
        return System.currentTimeMillis() + offsetMillis.get();
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis());
    }
}
