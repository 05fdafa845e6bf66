package dev.arbor.studio;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.Multipart;
import dev.arbor.testing.TestServer;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A seeded fuzzer over uploads: forms cut short, boundaries wrong, headers damaged, names and media types odd,
 * random bytes. Every answer is 201 or a clear refusal with the envelope, never a server error; the seed is printed
 * so a failure can be replayed.
 */
class UploadFuzzTest {
    private static final long SEED = Long.getLong("fuzz.seed", System.nanoTime());
    private static final int CASES = Integer.getInteger("fuzz.cases", 300);
    private static final Set<Integer> CLEAR = Set.of(201, 400, 413, 415);
    private static final List<String> TYPES = List.of(
            "image/png",
            "audio/mpeg",
            "video/mp4",
            "text/plain",
            "image/svg+xml",
            "application/octet-stream",
            "",
            "image/",
            "/",
            "multipart/form-data",
            Multipart.CONTENT_TYPE,
            "multipart/form-data; boundary=",
            "multipart/form-data; boundary=\"x y\"");
    private static final List<String> NAMES = List.of(
            "a.png",
            "../../etc/passwd",
            "C:\\x\\y.mp3",
            "",
            ".",
            "..",
            "noext",
            "x.webm",
            "é€😀.jpg",
            "a\u0000b.png",
            "a\r\nX-Evil: 1.png",
            "x".repeat(600) + ".gif");

    private static ArborServer server;
    private static TestServer http;

    @BeforeAll
    static void start() {
        System.out.println("UploadFuzzTest seed: " + SEED + " (replay with -Dfuzz.seed=" + SEED + ")");
        server = ArborServer.start(Map.of());
        http = server.http();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void noUploadCausesAServerError() {
        Random random = new Random(SEED);
        String previous = "";
        for (int i = 0; i < CASES; i++) {
            String type = TYPES.get(random.nextInt(TYPES.size()));
            byte[] body = random.nextBoolean() ? form(random) : bytes(random, random.nextInt(64));
            String name = NAMES.get(random.nextInt(NAMES.size()));
            String query = random.nextBoolean()
                    ? ""
                    : "?name=" + java.net.URLEncoder.encode(name, StandardCharsets.UTF_8)
                            + (random.nextInt(4) == 0 ? "&purpose=other" : "");
            HttpReply reply;
            try {
                reply = type.isEmpty()
                        ? http.sendBytes("POST", FilesApiContract.F + query, body)
                        : http.sendBytes("POST", FilesApiContract.F + query, body, "Content-Type", type);
            } catch (RuntimeException e) {
                throw new AssertionError(
                        "case " + i + " (" + type + ", " + query + ", " + body.length
                                + " bytes) got no answer; the case before: " + previous,
                        e);
            }
            assertThat(CLEAR)
                    .as("case %d (%s, %s): %s", i, type, query, reply.body())
                    .contains(reply.status());
            previous = i + " (" + type + ", " + query + ", " + body.length + " bytes) -> " + reply.status() + " "
                    + reply.headers().map();
            if (reply.status() == 201) {
                String id = reply.json().path("id").asText();
                assertThat(http.get(FilesApiContract.F + "/" + id).status()).isEqualTo(200);
                String disposition =
                        http.get(FilesApiContract.F + "/" + id + "/content").header("content-disposition");
                assertThat(disposition)
                        .doesNotContain("\r")
                        .doesNotContain("\n")
                        .doesNotContain("/");
            } else {
                assertThat(reply.json().path("error").path("code").asText())
                        .as(reply.body())
                        .isNotBlank();
            }
        }
    }

    /** A form built right and then damaged: cut, a byte flipped, or a part's headers mangled. */
    private static byte[] form(Random random) {
        var form = new Multipart();
        if (random.nextInt(5) > 0) {
            form.file(
                    random.nextBoolean() ? "file" : "other",
                    NAMES.get(random.nextInt(NAMES.size())),
                    TYPES.get(random.nextInt(TYPES.size())),
                    bytes(random, random.nextInt(2048)));
        }
        if (random.nextBoolean()) {
            form.field(random.nextBoolean() ? "purpose" : "file", random.nextBoolean() ? "media" : "x");
        }
        byte[] whole = form.bytes();
        var out = new ByteArrayOutputStream();
        switch (random.nextInt(4)) {
            case 0 -> out.writeBytes(whole);
            case 1 -> out.write(whole, 0, random.nextInt(whole.length + 1));
            case 2 -> {
                byte[] flipped = whole.clone();
                flipped[random.nextInt(flipped.length)] ^= (byte) (1 + random.nextInt(255));
                out.writeBytes(flipped);
            }
            default ->
                out.writeBytes(new String(whole, StandardCharsets.ISO_8859_1)
                        .replace("Content-Disposition", random.nextBoolean() ? "Content-Dispositio" : "X")
                        .getBytes(StandardCharsets.ISO_8859_1));
        }
        return out.toByteArray();
    }

    private static byte[] bytes(Random random, int length) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }
}
