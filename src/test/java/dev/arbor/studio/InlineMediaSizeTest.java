package dev.arbor.studio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.platform.secrets.Digests;
import dev.arbor.testing.ArborProcess;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TestServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A media file may be up to 200 MB whether uploaded or sent inline as a data URL, so the operations that take media
 * inline accept bodies larger than the server's 32 MB JSON limit, and refuse a larger file with 413 at its param.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InlineMediaSizeTest {
    private static final String D = "/v1/studio/decisions";
    private static final long MB = 1024 * 1024;
    /** A PNG's signature and its IHDR chunk (1 x 1, 8-bit RGB): 33 bytes, so its base64 needs no padding. */
    private static final byte[] PNG_HEAD = HexFormat.of()
            .parseHex("89504e470d0a1a0a" + "0000000d49484452" + "00000001000000010802000000" + "907753de");

    /**
     * One server on the defaults for the tests that need nothing else, and one whose body limit is 64 KiB. A test
     * that holds the server's one large-body turn, or runs in a heap of its own size, starts its own.
     */
    private ArborServer defaults;

    private ArborServer smallBodies;

    @BeforeAll
    void startServers() {
        defaults = ArborServer.start(Map.of("ARBOR_TEST_MODELS", "1"));
        smallBodies = ArborServer.start(Map.of("ARBOR_TEST_MODELS", "1", "ARBOR_MAX_BODY_BYTES", "65536"));
    }

    @AfterAll
    void stopServers() {
        try {
            defaults.close();
        } finally {
            smallBodies.close();
        }
    }

    @Test
    void aDataUrlMayHoldUpTo200MegabytesAndNoMore() {
        TestServer http = defaults.http();

        HttpReply large =
                http.sendStream("POST", D, () -> decisionWithImage(42 * MB), "Content-Type", "application/json");
        assertThat(large.status()).as(large.body()).isEqualTo(200);
        JsonNode kept =
                http.get(D + "/" + large.json().path("id").asText()).json().at("/input/media/0");
        assertThat(kept.path("bytes").asLong()).isEqualTo(42 * MB);
        assertThat(kept.path("available").asBoolean()).isTrue();

        http.sendStream("POST", D, () -> decisionWithImage(201 * MB), "Content-Type", "application/json")
                .assertError(413, "payload_too_large", "media[0].data");
        http.sendStream("POST", "/v1/decide", () -> decisionWithImage(201 * MB), "Content-Type", "application/json")
                .assertError(413, "payload_too_large", "media[0].data");

        String overTheLimit = "POST " + D + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + (400 * MB) + "\r\nConnection: close\r\n\r\n";
        assertThat(http.raw(overTheLimit.getBytes(StandardCharsets.US_ASCII)))
                .startsWith("HTTP/1.1 413")
                .contains("\"payload_too_large\"");
        http.sendStream(
                        "PATCH",
                        "/v1/studio/settings",
                        () -> repeated((byte) ' ', 33 * MB),
                        "Content-Type",
                        "application/json")
                .assertError(413, "payload_too_large", null);

        assertThat(http.get(D + "?limit=1")
                        .json()
                        .path("data")
                        .path(0)
                        .path("id")
                        .asText())
                .as("the refused ones kept nothing")
                .isEqualTo(large.json().path("id").asText());
    }

    @Test
    void aLargeInlineImageIsReadWithoutCopiesOfItsBody(@TempDir Path folder) throws IOException {
        // its body is 100 MB: parsed whole, a string that long took five times its size at once, over this heap
        long image = 75 * MB;
        byte[] body;
        try (InputStream decision = decisionWithImage(image)) {
            body = decision.readAllBytes();
        }
        try (var server = ArborProcess.serve(folder.resolve("data"), Map.of("ARBOR_TEST_MODELS", "1"), "512m")) {
            TestServer http = server.http();
            HttpReply made = http.sendBytes("POST", D, body, "Content-Type", "application/json");
            assertThat(made.status()).as(made.body()).isEqualTo(200);
            JsonNode kept =
                    http.get(D + "/" + made.json().path("id").asText()).json().at("/input/media/0");
            assertThat(kept.path("bytes").asLong()).isEqualTo(image);
            assertThat(kept.path("available").asBoolean()).isTrue();
        }
    }

    @Test
    void a200MegabyteInlineImageIsDecidedWithinA256MegabyteHeap(@TempDir Path folder) {
        // the largest image a multiple of 3 allows: its body is 267 MB, more than the whole heap
        long image = 200 * MB - 2;
        Path data = folder.resolve("data");
        try (var server = ArborProcess.serve(data, Map.of("ARBOR_TEST_MODELS", "1"), "256m")) {
            TestServer http = server.http();
            HttpReply made =
                    http.sendStream("POST", D, () -> decisionWithImage(image), "Content-Type", "application/json");
            assertThat(made.status()).as(made.body()).isEqualTo(200);
            JsonNode kept =
                    http.get(D + "/" + made.json().path("id").asText()).json().at("/input/media/0");
            assertThat(kept.path("bytes").asLong()).isEqualTo(image);
            assertThat(kept.path("available").asBoolean()).isTrue();
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(data.resolve("tmp")).isEmptyDirectory());
        }
    }

    @Test
    void aLongDataUrlIsKeptAsItsDecodedBytesAndItsTemporaryFileGoes() {
        TestServer http = defaults.http();
        long image = 300_000;
        byte[] bytes;
        try (InputStream decoded = Base64.getDecoder().wrap(imageBase64(image))) {
            bytes = decoded.readAllBytes();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        HttpReply made = http.sendStream("POST", D, () -> decisionWithImage(image), "Content-Type", "application/json");
        assertThat(made.status()).as(made.body()).isEqualTo(200);
        JsonNode kept =
                http.get(D + "/" + made.json().path("id").asText()).json().at("/input/media/0");
        assertThat(kept.path("sha256").asText()).isEqualTo("sha256:" + Digests.sha256Hex(bytes));
        assertThat(http.get("/v1/studio/files/" + kept.path("file_id").asText())
                        .json()
                        .path("bytes")
                        .asLong())
                .isEqualTo(bytes.length);
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(
                        () -> assertThat(defaults.dataDir().resolve("tmp")).isEmptyDirectory());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "a character that is no base64 | %s!AAAA",
                "a single dangling character | %sA",
                "characters after its padding | %sAA==AAAA",
                "an escape that is no base64 | %s\\nAAAA",
            })
    void aLongDataUrlWithDamagedBase64IsInvalidAtItsParamAndLeavesNoFile(String what, String damaged) {
        TestServer http = defaults.http();
        String base64 = Base64.getEncoder().encodeToString(PNG_HEAD) + "A".repeat(100_000);
        String body = "{\"model\": \"hash-decider\", \"state\": \"a\", \"questions\": {\"ok\": {\"type\": "
                + "\"noul\"}}, \"media\": [{\"data\": \"data:image/png;base64," + damaged.formatted(base64)
                + "\"}]}";
        http.post(D, body).assertError(400, "invalid_field", "media[0].data");
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(
                        () -> assertThat(defaults.dataDir().resolve("tmp")).isEmptyDirectory());
    }

    @Test
    void aLongDataUrlMaySendItsSlashesEscaped() {
        TestServer http = defaults.http();
        // 3 bytes of 0xff after the PNG's head are "////" in base64, which some encoders send as "\/\/\/\/"
        String base64 = Base64.getEncoder().encodeToString(PNG_HEAD) + "A".repeat(100_000) + "\\/".repeat(4);
        String body = "{\"model\": \"hash-decider\", \"state\": \"a\", \"questions\": {\"ok\": {\"type\": "
                + "\"noul\"}}, \"media\": [{\"data\": \"data:image/png;base64," + base64 + "\"}]}";
        HttpReply made = http.post(D, body);
        assertThat(made.status()).as(made.body()).isEqualTo(200);
        JsonNode kept =
                http.get(D + "/" + made.json().path("id").asText()).json().at("/input/media/0");
        assertThat(kept.path("bytes").asLong()).isEqualTo(PNG_HEAD.length + 75_000 + 3);
    }

    @Test
    void aKeyedDecisionWithALongDataUrlIsKnownByItsStreamedBody() {
        TestServer http = defaults.http();
        HttpReply first = http.sendStream(
                "POST",
                D,
                () -> decisionWithImage(300_000),
                "Content-Type",
                "application/json",
                "Idempotency-Key",
                "k-media");
        assertThat(first.status()).as(first.body()).isEqualTo(200);

        HttpReply again = http.sendStream(
                "POST",
                D,
                () -> decisionWithImage(300_000),
                "Content-Type",
                "application/json",
                "Idempotency-Key",
                "k-media");
        assertThat(again.header("idempotent-replayed")).isEqualTo("true");
        assertThat(again.json().path("id").asText())
                .isEqualTo(first.json().path("id").asText());

        http.sendStream(
                        "POST",
                        D,
                        () -> decisionWithImage(300_003),
                        "Content-Type",
                        "application/json",
                        "Idempotency-Key",
                        "k-media")
                .assertError(409, "idempotency_key_reused", "Idempotency-Key");
    }

    @Test
    void anExampleKeepsALongDataUrlAsAFileOfItsDecodedBytes() throws IOException {
        TestServer http = defaults.http();
        http.post(
                "/v1/studio/templates",
                "{\"id\": \"pics\", \"model\": \"hash-decider\", \"modalities\": "
                        + "[\"text\", \"image\"], \"questions\": {\"ok\": {\"type\": \"noul\"}}}");
        String image;
        try (InputStream base64 = imageBase64(300_000)) {
            image = new String(base64.readAllBytes(), StandardCharsets.US_ASCII);
        }
        HttpReply example = http.post(
                "/v1/studio/templates/pics/examples",
                "{\"state\": \"a shelf\", \"media\": [{\"data\": \"data:image/png;base64," + image
                        + "\"}], \"expected\": {\"ok\": \"yes\"}}");
        assertThat(example.status()).as(example.body()).isEqualTo(201);
        JsonNode file = http.get("/v1/studio/files/"
                        + example.json().at("/media/0/file_id").asText())
                .json();
        assertThat(file.path("bytes").asLong()).isEqualTo(300_000);
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(
                        () -> assertThat(defaults.dataDir().resolve("tmp")).isEmptyDirectory());
    }

    @Test
    void theRestOfTheBodyIsHeldToTheServersLimit() {
        TestServer http = smallBodies.http();
        String longText = "{\"model\": \"hash-decider\", \"state\": \"" + "a".repeat(100_000) + "\", "
                + "\"questions\": {\"ok\": {\"type\": \"noul\"}}}";
        http.post(D, longText).assertError(413, "payload_too_large", null);
        http.post("/v1/decide", longText).assertError(413, "payload_too_large", null);

        HttpReply picture =
                http.sendStream("POST", D, () -> decisionWithImage(100_000), "Content-Type", "application/json");
        assertThat(picture.status()).as(picture.body()).isEqualTo(200);
    }

    @Test
    void shortDataUrlsAreMediaTooForTheLimitOfTheRest() throws IOException {
        TestServer http = smallBodies.http();
        String image;
        try (InputStream base64 = imageBase64(30_000)) {
            image = "{\"data\": \"data:image/png;base64," + new String(base64.readAllBytes(), StandardCharsets.US_ASCII)
                    + "\"}";
        }
        // three images of 40,000 characters each: the body is twice the limit, all but a few bytes media
        HttpReply made = http.post(
                D,
                "{\"model\": \"hash-decider\", \"state\": \"three pictures\", \"questions\": {\"ok\": "
                        + "{\"type\": \"noul\"}}, \"media\": [" + String.join(", ", image, image, image) + "]}");
        assertThat(made.status()).as(made.body()).isEqualTo(200);
    }

    @Test
    void aLongDataUrlInTheStateIsRefusedAtTheStateNotReadAsText() {
        TestServer http = defaults.http();
        String url = "data:image/png;base64," + Base64.getEncoder().encodeToString(PNG_HEAD) + "A".repeat(100_000);
        JsonNode error = http.post(
                        D,
                        "{\"model\": \"hash-decider\", \"state\": {\"picture\": \"" + url
                                + "\"}, \"questions\": {\"ok\": {\"type\": \"noul\"}}}")
                .assertError(400, "invalid_field", "state");
        assertThat(error.path("message").asText()).contains("send media in `media`");
    }

    @Test
    void aLongDataUrlInATextVariableIsRefusedAtTheVariableNotReadAsText() {
        TestServer http = defaults.http();
        assertThat(http.post("/v1/studio/templates", """
                        {"id": "notes", "model": "hash-decider",
                         "variables": {"note": {"type": "string", "max_length": 200000}},
                         "state": "{{note}}", "questions": {"ok": {"type": "noul"}}}""").status()).isEqualTo(201);
        String url = "data:image/png;base64," + Base64.getEncoder().encodeToString(PNG_HEAD) + "A".repeat(100_000);
        JsonNode error = http.post(D, "{\"template\": \"notes\", \"variables\": {\"note\": \"" + url + "\"}}")
                .assertError(400, "invalid_variable", "variables.note");
        assertThat(error.path("message").asText()).contains("send media in a media variable");
    }

    @Test
    void stateAndVariablesHaveTheirOwnLimits() {
        TestServer http = defaults.http();
        String decision =
                "{\"model\": \"hash-decider\", \"state\": %s, \"questions\": {\"ok\": {\"type\": " + "\"noul\"}}}";
        http.post(D, decision.formatted("\"" + "a".repeat(200_001) + "\"")).assertError(400, "invalid_field", "state");
        http.post(D, decision.formatted("{\"a\": \"" + "a".repeat(200_000) + "\"}"))
                .assertError(400, "invalid_field", "state");
        assertThat(http.post(D, decision.formatted("\"" + "a".repeat(200_000) + "\""))
                        .status())
                .isEqualTo(200);

        String variables = "{\"template\": \"t\", \"variables\": {\"a\": \"" + "a".repeat(600_000) + "\", "
                + "\"b\": \"" + "b".repeat(600_000) + "\"}}";
        JsonNode error = http.post(D, variables).assertError(400, "invalid_field", "variables");
        assertThat(error.path("message").asText()).contains("1000000 characters");
    }

    @Test
    void slowSendersHoldingEveryLargeBodyTurnMakeOthersBusyNotWaitForever() throws Exception {
        try (var server = ArborServer.start(Map.of(
                "ARBOR_TEST_MODELS", "1", "ARBOR_LARGE_BODY_PERMITS", "1", "ARBOR_LARGE_BODY_WAIT_SECONDS", "1"))) {
            TestServer http = server.http();
            String tiny = "{\"model\": \"hash-decider\", \"state\": \"s\", \"questions\": {\"ok\": {\"type\": "
                    + "\"noul\"}}}";
            Supplier<HttpReply> chunked = () -> http.sendStream(
                    "POST",
                    D,
                    () -> new ByteArrayInputStream(tiny.getBytes(StandardCharsets.UTF_8)),
                    "Content-Type",
                    "application/json");
            try (Socket slow = new Socket("127.0.0.1", http.port())) {
                slow.getOutputStream()
                        .write(("POST " + D + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                                        + "application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"sta\r\n")
                                .getBytes(StandardCharsets.US_ASCII));
                // the slow sender takes the one turn as soon as its headers are in; until then others may pass
                var busy = new AtomicReference<HttpReply>();
                await().atMost(Duration.ofSeconds(30)).until(() -> {
                    busy.set(chunked.get());
                    return busy.get().status() == 503;
                });
                busy.get().assertError(503, "server_busy", null);
                assertThat(busy.get().header("retry-after")).isEqualTo("5");
                assertThat(http.post(D, tiny).status())
                        .as("a body within the server's limit")
                        .isEqualTo(200);
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> chunked.get().status() == 200);
        }
    }

    /**
     * A decision whose one image is {@code bytes} long (for a multiple of 3): a PNG's signature and header chunk, then
     * zeros, written as base64 while it is sent.
     */
    private static InputStream imageBase64(long bytes) {
        return new SequenceInputStream(Collections.enumeration(List.of(
                new ByteArrayInputStream(
                        Base64.getEncoder().encodeToString(PNG_HEAD).getBytes(StandardCharsets.US_ASCII)),
                repeated((byte) 'A', (bytes - PNG_HEAD.length) / 3 * 4))));
    }

    private static InputStream decisionWithImage(long bytes) {
        byte[] head = ("{\"model\": \"hash-decider\", \"state\": \"a large picture\", "
                        + "\"questions\": {\"ok\": {\"type\": \"noul\"}}, "
                        + "\"media\": [{\"data\": \"data:image/png;base64,"
                        + Base64.getEncoder().encodeToString(PNG_HEAD))
                .getBytes(StandardCharsets.US_ASCII);
        byte[] tail = "\"}]}".getBytes(StandardCharsets.US_ASCII);
        return new SequenceInputStream(Collections.enumeration(List.of(
                new ByteArrayInputStream(head),
                repeated((byte) 'A', (bytes - PNG_HEAD.length) / 3 * 4),
                new ByteArrayInputStream(tail))));
    }

    private static InputStream repeated(byte value, long count) {
        return new InputStream() {
            private long left = count;

            @Override
            public int read() {
                if (left == 0) {
                    return -1;
                }
                left--;
                return value;
            }

            @Override
            public int read(byte[] buffer, int offset, int length) {
                if (left == 0) {
                    return -1;
                }
                int n = (int) Math.min(length, left);
                java.util.Arrays.fill(buffer, offset, offset + n, value);
                left -= n;
                return n;
            }
        };
    }
}
