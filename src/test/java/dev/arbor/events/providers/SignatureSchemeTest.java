package dev.arbor.events.providers;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.events.providers.Verification.Reason;
import dev.arbor.platform.json.Json;
import dev.arbor.testing.WebhookSigner;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every provider's signature scheme against deliveries signed the provider's way: by its own npm library where it
 * publishes one that signs (GitHub, Stripe, Standard Webhooks, Svix, Twilio), by its documentation's algorithm
 * elsewhere (sign-webhook.cjs). A valid delivery passes; a changed body, a wrong secret, a missing header and a stale
 * timestamp fail with their reason; during a rotation the previous secret still passes.
 */
class SignatureSchemeTest {
    private static final EventCatalog CATALOG = EventCatalog.load();
    private static final Instant NOW = Instant.ofEpochSecond(1_795_470_000L);
    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);
    private static final URI URL = URI.create("https://arbor.example/events/hooks/hk_2fQ9x?source=twilio");
    private static final Map<String, Signed> SIGNED = signAll();

    /** One provider's delivery signed three ways: with the current secret, the previous one, and long ago. */
    private record Signed(
            byte[] body,
            SigningSecret current,
            SigningSecret previous,
            Map<String, String> headers,
            Map<String, String> byPrevious,
            Optional<Map<String, String>> stale) {}

    static Stream<String> providers() {
        return CATALOG.all().stream()
                .filter(p -> !(p.delivery().signature() instanceof SignatureScheme.GraphClientState))
                .map(ProviderDescriptor::provider);
    }

    static Stream<String> bodySigningProviders() {
        return providers().filter(p -> !(scheme(p) instanceof SignatureScheme.SharedToken));
    }

    static Stream<String> timestampedProviders() {
        return providers().filter(p -> tolerance(scheme(p)).isPresent());
    }

    @ParameterizedTest
    @MethodSource("providers")
    void aDeliverySignedByTheProviderIsValid(String provider) {
        Signed signed = SIGNED.get(provider);

        assertThat(verify(provider, signed.body(), signed.headers(), List.of(signed.current())))
                .isEqualTo(new Verification.Valid(0));
    }

    @ParameterizedTest
    @MethodSource("providers")
    void duringARotationThePreviousSecretIsStillValid(String provider) {
        Signed signed = SIGNED.get(provider);

        assertThat(verify(provider, signed.body(), signed.byPrevious(), List.of(signed.current(), signed.previous())))
                .isEqualTo(new Verification.Valid(1));
    }

    @ParameterizedTest
    @MethodSource("bodySigningProviders")
    void aChangedBodyIsABadSignature(String provider) {
        Signed signed = SIGNED.get(provider);
        byte[] changed = signed.body();
        changed[changed.length / 2] ^= 0x01;

        assertThat(reason(verify(provider, changed, signed.headers(), List.of(signed.current()))))
                .contains(Reason.BAD_SIGNATURE);
    }

    @ParameterizedTest
    @MethodSource("providers")
    void aWrongSecretIsABadSignature(String provider) {
        Signed signed = SIGNED.get(provider);

        assertThat(reason(verify(provider, signed.body(), signed.headers(), List.of(signed.previous()))))
                .contains(Reason.BAD_SIGNATURE);
    }

    @ParameterizedTest
    @MethodSource("providers")
    void aMissingSignatureHeaderIsRejected(String provider) {
        Signed signed = SIGNED.get(provider);
        var headers = new HashMap<>(signed.headers());
        String header = signatureHeader(scheme(provider));
        assertThat(headers.remove(header)).as(header).isNotNull();

        assertThat(reason(verify(provider, signed.body(), headers, List.of(signed.current()))))
                .contains(Reason.MISSING_HEADER);
    }

    @ParameterizedTest
    @MethodSource("timestampedProviders")
    void aTimestampOutsideTheToleranceIsRejected(String provider) {
        Signed signed = SIGNED.get(provider);

        assertThat(reason(verify(provider, signed.body(), signed.stale().orElseThrow(), List.of(signed.current()))))
                .contains(Reason.TIMESTAMP_OUTSIDE_TOLERANCE);
    }

    @Test
    void teamsNotificationsCarryTheSecretAsTheirClientState() {
        SignatureScheme scheme = scheme("teams");
        String body = "{\"value\": [{\"changeType\": \"created\", \"clientState\": \"state-1\"},"
                + " {\"changeType\": \"updated\", \"clientState\": \"state-1\"}]}";
        String mixed = "{\"value\": [{\"clientState\": \"state-1\"}, {\"clientState\": \"forged\"}]}";
        var secrets = List.of(new SigningSecret("state-2"), new SigningSecret("state-1"));

        assertThat(scheme.verify(request(body.getBytes(StandardCharsets.UTF_8), Map.of()), secrets, CLOCK))
                .isEqualTo(new Verification.Valid(1));
        assertThat(reason(scheme.verify(request(mixed.getBytes(StandardCharsets.UTF_8), Map.of()), secrets, CLOCK)))
                .contains(Reason.BAD_SIGNATURE);
        assertThat(reason(scheme.verify(
                        request("{\"value\": [{}]}".getBytes(StandardCharsets.UTF_8), Map.of()), secrets, CLOCK)))
                .contains(Reason.MISSING_HEADER);
    }

    @Test
    void aSecretNeverShowsInItsText() {
        assertThat(new SigningSecret("whsec_very_secret").toString()).doesNotContain("very_secret");
    }

    private static Verification verify(
            String provider, byte[] body, Map<String, String> headers, List<SigningSecret> secrets) {
        return scheme(provider).verify(request(body, headers), secrets, CLOCK);
    }

    private static InboundRequest request(byte[] body, Map<String, String> headers) {
        return new InboundRequest(
                body,
                headers.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> List.of(e.getValue()))),
                URL);
    }

    private static Optional<Reason> reason(Verification verification) {
        return verification instanceof Verification.Rejected rejected
                ? Optional.of(rejected.reason())
                : Optional.empty();
    }

    private static SignatureScheme scheme(String provider) {
        return CATALOG.find(provider).orElseThrow().delivery().signature();
    }

    private static String signatureHeader(SignatureScheme scheme) {
        return switch (scheme) {
            case SignatureScheme.BodyHmac s -> s.header();
            case SignatureScheme.TimestampedHmac s -> s.header();
            case SignatureScheme.TimestampHeaderHmac s -> s.signatureHeader();
            case SignatureScheme.StandardWebhooks s -> s.signatureHeader();
            case SignatureScheme.SharedToken s -> s.header();
            case SignatureScheme.TwilioSignature s -> s.header();
            case SignatureScheme.GraphClientState _ -> "clientState";
        };
    }

    private static Optional<Duration> tolerance(SignatureScheme scheme) {
        return switch (scheme) {
            case SignatureScheme.TimestampedHmac s -> Optional.of(s.tolerance());
            case SignatureScheme.TimestampHeaderHmac s -> Optional.of(s.tolerance());
            case SignatureScheme.StandardWebhooks s -> Optional.of(s.tolerance());
            case SignatureScheme.BodyHmac _,
                    SignatureScheme.SharedToken _,
                    SignatureScheme.TwilioSignature _,
                    SignatureScheme.GraphClientState _ -> Optional.empty();
        };
    }

    /** Signs every provider's first sample event in one run of node. */
    private static Map<String, Signed> signAll() {
        var providers = providers().toList();
        ArrayNode cases = Json.mapper().createArrayNode();
        var bodies = new LinkedHashMap<String, byte[]>();
        var secrets = new LinkedHashMap<String, List<SigningSecret>>();
        for (String provider : providers) {
            ProviderDescriptor descriptor = CATALOG.find(provider).orElseThrow();
            JsonNode sample = descriptor.eventTypes().getFirst().sampleEvent();
            boolean form = descriptor.delivery().format() == DeliveryRules.PayloadFormat.FORM;
            String body = form ? formBody(sample) : sample.toString();
            bodies.put(provider, body.getBytes(StandardCharsets.UTF_8));
            boolean whsec = scheme(provider) instanceof SignatureScheme.StandardWebhooks;
            var pair = List.of(
                    new SigningSecret(whsec ? "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" : "current-" + provider),
                    new SigningSecret(
                            whsec ? "whsec_cHJldmlvdXMtc2VjcmV0LW9mLTMyLWJ5dGVzIQ==" : "previous-" + provider));
            secrets.put(provider, pair);
            long staleBy = tolerance(scheme(provider)).map(Duration::toSeconds).orElse(0L) + 60;
            for (var signing : List.of(
                    Map.entry(pair.get(0), NOW.getEpochSecond()),
                    Map.entry(pair.get(1), NOW.getEpochSecond()),
                    Map.entry(pair.get(0), NOW.getEpochSecond() - staleBy))) {
                ObjectNode c = cases.addObject();
                c.put("provider", provider);
                c.put("secret", signing.getKey().value());
                c.put("body", body);
                c.put("timestamp", signing.getValue());
                c.put("id", "msg_2fQ9xKqv0ZJ3nK6pE4rT");
                c.put("url", URL.toString());
                c.set("params", form ? sample : Json.object());
            }
        }
        JsonNode signed = node(cases);
        var all = new HashMap<String, Signed>();
        for (int i = 0; i < providers.size(); i++) {
            String provider = providers.get(i);
            Optional<Map<String, String>> stale =
                    tolerance(scheme(provider)).map(t -> headers(signed.get(3 * providers.indexOf(provider) + 2)));
            all.put(
                    provider,
                    new Signed(
                            bodies.get(provider),
                            secrets.get(provider).get(0),
                            secrets.get(provider).get(1),
                            headers(signed.get(3 * i)),
                            headers(signed.get(3 * i + 1)),
                            stale));
        }
        return Map.copyOf(all);
    }

    private static String formBody(JsonNode fields) {
        var pairs = new ArrayList<String>();
        fields.properties()
                .forEach(f -> pairs.add(URLEncoder.encode(f.getKey(), StandardCharsets.UTF_8) + "="
                        + URLEncoder.encode(f.getValue().asText(), StandardCharsets.UTF_8)));
        return String.join("&", pairs);
    }

    private static Map<String, String> headers(JsonNode json) {
        var headers = new HashMap<String, String>();
        json.properties().forEach(h -> headers.put(h.getKey(), h.getValue().asText()));
        return headers;
    }

    private static JsonNode node(JsonNode cases) {
        return WebhookSigner.sign(cases);
    }
}
