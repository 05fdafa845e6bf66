package dev.arbor.pipelines;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.arbor.ArborServer;
import dev.arbor.platform.webhooks.StandardWebhookSignature;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TestServer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Any bytes to a pipeline's webhook, with no, broken or valid signature headers, get a 2xx or a 4xx with the error
 * envelope, never a 5xx; only a validly signed JSON object starts a run. The seed is printed to replay a failure.
 */
class WebhookFuzzTest {
    private static final long SEED = Long.getLong("fuzz.seed", System.nanoTime());
    private static final int CASES = Integer.getInteger("fuzz.cases", 300);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> BODIES = List.of(
            "{}",
            "{\"a\": 1}",
            "[]",
            "null",
            "\"text\"",
            "{\"a\": ",
            "{\"event\": {\"nested\": [1, 2, {\"x\": null}]}}",
            "{\"params\": {\"n\": \"not a number\"}}",
            "{\"a\": \"\u0000\uFFFF\"}",
            "{\"" + "k".repeat(5000) + "\": 1}",
            "[".repeat(5000));

    /** How one case signs its call. */
    enum Signing {
        NONE,
        VALID,
        GARBAGE,
        STALE,
        LONG_ID
    }

    @Test
    void anyBytesGetA2xxOrAnEnvelopedRefusal() throws Exception {
        System.out.println("WebhookFuzzTest seed: " + SEED + " (replay with -Dfuzz.seed=" + SEED + ")");
        var random = new Random(SEED);
        var problems = new ArrayList<String>();
        int started = 0;
        try (var server = ArborServer.start(Map.of())) {
            TestServer http = server.http();
            String pipeline = http.post(
                            "/pipelines",
                            "{\"name\": \"fuzzed-hook\", \"steps\": [{\"id\": \"a\", \"action\": \"set_output\", "
                                    + "\"params\": {\"key\": \"v\", \"value\": \"{{ event.a }}\"}}]}")
                    .json()
                    .path("id")
                    .asText();
            String secret = http.post("/pipelines/" + pipeline + "/webhook-secret", "{}")
                    .json()
                    .path("secret")
                    .asText();
            for (int i = 0; i < CASES; i++) {
                byte[] body = body(random);
                Signing signing = Signing.values()[random.nextInt(Signing.values().length)];
                String[] headers = headers(signing, secret, body, random);
                HttpReply reply = http.sendBytes("POST", "/pipelines/" + pipeline + "/webhook", body, headers);
                String what =
                        "case " + i + " (" + signing + ", seed " + SEED + "): " + reply.status() + " " + reply.body();
                if (reply.status() / 100 == 2) {
                    started++;
                    if (signing != Signing.VALID) {
                        problems.add("accepted without a valid signature: " + what);
                    }
                } else if (reply.status() / 100 == 4) {
                    JsonNode error = JSON.readTree(reply.body()).path("error");
                    if (!error.path("code").isTextual()
                            || !error.path("message").isTextual()) {
                        problems.add("a refusal without the envelope: " + what);
                    }
                } else {
                    problems.add("neither 2xx nor 4xx: " + what);
                }
            }
            assertThat(problems).as("seed %d", SEED).isEmpty();
            assertThat(http.get("/pipelines/" + pipeline + "/runs?limit=100")
                            .json()
                            .path("data")
                            .size())
                    .isEqualTo(Math.min(started, 100));
        }
    }

    private static byte[] body(Random random) {
        return switch (random.nextInt(3)) {
            case 0 -> BODIES.get(random.nextInt(BODIES.size())).getBytes(StandardCharsets.UTF_8);
            case 1 -> {
                byte[] bytes = new byte[random.nextInt(300)];
                random.nextBytes(bytes);
                yield bytes;
            }
            default -> ("{\"a\": " + random.nextInt() + "}").getBytes(StandardCharsets.UTF_8);
        };
    }

    private static String[] headers(Signing signing, String secret, byte[] body, Random random) {
        long now = System.currentTimeMillis() / 1000;
        String id = "msg_" + random.nextLong();
        return switch (signing) {
            case NONE -> new String[0];
            case VALID -> signed(secret, id, now, body);
            case GARBAGE ->
                new String[] {
                    "webhook-id",
                    id,
                    "webhook-timestamp",
                    random.nextBoolean() ? "-1" : "99999999999999999999",
                    "webhook-signature",
                    "v1," + random.nextInt() + " v1,!!! ,,,"
                };
            case STALE -> signed(secret, id, now - 301 - random.nextInt(10_000), body);
            case LONG_ID -> signed(secret, "m".repeat(257 + random.nextInt(2000)), now, body);
        };
    }

    private static String[] signed(String secret, String id, long at, byte[] body) {
        return new String[] {
            "webhook-id", id,
            "webhook-timestamp", Long.toString(at),
            "webhook-signature", StandardWebhookSignature.header(secret, id, at, body)
        };
    }
}
