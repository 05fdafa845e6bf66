package dev.arbor.events;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * One verified event in the one shape every provider's deliveries are normalised to. Triggers match it and pipeline
 * runs see it as {@code event}.
 *
 * @param id the id of the delivery that carried it (one delivery carries one event)
 * @param type the provider's event type in its descriptor's vocabulary ({@code issues.opened}, {@code invoice.paid})
 * @param occurredAt when the provider says it happened, or when it was received where the provider does not say
 * @param payload the provider's payload as it came
 */
public record EventEnvelope(
        String id, String provider, String type, Instant occurredAt, String connectionId, JsonNode payload) {
    public EventEnvelope {
        requireNonNull(id, "id");
        requireNonNull(provider, "provider");
        requireNonNull(type, "type");
        requireNonNull(occurredAt, "occurredAt");
        requireNonNull(connectionId, "connectionId");
        payload = payload.deepCopy();
    }

    @Override
    public JsonNode payload() {
        return payload.deepCopy();
    }
}
