package dev.arbor.events.providers;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What a request to a connection's webhook URL turned out to be once read with the connection's secrets and its
 * provider's rules. Headers and bodies here are what the delivery log may keep: every secret-bearing header and every
 * copy of a secret in the body is masked.
 */
public sealed interface HookReading {
    String connectionId();

    String provider();

    /** A provider checking the URL (Slack's url_verification, GitHub's ping): answered with 200 and this reply. */
    record Handshake(String connectionId, String provider, String contentType, String reply) implements HookReading {
        public Handshake {
            requireNonNull(connectionId, "connectionId");
            requireNonNull(provider, "provider");
            requireNonNull(contentType, "contentType");
            requireNonNull(reply, "reply");
        }
    }

    /**
     * What the log keeps of a refused or unreadable delivery's body: its text, masked, whole or a prefix.
     *
     * @param truncatedFrom how many bytes were sent, when {@code text} is only a prefix of them
     */
    record KeptBody(String text, OptionalLong truncatedFrom) {
        public KeptBody {
            requireNonNull(text, "text");
            requireNonNull(truncatedFrom, "truncatedFrom");
        }
    }

    /**
     * A delivery whose signature failed: recorded, never processed.
     *
     * @param reason why, in snake case ({@code bad_signature}, {@code timestamp_outside_tolerance}, ...)
     * @param detail what was wrong, never a secret or a computed signature
     */
    record Refused(
            String connectionId,
            String provider,
            Map<String, List<String>> headers,
            KeptBody body,
            String reason,
            String detail)
            implements HookReading {
        public Refused {
            requireNonNull(connectionId, "connectionId");
            requireNonNull(provider, "provider");
            headers = Map.copyOf(headers);
            requireNonNull(body, "body");
            requireNonNull(reason, "reason");
            requireNonNull(detail, "detail");
        }
    }

    /** A delivery signed with the connection's secret whose body or event type cannot be read: recorded, not processed. */
    record Unreadable(
            String connectionId,
            String provider,
            Map<String, List<String>> headers,
            KeptBody body,
            String detail,
            boolean previousSecret)
            implements HookReading {
        public Unreadable {
            requireNonNull(connectionId, "connectionId");
            requireNonNull(provider, "provider");
            headers = Map.copyOf(headers);
            requireNonNull(body, "body");
            requireNonNull(detail, "detail");
        }
    }

    /**
     * A delivery whose signature holds, read into the envelope's parts.
     *
     * @param type the event type in the descriptor's vocabulary, or the provider's own where the descriptor does not
     *     list it ({@code listedType} false: no trigger can subscribe to it)
     * @param providerDeliveryId the provider's id of the delivery, which a retry of it keeps
     * @param previousSecret whether the secret a rotation replaced signed it (during the grace window)
     */
    record Verified(
            String connectionId,
            String provider,
            Map<String, List<String>> headers,
            JsonNode payload,
            String type,
            boolean listedType,
            Optional<String> providerDeliveryId,
            Optional<Instant> occurredAt,
            boolean previousSecret)
            implements HookReading {
        public Verified {
            requireNonNull(connectionId, "connectionId");
            requireNonNull(provider, "provider");
            headers = Map.copyOf(headers);
            payload = payload.deepCopy();
            requireNonNull(type, "type");
            requireNonNull(providerDeliveryId, "providerDeliveryId");
            requireNonNull(occurredAt, "occurredAt");
        }

        @Override
        public JsonNode payload() {
            return payload.deepCopy();
        }
    }
}
