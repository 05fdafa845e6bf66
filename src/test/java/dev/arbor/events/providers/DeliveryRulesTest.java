package dev.arbor.events.providers;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.json.Json;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/**
 * What a descriptor's rules read from a delivery: its id, its time, its payload, the handshakes, and a signed time
 * that must be recent.
 */
class DeliveryRulesTest {
    private static final EventCatalog CATALOG = EventCatalog.load();
    private static final URI URL = URI.create("https://arbor.example/events/hooks/hk_1");

    @Test
    void theDeliveryIdAndTimeComeFromThePayloadWhereTheProviderPutsThem() {
        DeliveryRules stripe = rules("stripe");
        JsonNode sample = sample("stripe");
        InboundRequest request = request(sample.toString(), Map.of(), URL);

        assertThat(stripe.deliveryIdOf(request, sample))
                .contains(sample.path("id").asText());
        assertThat(stripe.occurredAtOf(request, sample))
                .contains(Instant.ofEpochSecond(sample.path("created").asLong()));
    }

    @Test
    void theDeliveryIdAndTimeComeFromHeadersWhereTheProviderPutsThem() {
        DeliveryRules shopify = rules("shopify");
        InboundRequest request = request(
                "{}",
                Map.of(
                        "X-Shopify-Event-Id",
                        "98880550-7158-44d4-b7cd-2c97c8a091b5",
                        "x-shopify-triggered-at",
                        "2026-11-20T16:00:01.123Z"),
                URL);

        assertThat(shopify.deliveryIdOf(request, Json.object())).contains("98880550-7158-44d4-b7cd-2c97c8a091b5");
        assertThat(shopify.occurredAtOf(request, Json.object())).contains(Instant.parse("2026-11-20T16:00:01.123Z"));
        assertThat(rules("alertmanager").deliveryIdOf(request, Json.object())).isEmpty();
    }

    @Test
    void aFormBodyIsReadAsAnObjectOfItsFields() {
        DeliveryRules twilio = rules("twilio");
        InboundRequest request = request("SmsStatus=received&From=%2B14155550100&Body=Hi+there", Map.of(), URL);
        JsonNode payload = twilio.format().payload(request);

        assertThat(payload.path("From").asText()).isEqualTo("+14155550100");
        assertThat(twilio.eventType().typeOf(request, payload)).contains("message.received");
    }

    @Test
    void gitHubsPingIsAHandshakeAndAnEventIsNot() {
        Handshake github = rules("github").handshake();

        assertThat(github.detect(request("{}", Map.of("X-GitHub-Event", "ping"), URL), Optional.empty()))
                .contains(new Handshake.Reply("application/json", "{\"ok\":true}"));
        assertThat(github.detect(request("{}", Map.of("X-GitHub-Event", "issues"), URL), Optional.empty()))
                .isEmpty();
        assertThat(github.unsigned()).isFalse();
    }

    @Test
    void slacksUrlVerificationIsAnsweredWithItsChallenge() {
        Handshake slack = rules("slack").handshake();
        String body =
                "{\"token\": \"Jhj5dZrVaK7ZwHHjRyZWjbDl\", \"challenge\": \"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P\","
                        + " \"type\": \"url_verification\"}";

        assertThat(slack.detect(request(body, Map.of(), URL), Optional.of(Json.read(body))))
                .contains(new Handshake.Reply("text/plain", "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"));
        assertThat(slack.detect(request("{}", Map.of(), URL), Optional.of(sample("slack"))))
                .isEmpty();
    }

    @Test
    void graphsValidationTokenIsEchoedBeforeAnySignatureCheck() {
        Handshake teams = rules("teams").handshake();
        URI validation = URI.create(URL + "?validationToken=Validation%3A+Testing+client+application+reachability");

        assertThat(teams.detect(request("", Map.of(), validation), Optional.empty()))
                .contains(new Handshake.Reply("text/plain", "Validation: Testing client application reachability"));
        assertThat(teams.unsigned()).isTrue();
        assertThat(rules("stripe").handshake()).isEqualTo(new Handshake.None());
    }

    @Test
    void linearsSignedTimestampMustBeRecentEvenWithAValidSignature() throws Exception {
        DeliveryRules linear = rules("linear");
        Instant now = Instant.parse("2026-11-20T14:06:40Z");
        Clock clock = Clock.fixed(now, ZoneOffset.UTC);
        var secrets = List.of(new SigningSecret("lin_wh_secret"));

        assertThat(linear.verify(signedByLinear(now.toEpochMilli() - 5_000), secrets, clock))
                .isEqualTo(new Verification.Valid(0));
        assertThat(linear.verify(signedByLinear(now.toEpochMilli() - 120_000), secrets, clock))
                .isInstanceOfSatisfying(
                        Verification.Rejected.class,
                        rejected -> assertThat(rejected.reason())
                                .isEqualTo(Verification.Reason.TIMESTAMP_OUTSIDE_TOLERANCE));
        assertThat(linear.verify(signedByLinear(-1), secrets, clock))
                .isInstanceOfSatisfying(
                        Verification.Rejected.class,
                        rejected -> assertThat(rejected.reason()).isEqualTo(Verification.Reason.MISSING_HEADER));
    }

    /** A Linear delivery with this {@code webhookTimestamp} (none when negative), signed as Linear documents. */
    private static InboundRequest signedByLinear(long webhookTimestamp) throws Exception {
        var payload = (ObjectNode) sample("linear");
        payload.remove("webhookTimestamp");
        if (webhookTimestamp >= 0) {
            payload.put("webhookTimestamp", webhookTimestamp);
        }
        byte[] body = Json.write(payload);
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec("lin_wh_secret".getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        String signature = HexFormat.of().formatHex(mac.doFinal(body));
        return new InboundRequest(body, Map.of("Linear-Signature", List.of(signature)), URL);
    }

    private static DeliveryRules rules(String provider) {
        return CATALOG.find(provider).orElseThrow().delivery();
    }

    private static JsonNode sample(String provider) {
        return CATALOG.find(provider).orElseThrow().eventTypes().getFirst().sampleEvent();
    }

    private static InboundRequest request(String body, Map<String, String> headers, URI url) {
        var multi = new HashMap<String, List<String>>();
        headers.forEach((name, value) -> multi.put(name, List.of(value)));
        return new InboundRequest(body.getBytes(StandardCharsets.UTF_8), multi, url);
    }
}
