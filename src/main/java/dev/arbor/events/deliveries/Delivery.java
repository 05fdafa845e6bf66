package dev.arbor.events.deliveries;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.events.EventEnvelope;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * One request to a connection's webhook URL that was not a handshake, as the delivery log keeps it.
 *
 * @param type the event type: present when accepted
 * @param listedType whether the descriptor lists the type (an unlisted one is kept, but no trigger subscribes to it)
 * @param duplicates how many times the provider sent this delivery id again (never dispatched again)
 * @param signature {@code {valid, reason, detail, secret}}: what checking the signature found
 * @param headers as received, secret-bearing ones masked
 * @param payload the event's payload: present when accepted
 * @param body what a refused or unreadable delivery sent, masked and cut
 * @param pendingRound the dispatch round waiting (0 the delivery itself, then one per replay)
 * @param rounds how many rounds were dispatched
 * @param error why an unreadable delivery could not be read, or why the last dispatch of an accepted one failed
 * @param truncatedFrom how many bytes the body sent had, when {@code body} keeps only a prefix of it
 */
record Delivery(
        String id,
        String connectionId,
        String provider,
        Status status,
        Optional<String> type,
        boolean listedType,
        Optional<String> providerDeliveryId,
        int duplicates,
        Optional<Instant> lastDuplicateAt,
        ObjectNode signature,
        ObjectNode headers,
        Optional<JsonNode> payload,
        Optional<String> body,
        Instant occurredAt,
        Instant receivedAt,
        OptionalInt pendingRound,
        int rounds,
        Optional<Instant> dispatchedAt,
        Optional<String> error,
        OptionalLong truncatedFrom) {
    Delivery {
        requireNonNull(id, "id");
        requireNonNull(connectionId, "connectionId");
        requireNonNull(provider, "provider");
        requireNonNull(status, "status");
        requireNonNull(type, "type");
        requireNonNull(providerDeliveryId, "providerDeliveryId");
        requireNonNull(lastDuplicateAt, "lastDuplicateAt");
        signature = signature.deepCopy();
        headers = headers.deepCopy();
        payload = payload.map(JsonNode::deepCopy);
        requireNonNull(body, "body");
        requireNonNull(occurredAt, "occurredAt");
        requireNonNull(receivedAt, "receivedAt");
        requireNonNull(pendingRound, "pendingRound");
        requireNonNull(dispatchedAt, "dispatchedAt");
        requireNonNull(error, "error");
        requireNonNull(truncatedFrom, "truncatedFrom");
    }

    enum Status {
        /** Its signature holds and its event was read: dispatched to the triggers. */
        ACCEPTED,
        /** Its signature failed (bad, missing, or a timestamp outside the provider's tolerance): never processed. */
        REFUSED,
        /** Signed, but its body or event type could not be read: never processed. */
        UNREADABLE;

        String json() {
            return name().toLowerCase(Locale.ROOT);
        }

        static Optional<Status> of(String text) {
            for (Status status : values()) {
                if (status.json().equals(text)) {
                    return Optional.of(status);
                }
            }
            return Optional.empty();
        }
    }

    /** The event it carried, when accepted. */
    Optional<EventEnvelope> event() {
        return status == Status.ACCEPTED
                ? Optional.of(new EventEnvelope(
                        id, provider, type.orElseThrow(), occurredAt, connectionId, payload.orElseThrow()))
                : Optional.empty();
    }

    @Override
    public ObjectNode signature() {
        return signature.deepCopy();
    }

    @Override
    public ObjectNode headers() {
        return headers.deepCopy();
    }

    @Override
    public Optional<JsonNode> payload() {
        return payload.map(JsonNode::deepCopy);
    }
}
