package dev.arbor.models.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.arbor.models.Models;
import dev.arbor.models.engines.ReplicaSet;
import dev.arbor.models.engines.Scoring;
import dev.arbor.models.workers.WorkerLink;
import dev.arbor.models.workers.WorkerProtocol;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.json.Json;
import dev.arbor.testing.TempFolders;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A worker's side of the request kinds, on one real hash-engine worker: what it answers and what it refuses. */
class WorkerProtocolTest {
    private static final Duration ANSWER = Duration.ofSeconds(30);
    private static WorkerProcess.Launcher launcher;
    private static WorkerProcess worker;
    private static WorkerLink link;

    @BeforeAll
    static void startWorker() throws Exception {
        Path data = TempFolders.newFolder("arbor-protocol-");
        launcher = new WorkerProcess.Launcher(data.resolve("logs"), data.resolve("cache"));
        RunnableModel hash = new Models(true).runnable("hash-decider", "model");
        worker = launcher.start(
                hash,
                Map.of(),
                ReplicaSet.WorkerLimits.NONE,
                launcher.workerLog(hash.id()),
                Optional.empty(),
                ready -> {});
        link = worker.link.get(90, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stopWorker() {
        worker.stop();
    }

    @Test
    void aRequestWithoutAKindIsScored() throws Exception {
        var request = new Scoring.Request(
                "Billed twice",
                List.of(),
                List.of(new Scoring.Question(
                        "team",
                        "choice",
                        "Which team?",
                        List.of(new Scoring.Option("a", "a", null), new Scoring.Option("b", "b", null)))));

        var answer = WorkerProtocol.answer(
                WorkerProtocol.exchange(link, WorkerProtocol.score(request), ANSWER, delta -> {}, "Model hash"));

        assertThat(answer.probabilities().get("team")).hasSize(2);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{\"kind\": \"embed\", \"inputs\": [\"a text\"]}",
                "{\"kind\": \"generate\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}], \"max_tokens\": 3}",
                "{\"kind\": \"translate\"}"
            })
    void aKindTheEngineDoesNotServeIsUnsupported(String request) {
        assertThatThrownBy(() -> WorkerProtocol.exchange(
                        link, Json.write(Json.read(request)), ANSWER, delta -> {}, "Model hash"))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.code().code()).isEqualTo("model_capability_unsupported");
                    assertThat(e.problems().getFirst().param()).isEqualTo("model");
                });
    }

    @Test
    void anEmbeddingTheWorkerGaveUpOnIsATimeoutEvenWhenTheWorkerSaysSoBeforeTheServerNotices() throws Exception {
        RunnableModel minilm = new Models(true).runnable("minilm-decider", "model");
        WorkerProcess embedder = launcher.start(
                minilm,
                Map.of(),
                ReplicaSet.WorkerLimits.NONE,
                launcher.workerLog(minilm.id()),
                Optional.empty(),
                ready -> {});
        try {
            WorkerLink embedderLink = embedder.link.get(90, TimeUnit.SECONDS);
            // the worker's patience is spent before its first input; the server here would wait its whole 30 s
            byte[] request = WorkerProtocol.embed(List.of("a text", "another"), Duration.ZERO);

            assertThatThrownBy(() ->
                            WorkerProtocol.exchange(embedderLink, request, ANSWER, ANSWER, delta -> {}, "Model minilm"))
                    .isInstanceOfSatisfying(ApiException.class, e -> {
                        assertThat(e.code().code()).isEqualTo("model_timeout");
                        assertThat(e.problems().getFirst().param()).isEqualTo("model");
                    });
        } finally {
            embedder.stop();
        }
    }

    @Test
    void aVectorTravelsAsItsExactFloats() {
        float[] vector = {0.1f, -0.0f, Float.MIN_VALUE, -3.4028235e38f, 1f / 3, Float.NaN};

        float[] back = WorkerProtocol.vector(WorkerProtocol.vector(vector));

        assertThat(back).containsExactly(vector);
        assertThat(Float.floatToRawIntBits(back[1])).isEqualTo(Float.floatToRawIntBits(-0.0f));
    }
}
