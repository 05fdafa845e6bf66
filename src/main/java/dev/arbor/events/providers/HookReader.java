package dev.arbor.events.providers;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;

/**
 * Reads a request to a connection's webhook URL with the connection's secrets and its provider's rules: a handshake to
 * answer, a delivery to refuse, or an event. What it hands on is masked: a shared token's header, credentials'
 * headers, and any copy of a secret in the headers or the body.
 */
public final class HookReader {
    /**
     * The connection a webhook URL's token names, as reading its deliveries needs it.
     *
     * @param signingSecrets the secrets a delivery may be signed with now, given the descriptor's secret field: the
     *     current one first, then one a rotation replaced while its grace window lasts
     * @param hidden every secret value of the connection (current and replaced), masked wherever a delivery carries it
     */
    public record HookTarget(
            String connectionId,
            String provider,
            Function<String, List<SigningSecret>> signingSecrets,
            List<String> hidden) {
        public HookTarget {
            requireNonNull(connectionId, "connectionId");
            requireNonNull(provider, "provider");
            requireNonNull(signingSecrets, "signingSecrets");
            hidden = List.copyOf(hidden);
        }

        List<SigningSecret> signingSecrets(String secretField) {
            return signingSecrets.apply(secretField);
        }

        @Override
        public String toString() {
            return "HookTarget[" + connectionId + ", " + provider + ", secrets hidden]";
        }
    }

    static final String MASK = "[masked]";
    /** The most of a refused or unreadable body the log keeps: enough to see what was sent. */
    static final int KEPT_BODY_CHARS = 64 * 1024;

    private static final Set<String> CREDENTIAL_HEADERS = Set.of("authorization", "proxy-authorization", "cookie");

    private final EventCatalog catalog;
    private final Clock clock;
    private final int refusedBodyChars;

    /**
     * @param refusedBodyChars the most of a refused delivery's body kept: anyone who knows the URL can send one, so
     *     less than of an unreadable one, which was signed
     */
    public HookReader(EventCatalog catalog, Clock clock, int refusedBodyChars) {
        this.catalog = requireNonNull(catalog, "catalog");
        this.clock = requireNonNull(clock, "clock");
        this.refusedBodyChars = Math.min(refusedBodyChars, KEPT_BODY_CHARS);
    }

    /**
     * @param connection the connection the URL's token names
     * @param url the URL the provider called (the public one, query included): some providers sign it
     */
    public HookReading read(HookTarget connection, byte[] body, Map<String, List<String>> headers, URI url) {
        ProviderDescriptor descriptor = catalog.find(connection.provider())
                .orElseThrow(
                        () -> new IllegalStateException("provider gone from the catalog: " + connection.provider()));
        DeliveryRules rules = descriptor.delivery();
        var request = new InboundRequest(body, headers, url);
        Optional<JsonNode> payload = payload(rules, request);
        if (rules.handshake().unsigned()) {
            Optional<Handshake.Reply> reply = rules.handshake().detect(request, payload);
            if (reply.isPresent()) {
                return handshake(connection, reply.get());
            }
        }
        List<SigningSecret> secrets =
                connection.signingSecrets(rules.signature().secretField());
        var masking = new Masking(connection.hidden(), rules.signature());
        Verification verification = rules.verify(request, secrets, clock);
        if (verification instanceof Verification.Rejected rejected) {
            return new HookReading.Refused(
                    connection.connectionId(),
                    connection.provider(),
                    masking.headers(request.headers()),
                    masking.text(body, refusedBodyChars),
                    rejected.reason().name().toLowerCase(Locale.ROOT),
                    rejected.detail());
        }
        boolean previous = ((Verification.Valid) verification).secretIndex() > 0;
        Optional<Handshake.Reply> reply = rules.handshake().detect(request, payload);
        if (reply.isPresent()) {
            return handshake(connection, reply.get());
        }
        if (payload.isEmpty()) {
            return new HookReading.Unreadable(
                    connection.connectionId(),
                    connection.provider(),
                    masking.headers(request.headers()),
                    masking.text(body, KEPT_BODY_CHARS),
                    "The body is not "
                            + (rules.format() == DeliveryRules.PayloadFormat.JSON
                                    ? "a JSON object or array"
                                    : "form fields")
                            + ".",
                    previous);
        }
        Optional<String> type = rules.eventType().typeOf(request, payload.get());
        if (type.isEmpty()) {
            return new HookReading.Unreadable(
                    connection.connectionId(),
                    connection.provider(),
                    masking.headers(request.headers()),
                    masking.text(body, KEPT_BODY_CHARS),
                    "The delivery does not say its event type the way " + descriptor.name() + " does.",
                    previous);
        }
        return new HookReading.Verified(
                connection.connectionId(),
                connection.provider(),
                masking.headers(request.headers()),
                masking.json(payload.get()),
                type.get(),
                descriptor.eventType(type.get()).isPresent(),
                rules.deliveryIdOf(request, payload.get()),
                rules.occurredAtOf(request, payload.get()),
                previous);
    }

