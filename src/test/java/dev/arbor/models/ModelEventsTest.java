package dev.arbor.models;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.platform.json.Json;
import dev.arbor.testing.TestServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /models/{id}/events}: a model's download and load as server-sent events, read as a client would with
 * {@link HttpClient}: the state first, then each change in order, and {@code end} when the work ends.
 */
class ModelEventsTest {
    private static final Duration WORK = Duration.ofSeconds(60);

    /** One event of the stream: its name and its JSON data. */
    record Event(String name, JsonNode data) {}

    /** Reads a stream's events as they come, on a thread of its own, until the stream ends or is closed. */
    static final class EventReader implements AutoCloseable {
        final List<Event> events = new CopyOnWriteArrayList<>();
        final int status;
        private final InputStream body;
        private volatile boolean ended;

        EventReader(TestServer http, String path) {
            try {
                HttpResponse<InputStream> response = HttpClient.newHttpClient()
                        .send(
                                HttpRequest.newBuilder(http.uri(path))
                                        .header("accept", "text/event-stream")
                                        .GET()
                                        .build(),
                                HttpResponse.BodyHandlers.ofInputStream());
                this.status = response.statusCode();
                this.body = response.body();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            Thread.ofVirtual().start(this::read);
        }

        private void read() {
            try (var lines = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
                String name = null;
                for (String line; (line = lines.readLine()) != null; ) {
                    if (line.startsWith("event: ")) {
                        name = line.substring("event: ".length());
                    } else if (line.startsWith("data: ")) {
                        events.add(new Event(name, Json.read(line.substring("data: ".length()))));
                    }
                }
            } catch (IOException e) {
                // closed by the test
            } finally {
                ended = true;
            }
        }

        List<Event> named(String name) {
            return events.stream().filter(e -> e.name().equals(name)).toList();
        }

        List<Event> untilEnd() {
            await().atMost(WORK).until(() -> ended);
            return List.copyOf(events);
        }

        @Override
        public void close() throws IOException {
            body.close();
        }
    }

    private static ArborServer server(Map<String, String> more) {
        var env = new HashMap<>(more);
        env.put("ARBOR_TEST_MODELS", "1");
        return ArborServer.start(env);
    }

    @Test
    void aDownloadStreamsItsStateThenGrowingBytesThenItsEnd() throws Exception {
        try (var hub = new TestHub().withMiniLm("test/minilm");
                var server = server(ModelDownloadTest.env(hub))) {
            TestServer http = server.http();
            hub.pauseMillisPerChunk = 5;
            assertThat(http.post(
                                    "/models",
                                    "{\"id\": \"streamed\", \"model_uri\": \"test/minilm\", \"model_name\": "
                                            + "\"m\", \"model_source\": \"model_hub\", \"engine\": \"embedding\"}")
                            .status())
                    .isEqualTo(202);

            try (var stream = new EventReader(http, "/models/streamed/events")) {
                List<Event> events = stream.untilEnd();

                assertThat(events.getFirst().name()).isEqualTo("model");
                assertThat(events.getFirst().data().path("status").asText()).isEqualTo("downloading");
                List<JsonNode> downloads =
                        stream.named("download").stream().map(Event::data).toList();
                List<JsonNode> growing =
                        downloads.stream().filter(d -> d.has("bytes_done")).toList();
                assertThat(growing).as("bytes as they come").hasSizeGreaterThan(1);
                for (int i = 1; i < growing.size(); i++) {
                    assertThat(growing.get(i).path("bytes_done").asLong())
                            .isGreaterThan(growing.get(i - 1).path("bytes_done").asLong());
                }
                long total = growing.getFirst().path("bytes_total").asLong();
                assertThat(growing)
                        .allSatisfy(
                                d -> assertThat(d.path("bytes_total").asLong()).isEqualTo(total));
                assertThat(downloads.getLast().path("status").asText()).isEqualTo("downloaded");
                assertThat(downloads.getLast().has("bytes_done"))
                        .as("the download is over")
                        .isFalse();
                assertThat(events.getLast().name()).isEqualTo("end");
            }
        }
    }

    @Test
    void aLoadStartedWhileTheStreamIsOpenStreamsLoadingThenLoaded() throws Exception {
        try (var server = server(Map.of());
                var stream = new EventReader(server.http(), "/models/hash-decider/events")) {
            await().atMost(WORK).until(() -> !stream.events.isEmpty());
            assertThat(stream.events.getFirst().data().path("status").asText()).isEqualTo("downloaded");

            server.http().post("/models/hash-decider/load", "{\"options\": {\"load_delay_ms\": \"500\"}}");
            List<Event> events = stream.untilEnd();

            assertThat(events).extracting(Event::name).containsExactly("model", "load", "load", "end");
            JsonNode loading = events.get(1).data();
            assertThat(loading.path("status").asText()).isEqualTo("loading");
            assertThat(loading.path("worker_pid").asLong())
                    .as("the worker started")
                    .isPositive();
            assertThat(events.get(2).data().path("status").asText()).isEqualTo("loaded");
            assertThat(events.get(2).data().path("worker_pid").asLong())
                    .isEqualTo(loading.path("worker_pid").asLong());
        }
    }

    @Test
    void aLoadThatFailsEndsTheStreamWithItsErrorCode() throws Exception {
        try (var server = server(Map.of());
                var stream = new EventReader(server.http(), "/models/hash-small/events")) {
            await().atMost(WORK).until(() -> !stream.events.isEmpty());

            server.http().post("/models/hash-small/load", "{\"options\": {\"fail_load\": \"true\"}}");
            List<Event> events = stream.untilEnd();

            JsonNode last = stream.named("load").getLast().data();
            assertThat(last.path("status").asText()).isEqualTo("failed");
            assertThat(last.at("/error/code").asText()).isEqualTo("model_load_failed");
            assertThat(last.at("/error/message").asText()).contains("fail_load");
            assertThat(events.getLast().name()).isEqualTo("end");
        }
    }

    @Test
    void aModelWithNothingUnderWaySendsItsStateAndWaits() throws Exception {
        try (var server = server(Map.of());
                var stream = new EventReader(server.http(), "/models/hash-small/events")) {
            assertThat(stream.status).isEqualTo(200);
            await().atMost(WORK).until(() -> !stream.events.isEmpty());

            Event first = stream.events.getFirst();
            assertThat(first.name()).isEqualTo("model");
            assertThat(first.data().path("id").asText()).isEqualTo("hash-small");
            assertThat(first.data().path("status").asText()).isEqualTo("downloaded");
            assertThat(server.http().get("/models/hash-small").json()).isEqualTo(first.data());
        }
    }

    @Test
    void theStreamOfAnUnknownModelIsNotFound() {
        try (var server = server(Map.of())) {
            server.http()
                    .get("/models/nope/events", "accept", "text/event-stream")
                    .assertError(404, "model_not_found", "model_id");
        }
    }
}
