package dev.arbor.studio;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.MovableClock;
import dev.arbor.testing.Multipart;
import dev.arbor.testing.StudioFiles;
import dev.arbor.testing.TestServer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Uploaded media files over HTTP, and how decisions keep and use them; run on SQLite and on PostgreSQL. */
abstract class FilesApiContract extends ServerContract {
    static final String F = "/v1/studio/files";
    static final String D = "/v1/studio/decisions";

    @BeforeAll
    void createTemplate() {
        assertThat(http.post("/v1/studio/templates", """
                {"id": "look", "model": "hash-decider", "modalities": ["text", "image"],
                 "variables": {"note": {"type": "string"}, "photo": {"type": "image"},
                               "id_card": {"type": "image", "sensitive": true, "required": false}},
                 "state": "{{note}}",
                 "questions": {"damaged": {"type": "noul"}}}""").status()).isEqualTo(201);
    }

    HttpReply upload(String name, String contentType, byte[] bytes) {
        return StudioFiles.upload(http, name, contentType, bytes);
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    Path blob(String sha) {
        return server.dataDir().resolve("blobs/sha256/" + sha.substring(0, 2) + "/" + sha);
    }

    @Test
    void anUploadIsDescribedKeptOnceByContentAndExpiresInADayUnlessUsed() throws Exception {
        HttpReply reply = upload("C:\\fakepath\\shot.png", "image/png", StudioFiles.PNG);
        assertThat(reply.status()).as(reply.body()).isEqualTo(201);
        JsonNode file = reply.json();
        String id = file.path("id").asText();
        assertThat(id).startsWith("file_");
        assertThat(reply.header("location")).isEqualTo(F + "/" + id);
        assertThat(file.path("object").asText()).isEqualTo("file");
        assertThat(file.path("purpose").asText()).isEqualTo("media");
        assertThat(file.path("type").asText()).isEqualTo("image");
        assertThat(file.path("content_type").asText()).isEqualTo("image/png");
        assertThat(file.path("name").asText()).isEqualTo("shot.png");
        assertThat(file.path("bytes").asInt()).isEqualTo(StudioFiles.PNG.length);
        assertThat(file.path("sha256").asText()).isEqualTo("sha256:" + sha256(StudioFiles.PNG));
        assertThat(file.path("expires_at").asLong())
                .isEqualTo(file.path("created_at").asLong() + 86_400);
        assertThat(file.path("available").asBoolean()).isTrue();
        assertThat(http.get(F + "/" + id).json()).isEqualTo(file);

        JsonNode again = http.sendBytes("POST", F + "?name=again.png", StudioFiles.PNG, "Content-Type", "image/png")
                .json();
        assertThat(again.path("id").asText()).isNotEqualTo(id);
        assertThat(again.path("sha256")).isEqualTo(file.path("sha256"));
        assertThat(again.path("name").asText()).isEqualTo("again.png");
        try (Stream<Path> blobs = Files.list(blob(sha256(StudioFiles.PNG)).getParent())) {
            assertThat(blobs.filter(p -> p.getFileName().toString().equals(sha256(StudioFiles.PNG))))
                    .hasSize(1);
        }

        JsonNode audio = http.sendBytes(
                        "POST",
                        F,
                        new byte[] {'I', 'D', '3', 4},
                        "Content-Type",
                        "audio/mpeg",
                        "X-Filename",
                        "clip.mp3")
                .json();
        assertThat(audio.path("type").asText()).isEqualTo("audio");
        assertThat(audio.path("content_type").asText()).isEqualTo("audio/mpeg");
        JsonNode video = upload("talk.webm", "video/webm", new byte[] {0x1a, 0x45, (byte) 0xdf, (byte) 0xa3})
                .json();
        assertThat(video.path("type").asText()).isEqualTo("video");
        JsonNode byName = upload(
                        "voice.webm", "application/octet-stream", new byte[] {0x1a, 0x45, (byte) 0xdf, (byte) 0xa3, 1, 2
                        })
                .json();
        assertThat(byName.path("type").asText()).isEqualTo("audio");
        assertThat(byName.path("content_type").asText()).isEqualTo("audio/webm");
    }

    @Test
    void aPageOfThisSiteMayUploadAFormAndARetryWithItsKeyGetsTheSameFile() {
        byte[] form = new Multipart()
                .file("file", "drop.png", "image/png", StudioFiles.PNG)
                .bytes();
        String own = "http://127.0.0.1:" + http.port();
        HttpReply browser = http.sendBytes(
                "POST", F, form, "Content-Type", Multipart.CONTENT_TYPE, "Origin", own, "Idempotency-Key", "upload-1");
        assertThat(browser.status()).as(browser.body()).isEqualTo(201);
        HttpReply retry = http.sendBytes(
                "POST", F, form, "Content-Type", Multipart.CONTENT_TYPE, "Origin", own, "Idempotency-Key", "upload-1");
        assertThat(retry.header("idempotent-replayed")).isEqualTo("true");
        assertThat(retry.json().path("id")).isEqualTo(browser.json().path("id"));
        http.sendBytes(
                        "POST",
                        F,
                        new Multipart()
                                .file("file", "other.png", "image/png", new byte[] {1, 2, 3})
                                .bytes(),
                        "Content-Type",
                        Multipart.CONTENT_TYPE,
                        "Idempotency-Key",
                        "upload-1")
                .assertError(409, "idempotency_key_reused", "Idempotency-Key");
        http.sendBytes("POST", F, form, "Content-Type", Multipart.CONTENT_TYPE, "Origin", "https://evil.example")
                .assertError(403, "cross_site_request", null);
    }

    @Test
    void anExampleKeepsItsMediaAsFilesForGood() {
        http.post(
                "/v1/studio/templates",
                "{\"id\": \"pics\", \"model\": \"hash-decider\", \"modalities\": "
                        + "[\"text\", \"image\"], \"questions\": {\"ok\": {\"type\": \"noul\"}}}");
        String photo =
                upload("e.png", "image/png", StudioFiles.PNG).json().path("id").asText();
        JsonNode example = http.post(
                        "/v1/studio/templates/pics/examples",
                        "{\"state\": \"a shelf\", "
                                + "\"media\": [{\"file_id\": \"" + photo + "\"}, {\"data\": \"data:image/png;base64,"
                                + Base64.getEncoder().encodeToString(new byte[] {(byte) 0x89, 'P', 'N', 'G', 5})
                                + "\"}], "
                                + "\"expected\": {\"ok\": \"yes\"}}")
                .json();
        assertThat(example.at("/media/0/file_id").asText())
                .as(example.toString())
                .isEqualTo(photo);
        String inline = example.at("/media/1/file_id").asText();
        assertThat(inline).startsWith("file_").isNotEqualTo(photo);
        assertThat(http.get(F + "/" + photo).json().path("expires_at").isNull()).isTrue();
        assertThat(http.get(F + "/" + inline).json().path("expires_at").isNull())
                .isTrue();
        http.post(
                        "/v1/studio/templates/pics/examples",
                        "{\"state\": \"a shelf\", \"media\": [{\"file_id\": "
                                + "\"file_01JZZZZZZZZZZZZZZZZZZZZZZZ\"}], \"expected\": {\"ok\": \"no\"}}")
                .assertError(404, "file_not_found", "media[0].file_id");
    }

    @Test
    void badUploadsAreRefusedWithTheirCodeAndLeaveNothingBehind() throws Exception {
        http.sendBytes(
                        "POST",
                        F,
                        new Multipart().field("purpose", "media").bytes(),
                        "Content-Type",
                        Multipart.CONTENT_TYPE)
                .assertError(400, "missing_field", "file");
        http.sendBytes(
                        "POST",
                        F,
                        new Multipart().field("file", "just text").bytes(),
                        "Content-Type",
                        Multipart.CONTENT_TYPE)
                .assertError(400, "missing_field", "file");
        http.sendBytes("POST", F + "?name=empty.png", new byte[0], "Content-Type", "image/png")
                .assertError(400, "missing_field", "file");
        upload("notes.txt", "text/plain", "hello".getBytes(StandardCharsets.UTF_8))
                .assertError(415, "unsupported_media_type", "file");
        JsonNode notPng = upload("a.png", "image/png", "hello, I am text".getBytes(StandardCharsets.UTF_8))
                .assertError(400, "invalid_field", "file");
        assertThat(notPng.path("message").asText()).contains("'a.png'").contains("not image/png");
        http.sendBytes(
                        "POST",
                        F + "?name=clip.mp3",
                        "hello".getBytes(StandardCharsets.UTF_8),
                        "Content-Type",
                        "audio/mpeg")
                .assertError(400, "invalid_field", "file");
        http.sendBytes("POST", F + "?name=clip.mp4", StudioFiles.PNG, "Content-Type", "video/mp4")
                .assertError(400, "invalid_field", "file");
        http.sendBytes("POST", F, "<html></html>".getBytes(StandardCharsets.UTF_8), "Content-Type", "text/html")
                .assertError(415, "unsupported_media_type", "file");
        http.sendBytes(
                        "POST",
                        F,
                        new Multipart()
                                .file("file", "a.png", "image/png", StudioFiles.PNG)
                                .field("purpose", "batch")
                                .bytes(),
                        "Content-Type",
                        Multipart.CONTENT_TYPE)
                .assertError(400, "invalid_field", "purpose");
        http.sendBytes("POST", F + "?purpose=eval", StudioFiles.PNG, "Content-Type", "image/png")
                .assertError(400, "invalid_field", "purpose");
        http.sendBytes(
                        "POST",
                        F,
                        "--nope\r\ngarbage".getBytes(StandardCharsets.UTF_8),
                        "Content-Type",
                        Multipart.CONTENT_TYPE)
                .assertError(400, "invalid_field", "file");

        String tooLong = "POST " + F + "?name=big.png HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: image/png\r\n"
                + "Content-Length: " + (300L * 1024 * 1024) + "\r\nConnection: close\r\n\r\n";
        String raw = http.raw(tooLong.getBytes(StandardCharsets.US_ASCII));
        assertThat(raw).startsWith("HTTP/1.1 413").contains("\"payload_too_large\"");

        HttpReply streamed = http.sendStream(
                "POST", F + "?name=big.mp4", () -> zeros(200L * 1024 * 1024 + 1), "Content-Type", "video/mp4");
        streamed.assertError(413, "payload_too_large", "file");
        byte[] head = ("--" + Multipart.BOUNDARY + "\r\nContent-Disposition: form-data; name=\"file\"; "
                        + "filename=\"big.mp4\"\r\nContent-Type: video/mp4\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        byte[] tail = ("\r\n--" + Multipart.BOUNDARY + "--\r\n").getBytes(StandardCharsets.US_ASCII);
        http.sendStream(
                        "POST",
                        F,
                        () -> new java.io.SequenceInputStream(java.util.Collections.enumeration(java.util.List.of(
                                new java.io.ByteArrayInputStream(head),
                                zeros(200L * 1024 * 1024 + 1),
                                new java.io.ByteArrayInputStream(tail)))),
                        "Content-Type",
                        Multipart.CONTENT_TYPE)
                .assertError(413, "payload_too_large", "file");
        try (Stream<Path> left = Files.list(server.dataDir().resolve("blobs/tmp"))) {
            assertThat(left.filter(p -> p.getFileName().toString().startsWith("upload-")))
                    .isEmpty();
        }
        assertThat(Files.exists(blob(sha256(new byte[0])))).isFalse();
    }

    @Test
    void inlineMediaIsHeldToTheFirstBytesOfItsTypeAsUploadsAre() {
        String text = Base64.getEncoder().encodeToString("hello, I am text".getBytes(StandardCharsets.UTF_8));
        String question = "\"questions\": {\"ok\": {\"type\": \"noul\"}}";
        JsonNode notPng = http.post(
                        D,
                        "{\"model\": \"hash-decider\", \"state\": \"x\", " + question + ", "
                                + "\"media\": [{\"data\": \"data:image/png;base64," + text + "\"}]}")
                .assertError(400, "invalid_field", "media[0].data");
        assertThat(notPng.path("message").asText()).contains("not image/png");
        String png = "data:image/png;base64," + Base64.getEncoder().encodeToString(StudioFiles.PNG);
        http.post(
                        D,
                        "{\"template\": \"look\", \"variables\": {\"note\": \"x\", \"photo\": \""
                                + png.replace("image/png", "image/jpeg") + "\"}}")
                .assertError(400, "invalid_field", "variables.photo");
        http.post(
                        "/v1/studio/templates/look/examples",
                        "{\"variables\": {\"note\": \"x\", \"photo\": \"" + png
                                + "\"}, \"media\": [{\"data\": \"data:image/png;base64," + text + "\"}]}")
                .assertError(400, "invalid_field", "media[0].data");
        http.post(
                        "/v1/studio/templates/look/examples",
                        "{\"variables\": {\"note\": \"x\", \"photo\": " + "\"data:image/png;base64," + text + "\"}}")
                .assertError(400, "invalid_field", "variables.photo");
    }

    @Test
    void contentIsServedSoThatNoBrowserRunsIt() throws Exception {
        String png = upload("shot.png", "image/png", StudioFiles.PNG)
                .json()
                .path("id")
                .asText();
        HttpReply content = http.get(F + "/" + png + "/content");
        assertThat(content.status()).isEqualTo(200);
        assertThat(content.header("x-content-type-options")).isEqualTo("nosniff");
        assertThat(content.header("content-security-policy"))
                .contains("sandbox")
                .contains("default-src 'none'");
        assertThat(content.header("content-type")).isEqualTo("image/png");
        assertThat(content.header("content-disposition")).startsWith("inline; filename=\"shot.png\"");
        assertThat(http.bytes(F + "/" + png + "/content")).isEqualTo(StudioFiles.PNG);

        byte[] svg = "<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>"
                .getBytes(StandardCharsets.UTF_8);
        JsonNode drawing = http.sendBytes("POST", F + "?name=x%22%3B.svg", svg, "Content-Type", "image/svg+xml")
                .json();
        assertThat(drawing.path("type").asText()).isEqualTo("image");
        HttpReply served = http.get(F + "/" + drawing.path("id").asText() + "/content");
        assertThat(served.header("content-type")).isEqualTo("application/octet-stream");
        assertThat(served.header("content-disposition")).startsWith("attachment; filename=\"x__.svg\"");
        assertThat(served.header("content-security-policy")).contains("sandbox");
    }

    @Test
    void aDeletedFileIsGoneButHistoryStillSaysWhatItWas() throws Exception {
        byte[] bytes = {(byte) 0x89, 'P', 'N', 'G', 9, 9, 9};
        String first = upload("a.png", "image/png", bytes).json().path("id").asText();
        String twin = upload("b.png", "image/png", bytes).json().path("id").asText();
        JsonNode decision = http.post(
                        D,
                        "{\"template\": \"look\", \"variables\": {\"note\": \"dented box\", " + "\"photo\": \"" + first
                                + "\"}}")
                .json();
        String id = decision.path("id").asText();
        JsonNode media = http.get(D + "/" + id).json().at("/input/media/0");
        assertThat(media.path("file_id").asText()).isEqualTo(first);
        assertThat(media.path("variable").asText()).isEqualTo("photo");
        assertThat(media.path("available").asBoolean()).isTrue();
        assertThat(http.get(F + "/" + first).json().path("expires_at").isNull())
                .as("in use")
                .isTrue();

        JsonNode deleted = http.delete(F + "/" + first).json();
        assertThat(deleted.path("object").asText()).isEqualTo("file.deleted");
        assertThat(deleted.path("deleted").asBoolean()).isTrue();
        http.get(F + "/" + first).assertError(404, "file_not_found", "file_id");
        http.get(F + "/" + first + "/content").assertError(404, "file_not_found", "file_id");
        http.delete(F + "/" + first).assertError(404, "file_not_found", "file_id");
        assertThat(Files.exists(blob(sha256(bytes)))).as("shared with its twin").isTrue();
        JsonNode after = http.get(D + "/" + id).json().at("/input/media/0");
        assertThat(after.path("available").asBoolean()).isFalse();
        assertThat(after.path("sha256").asText()).isEqualTo("sha256:" + sha256(bytes));
        http.action(D + "/" + id + "/rerun").assertError(409, "input_unavailable", "variables.photo");
        JsonNode rerun = http.post(D + "/" + id + "/rerun", "{\"variables\": {\"photo\": \"" + twin + "\"}}")
                .json();
        assertThat(rerun.path("rerun_of").asText()).isEqualTo(id);

        http.delete(F + "/" + twin);
        assertThat(Files.exists(blob(sha256(bytes))))
                .as("the last file with these bytes")
                .isFalse();
        http.post(D, "{\"template\": \"look\", \"variables\": {\"note\": \"x\", \"photo\": \"" + twin + "\"}}")
                .assertError(404, "file_not_found", "variables.photo");
    }

    @Test
    void decisionsUseUploadsByIdAndKeepInlineMediaAsFiles() throws Exception {
        String photo = upload("shelf.png", "image/png", StudioFiles.PNG)
                .json()
                .path("id")
                .asText();
        byte[] wave = {'R', 'I', 'F', 'F', 4, 0, 0, 0, 'W', 'A', 'V', 'E'};
        String clip = http.sendBytes("POST", F + "?name=c.wav", wave, "Content-Type", "audio/wav")
                .json()
                .path("id")
                .asText();
        String question = "\"questions\": {\"ok\": {\"type\": \"noul\"}}";
        JsonNode adHoc = http.post(
                        D,
                        "{\"model\": \"hash-decider\", \"state\": \"x\", " + question + ", "
                                + "\"media\": [{\"file_id\": \"" + photo + "\"}], \"include\": [\"input\"]}")
                .json();
        JsonNode media = adHoc.at("/input/media/0");
        assertThat(media.path("type").asText()).as(adHoc.toString()).isEqualTo("image");
        assertThat(media.path("name").asText()).isEqualTo("shelf.png");
        assertThat(media.path("file_id").asText()).isEqualTo(photo);
        JsonNode rerun =
                http.action(D + "/" + adHoc.path("id").asText() + "/rerun").json();
        assertThat(rerun.path("status").asText()).as(rerun.toString()).isEqualTo("completed");
        JsonNode rerunStored = http.get(D + "/" + rerun.path("id").asText()).json();
        assertThat(rerunStored.at("/input/media/0/file_id").asText())
                .as(rerunStored.toString())
                .isEqualTo(photo);

        http.post(
                        D,
                        "{\"model\": \"hash-decider\", \"state\": \"x\", " + question + ", "
                                + "\"media\": [{\"file_id\": \"" + clip + "\", \"type\": \"image\"}]}")
                .assertError(400, "invalid_field", "media[0].file_id");
        http.post(D, "{\"template\": \"look\", \"variables\": {\"note\": \"x\", \"photo\": \"" + clip + "\"}}")
                .assertError(400, "invalid_variable", "variables.photo");
        http.post(
                        D,
                        "{\"model\": \"hash-decider\", \"state\": \"x\", " + question + ", "
                                + "\"media\": [{\"file_id\": \"file_01JZZZZZZZZZZZZZZZZZZZZZZZ\"}]}")
                .assertError(404, "file_not_found", "media[0].file_id");

        byte[] inline = {(byte) 0x89, 'P', 'N', 'G', 7, 7};
        JsonNode kept = http.post(
                        D,
                        "{\"template\": \"look\", \"variables\": {\"note\": \"x\", \"photo\": "
                                + "\"data:image/png;base64,"
                                + Base64.getEncoder().encodeToString(inline) + "\"}, "
                                + "\"include\": [\"input\"]}")
                .json();
        String keptId = kept.at("/input/media/0/file_id").asText();
        assertThat(keptId).startsWith("file_");
        assertThat(kept.at("/input/variables/photo").asText()).isEqualTo(keptId);
        assertThat(http.bytes(F + "/" + keptId + "/content")).isEqualTo(inline);
        assertThat(http.get(F + "/" + keptId).json().path("expires_at").isNull())
                .isTrue();

        JsonNode notKept = http.post(
                        D,
                        "{\"template\": \"look\", \"store\": \"answers_only\", \"variables\": "
                                + "{\"note\": \"x\", \"photo\": \"" + photo + "\"}}")
                .json();
        assertThat(notKept.path("status").asText()).isEqualTo("completed");
    }

    @Test
    void aSensitiveFileIsReadButNeverKept() throws Exception {
        byte[] secret = {(byte) 0x89, 'P', 'N', 'G', 's', 'e', 'c'};
        String card =
                upload("passport.png", "image/png", secret).json().path("id").asText();
        String photo =
                upload("p.png", "image/png", StudioFiles.PNG).json().path("id").asText();
        JsonNode decision = http.post(
                        D,
                        "{\"template\": \"look\", \"variables\": {\"note\": \"x\", \"photo\": \"" + photo
                                + "\", \"id_card\": \"" + card + "\"}, \"include\": [\"input\"]}")
                .json();
        JsonNode cardMedia = decision.at("/input/media/1");
        assertThat(cardMedia.path("variable").asText()).isEqualTo("id_card");
        assertThat(cardMedia.path("file_id").isNull()).isTrue();
        assertThat(cardMedia.path("name").isNull()).isTrue();
        assertThat(cardMedia.path("available").asBoolean()).isFalse();
        assertThat(cardMedia.path("sha256").asText()).startsWith("hmac-sha256:");
        String stored = http.get(D + "/" + decision.path("id").asText()).body();
        assertThat(stored)
                .doesNotContain("passport")
                .doesNotContain(sha256(secret))
                .doesNotContain(card);
        assertThat(http.get(F + "/" + card).json().path("expires_at").isNull())
                .as("not used by history")
                .isFalse();
    }

    @Test
    void unusedUploadsGoAfterADayAndUsedOnesWhenNothingUsesThemAnyMore() throws Exception {
        var clock = new MovableClock();
        try (var own = ArborServer.start(environment(), clock)) {
            TestServer api = own.http();
            byte[] lonely = {(byte) 0x89, 'P', 'N', 'G', 1};
            byte[] used = {(byte) 0x89, 'P', 'N', 'G', 2};
            String unused = api.sendBytes("POST", F + "?name=u.png", lonely, "Content-Type", "image/png")
                    .json()
                    .path("id")
                    .asText();
            String kept = api.sendBytes("POST", F + "?name=k.png", used, "Content-Type", "image/png")
                    .json()
                    .path("id")
                    .asText();
            String decision = api.post(
                            D,
                            "{\"model\": \"hash-decider\", \"state\": \"x\", \"questions\": "
                                    + "{\"ok\": {\"type\": \"noul\"}}, \"media\": [{\"file_id\": \"" + kept + "\"}]}")
                    .json()
                    .path("id")
                    .asText();
            clock.advance(Duration.ofHours(23));
            own.sweep();
            assertThat(api.get(F + "/" + unused).status())
                    .as("a day is not over")
                    .isEqualTo(200);
            clock.advance(Duration.ofHours(2));
            own.sweep();
            api.get(F + "/" + unused).assertError(404, "file_not_found", "file_id");
            Path lonelyBlob =
                    own.dataDir().resolve("blobs/sha256/" + sha256(lonely).substring(0, 2) + "/" + sha256(lonely));
            assertThat(Files.exists(lonelyBlob)).isFalse();
            assertThat(api.get(F + "/" + kept).status())
                    .as("used by a decision")
                    .isEqualTo(200);
            assertThat(api.get("/v1/studio/settings")
                            .json()
                            .at("/storage/last_sweep_files_removed")
                            .asInt())
                    .isEqualTo(1);

            api.delete(D + "/" + decision);
            clock.advance(Duration.ofHours(25));
            own.sweep();
            api.get(F + "/" + kept).assertError(404, "file_not_found", "file_id");
        }
    }

    static InputStream zeros(long count) {
        return new InputStream() {
            private long left = count;

            @Override
            public int read() {
                return left-- > 0 ? 0 : -1;
            }

            @Override
            public int read(byte[] buffer, int offset, int length) throws IOException {
                if (left <= 0) {
                    return -1;
                }
                int n = (int) Math.min(length, left);
                java.util.Arrays.fill(buffer, offset, offset + n, (byte) 0);
                left -= n;
                return n;
            }
        };
    }
}
