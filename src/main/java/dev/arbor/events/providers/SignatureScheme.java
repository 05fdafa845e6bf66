package dev.arbor.events.providers;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.webhooks.StandardWebhookSignature;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * How a provider proves that a delivery is its own, one record per scheme the providers use. Each reads the raw body,
 * the headers and the URL, and tries every secret given (the current one first; during a rotation the previous one
 * too). Signatures and tokens are compared in constant time; a timestamped scheme refuses a timestamp further from the
 * clock's now than its tolerance, either way.
 */
public sealed interface SignatureScheme {
    /** The credential field of the descriptor that holds the secret. */
    String secretField();

    Verification verify(InboundRequest request, List<SigningSecret> secrets, Clock clock);

    /** How a signature is written: hex (either case) or standard base64. */
    enum Encoding {
        HEX,
        BASE64;

        Optional<byte[]> decode(String text) {
            try {
                return Optional.of(
                        this == HEX
                                ? HexFormat.of().parseHex(text.strip())
                                : Base64.getDecoder().decode(text.strip()));
            } catch (IllegalArgumentException e) {
                return Optional.empty();
            }
        }
    }

    /**
     * HMAC-SHA256 of the body alone (GitHub, Bitbucket, Jira, Linear, Sentry, PagerDuty, Shopify, Typeform, CircleCI).
     * The header may hold several signatures separated by commas (PagerDuty during a secret change); those that start
     * with {@code prefix} are the candidates.
     */
    record BodyHmac(String secretField, String header, String prefix, Encoding encoding) implements SignatureScheme {
        public BodyHmac {
            requireNonNull(secretField, "secretField");
            requireNonNull(header, "header");
            requireNonNull(prefix, "prefix");
            requireNonNull(encoding, "encoding");
        }

        @Override
        public Verification verify(InboundRequest request, List<SigningSecret> secrets, Clock clock) {
            Optional<String> value = request.header(header);
            if (value.isEmpty()) {
                return Verification.missing(header);
            }
            var candidates = new ArrayList<byte[]>();
            for (String entry : value.get().split(",")) {
                String trimmed = entry.strip();
                if (trimmed.startsWith(prefix)) {
                    encoding.decode(trimmed.substring(prefix.length())).ifPresent(candidates::add);
                }
            }
            if (candidates.isEmpty()) {
                return Verification.malformed(header, "holds no signature of the form " + prefix + "<signature>");
            }
            return matching(secrets, candidates, header, secret -> hmacSha256(secret.getBytes(), request.body()));
        }
    }

    /**
     * {@code t=<unix seconds>,v1=<hex>} over {@code <t>.<body>} (Stripe, Calendly); several {@code v1} values may be
     * sent, and other versions are ignored.
     */
    record TimestampedHmac(String secretField, String header, Duration tolerance) implements SignatureScheme {
        public TimestampedHmac {
            requireNonNull(secretField, "secretField");
            requireNonNull(header, "header");
            requireNonNull(tolerance, "tolerance");
        }

        @Override
        public Verification verify(InboundRequest request, List<SigningSecret> secrets, Clock clock) {
            Optional<String> value = request.header(header);
            if (value.isEmpty()) {
                return Verification.missing(header);
            }
            String timestamp = null;
            var candidates = new ArrayList<byte[]>();
            for (String entry : value.get().split(",")) {
                String trimmed = entry.strip();
                if (trimmed.startsWith("t=")) {
                    timestamp = trimmed.substring(2);
                } else if (trimmed.startsWith("v1=")) {
                    Encoding.HEX.decode(trimmed.substring(3)).ifPresent(candidates::add);
                }
            }
            Optional<Instant> at = epochSeconds(timestamp);
            if (at.isEmpty()) {
                return Verification.malformed(header, "has no t=<unix seconds> timestamp");
            }
            if (candidates.isEmpty()) {
                return Verification.malformed(header, "has no v1 signature");
            }
            Optional<Verification> late = outside(at.get(), tolerance, clock, header);
            if (late.isPresent()) {
                return late.get();
            }
            byte[] signed = concat(ascii(timestamp + "."), request.body());
            return matching(secrets, candidates, header, secret -> hmacSha256(secret.getBytes(), signed));
        }
    }

