package dev.arbor.triggers;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.events.EventEnvelope;
import dev.arbor.platform.http.Json;
import java.util.List;

/**
 * An event as JSON, the one shape triggers show it in: what filters and correlation keys are rooted at, what a
 * pipeline run reads as {@code event} and what a URL target receives.
 */
final class Envelope {
    /** The envelope's fields: a path into an event starts with one of them. */
    static final List<String> FIELDS = List.of("id", "provider", "type", "occurred_at", "connection_id", "payload");

    private Envelope() {}

    static ObjectNode json(EventEnvelope event) {
        ObjectNode json = Json.object()
                .put("id", event.id())
                .put("provider", event.provider())
                .put("type", event.type())
                .put("occurred_at", event.occurredAt().getEpochSecond())
                .put("connection_id", event.connectionId());
        json.set("payload", event.payload());
        return json;
    }
}
