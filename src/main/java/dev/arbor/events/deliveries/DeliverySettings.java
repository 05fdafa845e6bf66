package dev.arbor.events.deliveries;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * How much the delivery log keeps of what anyone who knows a webhook URL can send, and how often a delivery may be
 * replayed.
 *
 * @param refusedPerHour refused deliveries recorded per connection and clock hour; the others are only counted
 *     ({@code ARBOR_REFUSED_DELIVERIES_PER_HOUR}, 100 by default)
 * @param refusedBodyChars the most of a refused delivery's body recorded ({@code ARBOR_REFUSED_DELIVERY_BODY_CHARS},
 *     1024)
 * @param refusedRetention how long refused deliveries are kept ({@code ARBOR_REFUSED_DELIVERY_RETENTION_DAYS}, 7; the
 *     others are kept 30 days)
 * @param replaysPerMinute replays one caller may ask of one connection a minute
 *     ({@code ARBOR_DELIVERY_REPLAYS_PER_MINUTE}, 10)
 */
public record DeliverySettings(
        int refusedPerHour, int refusedBodyChars, Duration refusedRetention, int replaysPerMinute) {
    public static final DeliverySettings DEFAULT = new DeliverySettings(100, 1024, Duration.ofDays(7), 10);

    public DeliverySettings {
        requireNonNull(refusedRetention, "refusedRetention");
        if (refusedPerHour < 0 || refusedBodyChars < 0 || replaysPerMinute < 1) {
            throw new IllegalArgumentException("refused deliveries' limits are not negative, replays at least 1");
        }
    }
}
