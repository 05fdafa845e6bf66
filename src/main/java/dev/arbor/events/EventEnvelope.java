package dev.arbor.events;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.json.Json;
import java.time.Instant;
import java.util.List;

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

    /** The envelope's fields as JSON names them: a path into an event (a filter, a correlation key) starts there. */
    public static final List<String> FIELDS =
            List.of("id", "provider", "type", "occurred_at", "connection_id", "payload");

    @Override
    public JsonNode payload() {
        return payload.deepCopy();
    }

    /**
     * The one JSON shape of an event: what the delivery log shows, what filters are rooted at, what a pipeline run
     * reads as {@code event} and what a URL target receives.
     */
    public ObjectNode toJson() {
        ObjectNode json = Json.object()
                .put("id", id)
                .put("provider", provider)
                .put("type", type)
                .put("occurred_at", occurredAt.getEpochSecond())
                .put("connection_id", connectionId);
        json.set("payload", payload.deepCopy());
        return json;
    }
}
