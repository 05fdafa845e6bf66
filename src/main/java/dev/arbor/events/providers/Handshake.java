package dev.arbor.events.providers;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;

/**
 * A request a provider sends to check a webhook URL rather than to deliver an event, and what answers it. Such a
 * request starts no work.
 */
sealed interface Handshake {
    /** What the server answers a handshake with: 200 and this body. */
    record Reply(String contentType, String body) {
        public Reply {
            requireNonNull(contentType, "contentType");
            requireNonNull(body, "body");
        }
    }

    /** The handshake's answer when {@code request} is one; {@code payload} is empty for a request with no body. */
    Optional<Reply> detect(InboundRequest request, Optional<JsonNode> payload);

    /** Whether the provider sends it unsigned, so it is answered before the signature is checked. */
    boolean unsigned();

    /** The provider has no handshake. */
    record None() implements Handshake {
        @Override
        public Optional<Reply> detect(InboundRequest request, Optional<JsonNode> payload) {
            return Optional.empty();
        }

        @Override
        public boolean unsigned() {
            return false;
        }
    }

    /** A signed delivery whose header names a check, not an event (GitHub's {@code ping}); it is acknowledged. */
    record HeaderPing(String header, String value) implements Handshake {
        public HeaderPing {
            requireNonNull(header, "header");
            requireNonNull(value, "value");
        }

        @Override
        public Optional<Reply> detect(InboundRequest request, Optional<JsonNode> payload) {
            return request.header(header)
                    .filter(v -> v.strip().equals(value))
                    .map(v -> new Reply("application/json", "{\"ok\":true}"));
        }

        @Override
        public boolean unsigned() {
            return false;
        }
    }

    /**
     * A signed payload whose {@code when} field is {@code equals}, answered with the text at {@code challenge} (Slack's
     * {@code url_verification}).
     */
    record PayloadChallenge(PayloadPath when, String equals, PayloadPath challenge) implements Handshake {
        public PayloadChallenge {
            requireNonNull(when, "when");
            requireNonNull(equals, "equals");
            requireNonNull(challenge, "challenge");
        }

        @Override
        public Optional<Reply> detect(InboundRequest request, Optional<JsonNode> payload) {
            return payload.filter(p -> when.readText(p).filter(equals::equals).isPresent())
                    .flatMap(challenge::readText)
                    .map(text -> new Reply("text/plain", text));
        }

        @Override
        public boolean unsigned() {
            return false;
        }
    }

    /**
     * An unsigned request carrying a token in a query parameter, answered with the token as plain text (Microsoft
     * Graph's {@code validationToken} when a subscription is made).
     */
    record QueryToken(String param) implements Handshake {
        public QueryToken {
            requireNonNull(param, "param");
        }

        @Override
        public Optional<Reply> detect(InboundRequest request, Optional<JsonNode> payload) {
            return request.queryParam(param).map(token -> new Reply("text/plain", token));
        }

        @Override
        public boolean unsigned() {
            return true;
        }
    }
}