    /**
     * A signature in one header over a timestamp in another and the body, the timestamp within {@code tolerance} of
     * now either way; the layout says how the timestamp, the signature and what it signs are written.
     */
    record TimestampHeaderHmac(
            String secretField, String signatureHeader, String timestampHeader, Duration tolerance, Layout layout)
            implements SignatureScheme {
        enum Layout {
            /** Slack: {@code v0=<hex>} of {@code v0:<unix seconds>:<body>}. */
            SLACK_V0,
            /** Zendesk: base64 of the timestamp header's text (an ISO-8601 time) followed by the body. */
            TIMESTAMP_FIRST;

            Optional<Instant> time(String text) {
                if (this == SLACK_V0) {
                    return epochSeconds(text);
                }
                try {
                    return Optional.of(Instant.parse(text.strip()));
                } catch (DateTimeException e) {
                    return Optional.empty();
                }
            }

            String timeRefusal() {
                return this == SLACK_V0 ? "is not a time in unix seconds" : "is not an ISO-8601 time";
            }

            Optional<byte[]> signature(String text) {
                if (this == TIMESTAMP_FIRST) {
                    return Encoding.BASE64.decode(text);
                }
                String stripped = text.strip();
                return stripped.startsWith("v0=") ? Encoding.HEX.decode(stripped.substring(3)) : Optional.empty();
            }

            String signatureRefusal() {
                return this == SLACK_V0 ? "is not v0=<hex>" : "is not base64";
            }

            byte[] signed(String timestamp, byte[] body) {
                return this == SLACK_V0
                        ? concat(ascii("v0:" + timestamp.strip() + ":"), body)
                        : concat(timestamp.getBytes(StandardCharsets.UTF_8), body);
            }
        }

        public TimestampHeaderHmac {
            requireNonNull(secretField, "secretField");
            requireNonNull(signatureHeader, "signatureHeader");
            requireNonNull(timestampHeader, "timestampHeader");
            requireNonNull(tolerance, "tolerance");
            requireNonNull(layout, "layout");
        }

        @Override
        public Verification verify(InboundRequest request, List<SigningSecret> secrets, Clock clock) {
            Optional<String> timestamp = request.header(timestampHeader);
            if (timestamp.isEmpty()) {
                return Verification.missing(timestampHeader);
            }
            Optional<String> signature = request.header(signatureHeader);
            if (signature.isEmpty()) {
                return Verification.missing(signatureHeader);
            }
            Optional<Instant> at = layout.time(timestamp.get());
            if (at.isEmpty()) {
                return Verification.malformed(timestampHeader, layout.timeRefusal());
            }
            Optional<byte[]> candidate = layout.signature(signature.get());
            if (candidate.isEmpty()) {
                return Verification.malformed(signatureHeader, layout.signatureRefusal());
            }
            Optional<Verification> late = outside(at.get(), tolerance, clock, timestampHeader);
            if (late.isPresent()) {
                return late.get();
            }
            byte[] signed = layout.signed(timestamp.get(), request.body());
            return matching(
                    secrets,
                    List.of(candidate.get()),
                    signatureHeader,
                    secret -> hmacSha256(secret.getBytes(), signed));
        }
    }

    /**
     * Standard Webhooks (and Svix, the same with {@code svix-} headers): {@code v1,<base64>} entries, separated by
     * spaces, of HMAC-SHA256 over {@code <id>.<timestamp>.<body>}; the secret is base64, with or without its
     * {@code whsec_} prefix.
     */
    record StandardWebhooks(
            String secretField, String idHeader, String timestampHeader, String signatureHeader, Duration tolerance)
            implements SignatureScheme {
        public StandardWebhooks {
            requireNonNull(secretField, "secretField");
            requireNonNull(idHeader, "idHeader");
            requireNonNull(timestampHeader, "timestampHeader");
            requireNonNull(signatureHeader, "signatureHeader");
            requireNonNull(tolerance, "tolerance");
        }

        @Override
        public Verification verify(InboundRequest request, List<SigningSecret> secrets, Clock clock) {
            for (String header : List.of(idHeader, timestampHeader, signatureHeader)) {
                if (request.header(header).isEmpty()) {
                    return Verification.missing(header);
                }
            }
            String id = request.header(idHeader).orElseThrow().strip();
            String timestamp = request.header(timestampHeader).orElseThrow().strip();
            Optional<Instant> at = epochSeconds(timestamp);
            if (at.isEmpty()) {
                return Verification.malformed(timestampHeader, "is not a time in unix seconds");
            }
            List<byte[]> candidates = StandardWebhookSignature.candidates(
                    request.header(signatureHeader).orElseThrow());
            if (candidates.isEmpty()) {
                return Verification.malformed(signatureHeader, "has no v1 signature");
            }
            Optional<Verification> late = outside(at.get(), tolerance, clock, timestampHeader);
            if (late.isPresent()) {
                return late.get();
            }
            return matching(
                    secrets,
                    candidates,
                    signatureHeader,
                    secret -> StandardWebhookSignature.key(secret.value())
                            .map(key -> StandardWebhookSignature.signature(key, id, timestamp, request.body()))
                            // a secret that is not base64 signs nothing: no delivery can match it
                            .orElse(new byte[0]));
        }
    }

    /**
     * A token the provider sends as it is, compared with the secret (GitLab's {@code X-Gitlab-Token}; an
     * {@code Authorization: Bearer} header for Alertmanager and Grafana): {@code prefix} is stripped first.
     */
    record SharedToken(String secretField, String header, String prefix) implements SignatureScheme {
        public SharedToken {
            requireNonNull(secretField, "secretField");
            requireNonNull(header, "header");
            requireNonNull(prefix, "prefix");
        }

