package dev.arbor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TestServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A seeded fuzzer over the body parser and the envelope: random bytes, mutated JSON, deep nesting, huge numbers and
 * invalid UTF-8 must all end in a clear 4xx envelope, never a 500 and never a hang. The seed is printed so that a
 * failure can be replayed.
 */
class BodyFuzzTest {
    private static final long SEED = Long.getLong("fuzz.seed", System.nanoTime());
    private static final int CASES = Integer.getInteger("fuzz.cases", 400);
    private static final Set<Integer> CLEAR_REFUSALS = Set.of(400, 409, 413);

    private static ArborServer server;
    private static TestServer http;

    @BeforeAll
    static void start() {
        System.out.println("BodyFuzzTest seed: " + SEED + " (replay with -Dfuzz.seed=" + SEED + ")");
        server = ArborServer.start(Map.of("ARBOR_MAX_BODY_BYTES", "262144"), new ProbeRoutes());
        http = server.http();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void randomBodiesNeverCauseAServerError() {
        Random random = new Random(SEED);
        for (int i = 0; i < CASES; i++) {
            byte[] body = generate(random);
            for (String path : List.of("/projects", "/v1/studio/probe/echo", "/auth/tokens")) {
                HttpReply reply = http.sendBytes("POST", path, body, "Idempotency-Key", "fuzz-" + i);
                assertThat(reply.status())
                        .as("case %d on %s: %s", i, path, preview(body))
                        .isLessThan(500);
                if (reply.status() >= 400) {
                    assertThat(CLEAR_REFUSALS)
                            .as("case %d: %s", i, reply.body())
                            .contains(reply.status());
                    JsonNode error = reply.json().path("error");
                    assertThat(error.path("code").asText()).isNotBlank();
                    assertThat(error.path("request_id").asText()).isEqualTo(reply.header("x-request-id"));
                }
            }
        }
    }

    @Test
    void pathologicalDocumentsAreRefusedQuickly() {
        List<String> bodies = List.of(
                "[".repeat(100_000),
                "{\"a\":".repeat(50_000) + "1" + "}".repeat(50_000),
                "{\"name\": 1" + "0".repeat(100_000) + "}",
                "{\"name\": 1e99999999}",
                "{\"name\": -0.000000000000000000000000000000000000001e-9999999}",
                "{\"name\": \"" + "\\u0000".repeat(1000) + "\"}",
                "{\"name\": \"\\uD800\"}",
                "{\"" + "k".repeat(200_000) + "\": 1}");
        for (String body : bodies) {
            long started = System.nanoTime();
            HttpReply reply = http.post("/projects", body);
            assertThat(reply.status())
                    .as(preview(body.getBytes(StandardCharsets.UTF_8)))
                    .isBetween(200, 499);
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(20));
        }
    }

    @Test
    void theParserAloneRefusesWithApiExceptionsOnly() {
        Random random = new Random(SEED + 1);
        for (int i = 0; i < CASES * 10; i++) {
            byte[] body = generate(random);
            assertThatCode(() -> {
                        try {
                            dev.arbor.platform.json.Json.parseObject(body);
                        } catch (ApiException expected) {
                            assertThat(expected.code().code()).isEqualTo("invalid_json");
                        }
                    })
                    .as(preview(body))
                    .doesNotThrowAnyException();
        }
    }

    private static byte[] generate(Random random) {
        return switch (random.nextInt(6)) {
            case 0 -> randomBytes(random);
            case 1 -> mutate(random, validJson(random));
            case 2 -> validJson(random);
            case 3 -> nested(random);
            case 4 -> hugeNumber(random);
            default -> invalidUtf8(random);
        };
    }

    private static byte[] randomBytes(Random random) {
        byte[] bytes = new byte[random.nextInt(512)];
        random.nextBytes(bytes);
        return bytes;
    }

    private static byte[] validJson(Random random) {
        var fields = new ArrayList<String>();
        String[] names = {"name", "description", "role", "projects", "expires_at", "fail", "x"};
        for (int i = random.nextInt(5); i > 0; i--) {
            fields.add("\"" + names[random.nextInt(names.length)] + "\":" + value(random, 3));
        }
        return ("{" + String.join(",", fields) + "}").getBytes(StandardCharsets.UTF_8);
    }

    private static String value(Random random, int depth) {
        int kind = random.nextInt(depth > 0 ? 8 : 6);
        return switch (kind) {
            case 0 -> "null";
            case 1 -> Boolean.toString(random.nextBoolean());
            case 2 -> Long.toString(random.nextLong());
            case 3 -> Double.toString(random.nextGaussian() * 1e10);
            case 4 -> "\"" + "abc\\n\\\"é😀".repeat(random.nextInt(4)) + "\"";
            case 5 -> "\"member\"";
            case 6 -> "[" + value(random, depth - 1) + "," + value(random, depth - 1) + "]";
            default -> "{\"k\":" + value(random, depth - 1) + "}";
        };
    }

    private static byte[] mutate(Random random, byte[] json) {
        byte[] copy = json.clone();
        for (int i = random.nextInt(4) + 1; i > 0 && copy.length > 0; i--) {
            copy[random.nextInt(copy.length)] = (byte) random.nextInt(256);
        }
        return random.nextBoolean() || copy.length == 0
                ? copy
                : java.util.Arrays.copyOf(copy, random.nextInt(copy.length));
    }

    private static byte[] nested(Random random) {
        int depth = 150 + random.nextInt(300);
        String open = random.nextBoolean() ? "[" : "{\"a\":";
        String close = open.equals("[") ? "]" : "}";
        return ("{\"name\":" + open.repeat(depth) + "1" + close.repeat(depth) + "}").getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] hugeNumber(Random random) {
        String digits = "9".repeat(100 + random.nextInt(5000));
        String number = random.nextBoolean() ? digits : "1e" + digits;
        return ("{\"name\":\"n\",\"expires_at\":" + number + "}").getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] invalidUtf8(Random random) {
        byte[][] bad = {
            {(byte) 0xC3, 0x28},
            {(byte) 0xE2, (byte) 0x82},
            {(byte) 0xF0, (byte) 0x28, (byte) 0x8C},
            {(byte) 0xFF},
            {(byte) 0xED, (byte) 0xA0, (byte) 0x80}
        };
        byte[] prefix = "{\"name\":\"".getBytes(StandardCharsets.UTF_8);
        byte[] middle = bad[random.nextInt(bad.length)];
        byte[] suffix = "\"}".getBytes(StandardCharsets.UTF_8);
        byte[] all = new byte[prefix.length + middle.length + suffix.length];
        System.arraycopy(prefix, 0, all, 0, prefix.length);
        System.arraycopy(middle, 0, all, prefix.length, middle.length);
        System.arraycopy(suffix, 0, all, prefix.length + middle.length, suffix.length);
        return all;
    }

    private static String preview(byte[] body) {
        String text = new String(body, StandardCharsets.ISO_8859_1);
        return text.length() > 120 ? text.substring(0, 120) + "..." : text;
    }
}