    private static HookReading handshake(HookTarget connection, Handshake.Reply reply) {
        return new HookReading.Handshake(
                connection.connectionId(), connection.provider(), reply.contentType(), reply.body());
    }

    private static Optional<JsonNode> payload(DeliveryRules rules, InboundRequest request) {
        try {
            return Optional.of(rules.format().payload(request));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** Hides the connection's secrets (current and previous) wherever a delivery carries them. */
    private static final class Masking {
        private final List<String> secrets = new ArrayList<>();
        private final Optional<String> tokenHeader;

        Masking(List<String> hidden, SignatureScheme scheme) {
            hidden.stream().filter(secret -> !secret.isEmpty()).forEach(secrets::add);
            this.tokenHeader = scheme instanceof SignatureScheme.SharedToken token
                    ? Optional.of(token.header().toLowerCase(Locale.ROOT))
                    : Optional.empty();
        }

        Map<String, List<String>> headers(Map<String, List<String>> headers) {
            var shown = new LinkedHashMap<String, List<String>>();
            headers.forEach((name, values) -> {
                String lower = name.toLowerCase(Locale.ROOT);
                boolean hidden = CREDENTIAL_HEADERS.contains(lower)
                        || tokenHeader.filter(lower::equals).isPresent();
                shown.put(
                        lower,
                        values.stream().map(v -> hidden ? MASK : masked(v)).toList());
            });
            return shown;
        }

        /**
         * The body's first {@code limit} characters, masked. A window as long again as the longest secret is masked
         * before the cut, so that a secret across the cut leaves no prefix of itself; and no more of the body than
         * the window needs is decoded.
         */
        HookReading.KeptBody text(byte[] body, int limit) {
            int window = limit + secrets.stream().mapToInt(String::length).max().orElse(0);
            int decoded = (int) Math.min(body.length, 4L * Math.max(window, 1));
            String text = new String(body, 0, decoded, StandardCharsets.UTF_8);
            String shown = masked(text.length() > window ? text.substring(0, window) : text);
            if (decoded == body.length && shown.length() <= limit) {
                return new HookReading.KeptBody(shown, OptionalLong.empty());
            }
            int end = Math.min(limit, shown.length());
            if (end > 0 && Character.isHighSurrogate(shown.charAt(end - 1))) {
                end--;
            }
            return new HookReading.KeptBody(shown.substring(0, end), OptionalLong.of(body.length));
        }

        JsonNode json(JsonNode payload) {
            JsonNode copy = payload.deepCopy();
            mask(copy);
            return copy;
        }

        private void mask(JsonNode node) {
            if (node instanceof ObjectNode object) {
                object.properties().forEach(e -> {
                    if (e.getValue().isTextual()) {
                        e.setValue(TextNode.valueOf(masked(e.getValue().textValue())));
                    } else {
                        mask(e.getValue());
                    }
                });
            } else if (node instanceof ArrayNode array) {
                for (int i = 0; i < array.size(); i++) {
                    if (array.get(i).isTextual()) {
                        array.set(i, TextNode.valueOf(masked(array.get(i).textValue())));
                    } else {
                        mask(array.get(i));
                    }
                }
            }
        }

        private String masked(String text) {
            String shown = text;
            for (String secret : secrets) {
                shown = shown.replace(secret, MASK);
            }
            return shown;
        }
    }
}