        @Override
        public Verification verify(InboundRequest request, List<SigningSecret> secrets, Clock clock) {
            Optional<String> value = request.header(header);
            if (value.isEmpty()) {
                return Verification.missing(header);
            }
            if (!value.get().startsWith(prefix)) {
                return Verification.malformed(header, "does not start with '" + prefix.strip() + "'");
            }
            byte[] sent = value.get().substring(prefix.length()).getBytes(StandardCharsets.UTF_8);
            return matching(secrets, List.of(sent), header, SigningSecret::getBytes);
        }
    }

    /**
     * Twilio: base64 HMAC-SHA1, keyed with the account's auth token, of the full URL followed by every form field's
     * name and value, sorted by name.
     */
    record TwilioSignature(String secretField, String header) implements SignatureScheme {
        public TwilioSignature {
            requireNonNull(secretField, "secretField");
            requireNonNull(header, "header");
        }

        @Override
        public Verification verify(InboundRequest request, List<SigningSecret> secrets, Clock clock) {
            Optional<String> value = request.header(header);
            if (value.isEmpty()) {
                return Verification.missing(header);
            }
            Optional<byte[]> candidate = Encoding.BASE64.decode(value.get());
            if (candidate.isEmpty()) {
                return Verification.malformed(header, "is not base64");
            }
            var signed = new StringBuilder(request.url().toString());
            request.formFields().stream()
                    .sorted(Comparator.comparing(InboundRequest.FormField::name)
                            .thenComparing(InboundRequest.FormField::value))
                    .forEach(field -> signed.append(field.name()).append(field.value()));
            byte[] data = signed.toString().getBytes(StandardCharsets.UTF_8);
            return matching(
                    secrets, List.of(candidate.get()), header, secret -> hmac("HmacSHA1", secret.getBytes(), data));
        }
    }

    /**
     * Microsoft Graph change notifications: no signature, but each notification of the batch carries the
     * {@code clientState} the subscription was made with, which must be the secret.
     */
    record GraphClientState(String secretField) implements SignatureScheme {
        private static final String FIELD = "clientState";

        public GraphClientState {
            requireNonNull(secretField, "secretField");
        }

        @Override
        public Verification verify(InboundRequest request, List<SigningSecret> secrets, Clock clock) {
            JsonNode payload;
            try {
                payload = Json.read(request.body());
            } catch (RuntimeException e) {
                return Verification.malformed("value", "is not in a JSON body");
            }
            JsonNode notifications = payload.path("value");
            if (!notifications.isArray() || notifications.isEmpty()) {
                return Verification.missing("value");
            }
            int matched = -1;
            for (JsonNode notification : notifications) {
                if (!notification.path(FIELD).isTextual()) {
                    return Verification.missing(FIELD);
                }
                byte[] sent = notification.path(FIELD).textValue().getBytes(StandardCharsets.UTF_8);
                Verification one = matching(secrets, List.of(sent), FIELD, SigningSecret::getBytes);
                if (!(one instanceof Verification.Valid valid) || (matched >= 0 && valid.secretIndex() != matched)) {
                    return Verification.badSignature(FIELD);
                }
                matched = valid.secretIndex();
            }
            return new Verification.Valid(matched);
        }
    }

    /** What a secret makes of the delivery, to be compared with what was sent. */
    @FunctionalInterface
    interface Expected {
        byte[] of(SigningSecret secret);
    }

    private static Verification matching(
            List<SigningSecret> secrets, List<byte[]> candidates, String header, Expected expected) {
        for (int i = 0; i < secrets.size(); i++) {
            byte[] mine = expected.of(secrets.get(i));
            boolean match = false;
            // every candidate is compared, so the time taken says nothing of which one matched
            for (byte[] candidate : candidates) {
                match |= mine.length > 0 && MessageDigest.isEqual(mine, candidate);
            }
            if (match) {
                return new Verification.Valid(i);
            }
        }
        return Verification.badSignature(header);
    }

    private static Optional<Verification> outside(Instant at, Duration tolerance, Clock clock, String header) {
        Duration off = Duration.between(at, clock.instant()).abs();
        return off.compareTo(tolerance) > 0
                ? Optional.of(new Verification.Rejected(
                        Verification.Reason.TIMESTAMP_OUTSIDE_TOLERANCE,
                        "`" + header + "` is " + off.toSeconds() + " s from now; at most " + tolerance.toSeconds()
                                + " s is accepted."))
                : Optional.empty();
    }

    private static Optional<Instant> epochSeconds(@Nullable String text) {
        if (text == null || !text.strip().matches("\\d{1,12}")) {
            return Optional.empty();
        }
        return Optional.of(Instant.ofEpochSecond(Long.parseLong(text.strip())));
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] concat(byte[] first, byte[] second) {
        byte[] both = new byte[first.length + second.length];
        System.arraycopy(first, 0, both, 0, first.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        return both;
    }

    private static byte[] hmacSha256(byte[] key, byte[] data) {
        return hmac("HmacSHA256", key, data);
    }

    private static byte[] hmac(String algorithm, byte[] key, byte[] data) {
        if (key.length == 0) {
            return new byte[0];
        }
        try {
            Mac mac = Mac.getInstance(algorithm);
            mac.init(new SecretKeySpec(key, algorithm));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(algorithm + " is part of every JDK", e);
        }
    }
}
