package dev.arbor.events.deliveries;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.events.EventSubscribers.Firing;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** Deliveries as the API shows them. */
final class DeliveryViews {
    private DeliveryViews() {}

    /** A delivery in a list (and the head of one read alone). */
    record Summary(
            String id,
            String object,
            @JsonProperty("connection_id") String connectionId,
            String provider,
            String status,
            @Nullable String type,
            @JsonProperty("listed_type") boolean listedType,
            @JsonProperty("provider_delivery_id") @Nullable String providerDeliveryId,
            int duplicates,
            @JsonProperty("last_duplicate_at") @Nullable Long lastDuplicateAt,
            ObjectNode signature,
            Dispatch dispatch,
            @JsonProperty("occurred_at") long occurredAt,
            @JsonProperty("received_at") long receivedAt) {
        static Summary of(Delivery delivery) {
            boolean accepted = delivery.status() == Delivery.Status.ACCEPTED;
            return new Summary(
                    delivery.id(),
                    "event.delivery",
                    delivery.connectionId(),
                    delivery.provider(),
                    delivery.status().json(),
                    delivery.type().orElse(null),
                    delivery.listedType(),
                    delivery.providerDeliveryId().orElse(null),
                    delivery.duplicates(),
                    seconds(delivery.lastDuplicateAt()),
                    delivery.signature(),
                    new Dispatch(
                            !accepted ? "never" : delivery.pendingRound().isPresent() ? "waiting" : "dispatched",
                            delivery.rounds(),
                            seconds(delivery.dispatchedAt()),
                            accepted ? delivery.error().orElse(null) : null),
                    delivery.occurredAt().getEpochSecond(),
                    delivery.receivedAt().getEpochSecond());
        }
    }

    /** Whether and when an accepted delivery went to the triggers. */
    record Dispatch(
            String status,
            int rounds,
            @JsonProperty("dispatched_at") @Nullable Long dispatchedAt,
            @Nullable String error) {}

    /** A delivery read alone: what it was (headers masked), what it became, what it fired, what went wrong. */
    record Detail(
            @JsonUnwrapped Summary summary,
            ObjectNode headers,
            @Nullable JsonNode payload,
            @Nullable String body,
            @JsonProperty("body_truncated") boolean bodyTruncated,
            @JsonProperty("body_bytes") @Nullable Long bodyBytes,
            @Nullable ObjectNode event,
            List<FiringView> firings,
            List<Problem> errors) {
        static Detail of(Delivery delivery, List<Firing> firings) {
            return new Detail(
                    Summary.of(delivery),
                    delivery.headers(),
                    delivery.payload().orElse(null),
                    delivery.body().orElse(null),
                    delivery.truncatedFrom().isPresent(),
                    delivery.truncatedFrom().isPresent()
                            ? delivery.truncatedFrom().getAsLong()
                            : null,
                    delivery.event().map(e -> e.toJson()).orElse(null),
                    firings.stream().map(FiringView::of).toList(),
                    DeliveryViews.errors(delivery));
        }
    }

    /** What a delivery started in one trigger. */
    record FiringView(
            @JsonProperty("trigger_id") String triggerId,
            int round,
            String status,
            @JsonProperty("run_id") @Nullable String runId,
            @Nullable String error,
            @JsonProperty("fired_at") long firedAt) {
        static FiringView of(Firing firing) {
            return new FiringView(
                    firing.triggerId(),
                    firing.round(),
                    firing.status().name().toLowerCase(Locale.ROOT),
                    firing.runId().orElse(null),
                    firing.error().orElse(null),
                    firing.firedAt().getEpochSecond());
        }
    }

    /** Something that went wrong with a delivery, at a stage: signature, reading or dispatch. */
    record Problem(String stage, String message) {}

    private static List<Problem> errors(Delivery delivery) {
        var errors = new ArrayList<Problem>();
        if (delivery.status() == Delivery.Status.REFUSED) {
            errors.add(
                    new Problem("signature", delivery.signature().path("detail").asText("")));
        }
        delivery.error()
                .ifPresent(error -> errors.add(
                        new Problem(delivery.status() == Delivery.Status.UNREADABLE ? "reading" : "dispatch", error)));
        return errors;
    }

    private static @Nullable Long seconds(Optional<Instant> at) {
        return at.map(Instant::getEpochSecond).orElse(null);
    }
}
