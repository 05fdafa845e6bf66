package dev.arbor.events.deliveries;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TestServer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The ingest route fuzzed: any bytes with any headers (well-formed or not, the providers' signature headers with
 * wrong values) to the webhook URLs of several providers. Every answer is 2xx or 4xx, every refusal the envelope with
 * a code of the registry, never a 5xx; and nothing is accepted, so nothing is dispatched, without a valid signature.
 * {@code -Darbor.fuzz.cases} and {@code -Darbor.fuzz.seed} as in the OpenAPI fuzz test.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WebhookIngestFuzzTest {
    private static final long SEED = Long.getLong("arbor.fuzz.seed", 21L);
    private static final int CASES = Integer.getInteger("arbor.fuzz.cases", 40) * 10;
    private static final String ADMIN_SECRET = "arb_ingest_fuzz_admin";
    private static final Set<String> CODES =
            Arrays.stream(ErrorCode.values()).map(ErrorCode::code).collect(Collectors.toSet());
    /** The headers the providers' schemes read, sent with values of every kind. */
    private static final List<String> HEADERS = List.of(
            "X-Hub-Signature-256",
            "X-GitHub-Event",
            "X-GitHub-Delivery",
            "Stripe-Signature",
            "X-Slack-Signature",
            "X-Slack-Request-Timestamp",
            "webhook-id",
            "webhook-timestamp",
            "webhook-signature",
            "X-Gitlab-Token",
            "X-Shopify-Hmac-Sha256",
            "X-Shopify-Topic",
            "Linear-Signature",
            "Content-Type",
            "Content-Encoding",
            "Transfer-Encoding",
            "Idempotency-Key",
            "Authorization",
            "Origin");

    private static final List<String> PROVIDERS =
            List.of("github", "stripe", "slack", "standard_webhooks", "gitlab", "shopify", "linear", "teams");

    private final Random random = new Random(SEED);
    private ArborServer server;
    private TestServer http;
    private final List<String> connections = new ArrayList<>();
    private final List<String> hooks = new ArrayList<>();
    private final List<String> samples = new ArrayList<>();

    @BeforeAll
    void start() {
        System.out.println("WebhookIngestFuzzTest seed " + SEED + ", " + CASES + " cases");
        server = ArborServer.start(Map.of("ARBOR_ADMIN_TOKEN", ADMIN_SECRET, "ARBOR_MAX_BODY_BYTES", "65536"));
        http = server.http();
        for (String provider : PROVIDERS) {
            JsonNode descriptor = http.get("/events/descriptors?provider=" + provider, admin())
                    .json()
                    .path("data")
                    .path(0);
            StringBuilder credentials = new StringBuilder("{");
            descriptor.path("credentials").forEach(field -> {
                if (!field.path("generated").asBoolean()) {
                    credentials
                            .append(credentials.length() > 1 ? ", " : "")
                            .append('"')
                            .append(field.path("key").asText())
                            .append("\": \"fuzz-secret-")
                            .append(field.path("key").asText())
                            .append('"');
                }
            });
            HttpReply created = http.post(
                    "/events/shared-connections",
                    "{\"provider\": \"" + provider + "\", \"credentials\": " + credentials + "}}",
                    admin());
            assertThat(created.status()).as(created.body()).isEqualTo(201);
            connections.add(created.json().path("id").asText());
            hooks.add(URI.create(created.json().path("webhook_url").asText()).getPath());
            descriptor
                    .path("event_types")
                    .forEach(t -> samples.add(t.path("sample_event").toString()));
        }
    }

    @AfterAll
    void stop() {
        server.close();
    }

    @Test
    void anyBytesWithAnyHeadersAreAnsweredWithoutA5xxAndNothingUnsignedIsAccepted() {
        for (int i = 0; i < CASES; i++) {
            String hook = hooks.get(random.nextInt(hooks.size()));
            byte[] body = body();
            if (random.nextInt(4) == 0) {
                raw(hook, body);
            } else {
                sent(hook, body);
            }
        }
        for (String connection : connections) {
            JsonNode accepted = http.get(
                            "/events/shared-connections/" + connection + "/deliveries?status=accepted", admin())
                    .json();
            assertThat(accepted.path("data").size())
                    .as("accepted on %s", connection)
                    .isZero();
        }
    }

    @Test
    void aBodyOverTheServersLimitIs413AndNotRecorded() {
        String log = "/events/shared-connections/" + connections.getFirst() + "/deliveries?limit=100";
        int before = http.get(log, admin()).json().path("data").size();

        http.sendBytes("POST", hooks.getFirst(), new byte[65_537], "X-GitHub-Event", "issues")
                .assertError(413, "payload_too_large", null);

        assertThat(http.get(log, admin()).json().path("data").size()).isEqualTo(before);
    }

    /** Through an HTTP client: well-formed requests with headers of any printable value. */
    private void sent(String hook, byte[] body) {
        var headers = new ArrayList<String>();
        int count = random.nextInt(6);
        for (int i = 0; i < count; i++) {
            String name = HEADERS.get(random.nextInt(HEADERS.size()));
            if (Set.of("Transfer-Encoding").contains(name)) {
                continue; // the client sets these itself
            }
            headers.add(name);
            headers.add(printable());
        }
        String query =
                random.nextInt(5) == 0 ? "?validationToken=" + printable().replaceAll("[^A-Za-z0-9]", "") : "";
        HttpReply reply = http.sendBytes("POST", hook + query, body, headers.toArray(String[]::new));
        String what = "POST " + hook.substring(0, 20) + "... " + headers + " -> " + reply.status() + " " + reply.body();
        assertThat(reply.status()).as(what).isBetween(200, 499);
        if (reply.status() >= 400) {
            JsonNode error = reply.json().path("error");
            assertThat(CODES).as(what).contains(error.path("code").asText());
            assertThat(error.path("message").asText()).as(what).isNotBlank();
        } else {
            // only an unsigned handshake may succeed without the secret: Microsoft Graph's validationToken
            assertThat(query).as(what).isNotEmpty();
            assertThat(reply.header("content-type")).as(what).startsWith("text/plain");
        }
    }

    /** Over a socket: requests a client refuses to make, with bytes of any value in the headers. */
    private void raw(String hook, byte[] body) {
        var request = new StringBuilder("POST " + hook + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
        int count = random.nextInt(6);
        for (int i = 0; i < count; i++) {
            request.append(HEADERS.get(random.nextInt(HEADERS.size()))).append(": ");
            for (int c = random.nextInt(40); c > 0; c--) {
                char ch = (char) (32 + random.nextInt(224));
                request.append(ch);
            }
            request.append("\r\n");
        }
        request.append("Content-Length: ").append(body.length).append("\r\n\r\n");
        byte[] head = request.toString().getBytes(StandardCharsets.ISO_8859_1);
        byte[] all = Arrays.copyOf(head, head.length + body.length);
        System.arraycopy(body, 0, all, head.length, body.length);
        String response = http.raw(all);
        String status = response.length() >= 12 ? response.substring(9, 12) : response;
        assertThat(status).as(response).matches("[24]\\d\\d");
        assertThat(status)
                .as("a raw request with no signature is never accepted: %s", response)
                .doesNotStartWith("2");
    }

    private byte[] body() {
        return switch (random.nextInt(4)) {
            case 0 -> new byte[0];
            case 1 -> {
                byte[] bytes = new byte[random.nextInt(2048)];
                random.nextBytes(bytes);
                yield bytes;
            }
            case 2 -> samples.get(random.nextInt(samples.size())).getBytes(StandardCharsets.UTF_8);
            default -> {
                byte[] sample = samples.get(random.nextInt(samples.size())).getBytes(StandardCharsets.UTF_8);
                for (int flips = 1 + random.nextInt(4); flips > 0 && sample.length > 0; flips--) {
                    sample[random.nextInt(sample.length)] = (byte) random.nextInt(256);
                }
                yield sample;
            }
        };
    }

    private String printable() {
        var text = new StringBuilder();
        for (int i = random.nextInt(60); i > 0; i--) {
            text.append((char) (32 + random.nextInt(95)));
        }
        return text.toString().strip();
    }

    private static String[] admin() {
        return new String[] {"Authorization", "Bearer " + ADMIN_SECRET};
    }
}
