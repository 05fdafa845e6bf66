package dev.arbor.models;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.testing.ArborProcess;
import dev.arbor.testing.TestServer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server killed (kill -9) in the middle of a model download: after the restart the model is {@code not_downloaded}
 * (never {@code downloading} with no download behind it, never {@code downloaded} with half its files), and the
 * download resumes from what was kept, with HTTP ranges, to a model that answers.
 */
class KillDuringDownloadTest {
    @TempDir
    Path folder;

    @Test
    void aDownloadCutByAKillIsNotDownloadedAfterTheRestartAndResumes() throws Exception {
        try (var hub = new TestHub().withMiniLm("test/minilm")) {
            hub.pauseMillisPerChunk = 15;
            try (var server = ArborProcess.serve(folder.resolve("data"), ModelDownloadTest.env(hub))) {
                TestServer http = server.http();
                http.post("/models", """
                        {"id": "hub-minilm", "model_uri": "test/minilm@main", "model_name": "m",
                         "model_source": "model_hub", "engine": "embedding"}""");
                ModelDownloadTest.waitFor(
                        http, "hub-minilm", m -> m.at("/download/bytes_done").asLong() > 256 * 1024);

                server.kill();
                hub.pauseMillisPerChunk = 0;
                server.start();

                assertThat(http.get("/models/hub-minilm").json().path("status").asText())
                        .isEqualTo("not_downloaded");
                http.action("/models/hub-minilm/download");
                ModelDownloadTest.waitFor(
                        http, "hub-minilm", m -> m.path("status").asText().equals("downloaded"));
                assertThat(hub.ranges).as("resumed from the kept bytes").isNotEmpty();
                assertThat(http.post("/v1/studio/decisions", """
                                {"model": "hub-minilm", "state": "I was charged twice and want my money back.",
                                 "questions": {"team": {"type": "choice", "criteria": {
                                   "billing": "charges, refunds and invoices",
                                   "technical": "errors, crashes and outages"}}}}""")
                                .json()
                                .at("/answers/team/decision")
                                .asText())
                        .isEqualTo("billing");
            }
        }
    }
}
