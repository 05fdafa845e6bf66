package dev.arbor.events.providers;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.json.Json;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * How one provider's deliveries are read, as its descriptor states it: the body's format, the signature scheme (and,
 * for a provider that signs a time inside the payload, how fresh it must be), where the event type, the delivery id and
 * the event's time come from, and which registration handshake it answers.
 */
public record DeliveryRules(
        PayloadFormat format,
        SignatureScheme signature,
        Optional<Freshness> freshness,
        EventTypeRule eventType,
        Optional<ValueSource> deliveryId,
        Optional<OccurredAt> occurredAt,
        Handshake handshake) {
    public DeliveryRules {
        requireNonNull(format, "format");
        requireNonNull(signature, "signature");
        requireNonNull(freshness, "freshness");
        requireNonNull(eventType, "eventType");
        requireNonNull(deliveryId, "deliveryId");
        requireNonNull(occurredAt, "occurredAt");
        requireNonNull(handshake, "handshake");
    }

    /** How the body is written: JSON, or form fields (Twilio), read as an object of strings. */
    enum PayloadFormat {
        JSON,
        FORM;

        /** The payload the rules read; a body that is not of the format is an {@link IllegalArgumentException}. */
        JsonNode payload(InboundRequest request) {
            if (this == JSON) {
                JsonNode payload;
                try {
                    payload = Json.read(request.body());
                } catch (UncheckedIOException e) {
                    throw new IllegalArgumentException("the body is not JSON", e);
                }
                if (!payload.isContainerNode()) {
                    throw new IllegalArgumentException("the body is not a JSON object or array");
                }
                return payload;
            }
            ObjectNode fields = Json.object();
            for (InboundRequest.FormField field : request.formFields()) {
                if (!fields.has(field.name())) {
                    fields.put(field.name(), field.value());
                }
            }
            return fields;
        }
    }

    /** A value read from a delivery: a header, a payload path, or (in a type rule) fixed text. */
    sealed interface ValueSource {
        Optional<String> read(InboundRequest request, JsonNode payload);

        record Header(String name) implements ValueSource {
            public Header {
                requireNonNull(name, "name");
            }

            @Override
            public Optional<String> read(InboundRequest request, JsonNode payload) {
                return request.header(name).map(String::strip).filter(v -> !v.isEmpty());
            }
        }

        record Path(PayloadPath path) implements ValueSource {
            public Path {
                requireNonNull(path, "path");
            }

            @Override
            public Optional<String> read(InboundRequest request, JsonNode payload) {
                return path.readText(payload).filter(v -> !v.isEmpty());
            }
        }

        record Literal(String text) implements ValueSource {
            public Literal {
                requireNonNull(text, "text");
            }

            @Override
            public Optional<String> read(InboundRequest request, JsonNode payload) {
                return Optional.of(text);
            }
        }
    }

    /**
     * The event type in the descriptor's vocabulary: its parts' values joined by dots, an optional part that is absent
     * left out (GitHub: the {@code X-GitHub-Event} header, then {@code $.action} where there is one, so
     * {@code issues.opened} but {@code push}).
     */
    record EventTypeRule(List<Part> parts) {
        record Part(ValueSource source, boolean optional) {
            Part {
                requireNonNull(source, "source");
            }
        }

        EventTypeRule {
            parts = List.copyOf(parts);
            if (parts.isEmpty()) {
                throw new IllegalArgumentException("a type rule has at least one part");
            }
        }

        /** The delivery's event type; empty when a part that is not optional is absent. */
        Optional<String> typeOf(InboundRequest request, JsonNode payload) {
            var values = new ArrayList<String>();
            for (Part part : parts) {
                Optional<String> value = part.source().read(request, payload);
                if (value.isPresent()) {
                    values.add(value.get());
                } else if (!part.optional()) {
                    return Optional.empty();
                }
            }
            return Optional.of(String.join(".", values));
        }
    }

    /** How a provider writes the event's time. */
    enum TimeFormat {
        UNIX_SECONDS,
        UNIX_MILLIS,
        ISO_8601
    }

    /** Where the time the event happened comes from. */
    record OccurredAt(ValueSource source, TimeFormat format) {
        OccurredAt {
            requireNonNull(source, "source");
            requireNonNull(format, "format");
        }

        /** The time, when the delivery states one that can be read. */
        Optional<Instant> read(InboundRequest request, JsonNode payload) {
            return source.read(request, payload).flatMap(text -> {
                try {
                    return Optional.of(
                            switch (format) {
                                case UNIX_SECONDS -> Instant.ofEpochSecond(Long.parseLong(text));
                                case UNIX_MILLIS -> Instant.ofEpochMilli(Long.parseLong(text));
                                case ISO_8601 -> Instant.parse(text);
                            });
                } catch (NumberFormatException | DateTimeException e) {
                    return Optional.empty();
                }
            });
        }
    }

    /**
     * A signed time in the payload that must be within {@code tolerance} of now (Linear's {@code webhookTimestamp}): a
     * replayed delivery keeps a valid signature, but not a recent time.
     */
    record Freshness(OccurredAt time, Duration tolerance) {
        Freshness {
            requireNonNull(time, "time");
            requireNonNull(tolerance, "tolerance");
        }
    }

    /** Checks the signature with the secrets given, then the signed time where the provider has one. */
    Verification verify(InboundRequest request, List<SigningSecret> secrets, Clock clock) {
        Verification verification = signature.verify(request, secrets, clock);
        if (!(verification instanceof Verification.Valid) || freshness.isEmpty()) {
            return verification;
        }
        String where = switch (freshness.get().time().source()) {
            case ValueSource.Header header -> header.name();
            case ValueSource.Path path -> path.path().text();
            case ValueSource.Literal literal -> literal.text();
        };
        JsonNode payload;
        try {
            payload = format.payload(request);
        } catch (IllegalArgumentException e) {
            return Verification.malformed(where, "cannot be read from a body that is not " + format.name());
        }
        Optional<Instant> at = freshness.get().time().read(request, payload);
        if (at.isEmpty()) {
            return Verification.missing(where);
        }
        Duration off = Duration.between(at.get(), clock.instant()).abs();
        return off.compareTo(freshness.get().tolerance()) > 0
                ? new Verification.Rejected(
                        Verification.Reason.TIMESTAMP_OUTSIDE_TOLERANCE,
                        "`" + where + "` is " + off.toSeconds() + " s from now; at most "
                                + freshness.get().tolerance().toSeconds() + " s is accepted.")
                : verification;
    }

    /** The delivery's id, which a repeated delivery keeps: empty when the provider sends none. */
    Optional<String> deliveryIdOf(InboundRequest request, JsonNode payload) {
        return deliveryId.flatMap(source -> source.read(request, payload));
    }

    /** The time the event happened, when the delivery states it. */
    Optional<Instant> occurredAtOf(InboundRequest request, JsonNode payload) {
        return occurredAt.flatMap(rule -> rule.read(request, payload));
    }
}
