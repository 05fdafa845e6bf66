package dev.arbor.models.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.arbor.models.Models;
import dev.arbor.models.engines.Engine;
import dev.arbor.models.engines.ReplicaSet;
import dev.arbor.models.engines.ReplicaSet.ReplicaState;
import dev.arbor.models.engines.ReplicaSet.ReplicaStatus;
import dev.arbor.models.engines.Scoring;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.testing.MovableClock;
import dev.arbor.testing.TinyLlama;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Replica sets of real worker processes (the hash engine): balancing, replacement, scaling and their end. */
class ReplicaSetTest {
    static final Duration LOAD = Duration.ofSeconds(90);
    static final Scoring.Request REQUEST = new Scoring.Request(
            "Billed twice for March",
            List.of(),
            List.of(new Scoring.Question(
                    "team",
                    "choice",
                    "Which team?",
                    List.of(
                            new Scoring.Option("billing", "billing", null),
                            new Scoring.Option("tech", "tech", null)))));

    @TempDir
    Path data;

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private ModelRuntime runtime;
    private final List<ReplicaState> heard = new CopyOnWriteArrayList<>();
    /** Callers of their own: the common pool may have a single thread on a small machine. */
    private final ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor();

    private Replicas replicas(int count, Map<String, String> options, Clock clock) {
        runtime = new ModelRuntime(new Models(true), data, ModelRuntime.Settings.DEFAULT, meters);
        runtime.start();
        return runtime.replicas("hash-decider", "support-bot", count, heard::add, options, clock);
    }

    private Replicas replicas(int count, Map<String, String> options) {
        return replicas(count, options, Clock.systemUTC());
    }

    @AfterEach
    void stop() {
        callers.shutdownNow();
        if (runtime != null) {
            runtime.close();
        }
    }

    private static void awaitReady(ReplicaSet set, int count) {
        await().atMost(LOAD)
                .until(() -> set.replicas().stream()
                                .filter(r -> r.status() == ReplicaStatus.READY)
                                .count()
                        == count);
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    @Test
    void aCallGoesToTheReplicaWithTheFewestCallsInFlight() throws Exception {
        var set = replicas(2, Map.of("score_delay_ms", "3000"));
        awaitReady(set, 2);

        var first = CompletableFuture.supplyAsync(() -> set.score(REQUEST), callers);
        await().atMost(LOAD).until(() -> set.replicas().stream().anyMatch(r -> r.inFlight() == 1));
        var second = CompletableFuture.supplyAsync(() -> set.score(REQUEST), callers);
        await().atMost(LOAD)
                .until(() ->
                        set.replicas().stream().mapToInt(ReplicaState::inFlight).sum() == 2);

        assertThat(set.replicas())
                .as("the slow call on one sends the next to the other")
                .extracting(ReplicaState::inFlight)
                .containsExactly(1, 1);
        assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo(second.get(30, TimeUnit.SECONDS));
        assertThat(data.resolve("logs/replica-support-bot-0.log")).exists();
        assertThat(data.resolve("logs/replica-support-bot-1.log")).exists();
    }

    @Test
    void closeStopsEveryProcess() {
        var set = replicas(2, Map.of());
        assertThat(set.score(REQUEST).probabilities()).containsKey("team");
        awaitReady(set, 2);
        List<Long> pids = set.replicas().stream().map(ReplicaState::pid).toList();
        assertThat(pids).allMatch(ReplicaSetTest::alive);
        assertThat(replicasShown("ready")).isEqualTo(2);

        set.close();

        assertThat(pids).noneMatch(ReplicaSetTest::alive);
        assertThat(set.replicas()).isEmpty();
        assertThat(replicasShown("ready")).as("the model's series stays, at 0").isZero();
        assertThat(meters.find("arbor.model.replicas").tagKeys("set").gauges())
                .as("no series names a set (a project's deployment)")
                .isEmpty();
        assertThatThrownBy(() -> set.score(REQUEST))
                .satisfies(e -> assertThat(((ApiException) e).code().code()).isEqualTo("model_ejected"));
    }

    @Test
    void aKilledReplicaIsReplacedWhileTheOthersAnswer() {
        var set = replicas(2, Map.of());
        awaitReady(set, 2);
        long killed = set.replicas().getFirst().pid();
        heard.clear();

        ProcessHandle.of(killed).orElseThrow().destroyForcibly();

        await().atMost(LOAD).until(() -> statusesOf(0).contains(ReplicaStatus.FAILED));
        for (int i = 0; i < 5; i++) {
            assertThat(set.score(REQUEST).probabilities()).containsKey("team");
        }
        await().atMost(LOAD).until(() -> statusesOf(0).contains(ReplicaStatus.READY));
        assertThat(statusesOf(0)).containsExactly(ReplicaStatus.FAILED, ReplicaStatus.STARTING, ReplicaStatus.READY);
        assertThat(heard.getFirst().error())
                .hasValueSatisfying(why -> assertThat(why).contains("killed"));
        assertThat(set.replicas().getFirst().pid()).isNotEqualTo(killed);
        assertThat(set.replicas()).extracting(ReplicaState::status).containsOnly(ReplicaStatus.READY);
    }

    private List<ReplicaStatus> statusesOf(int index) {
        return heard.stream()
                .filter(r -> r.index() == index)
                .map(ReplicaState::status)
                .toList();
    }

    @Test
    void aCallOnAReplicaThatDiesFailsAndTheNextGoesToALiveOne() {
        var set = replicas(2, Map.of("crash_marker", "CRASH"));
        awaitReady(set, 2);
        var crashing = new Scoring.Request("CRASH now", List.of(), REQUEST.questions());

        assertThatThrownBy(() -> set.score(crashing))
                .satisfies(e -> assertThat(((ApiException) e).code().code()).isEqualTo("model_crashed"))
                .hasMessageContaining("exit code 70");
        assertThat(set.score(REQUEST).probabilities()).containsKey("team");
    }

    @Test
    void scalesUpAndThenDownStoppingTheReplicasItLetsGo() {
        var set = replicas(1, Map.of());
        awaitReady(set, 1);
        set.scale(3);
        assertThat(set.desired()).isEqualTo(3);
        awaitReady(set, 3);
        assertThat(set.replicas()).extracting(ReplicaState::index).containsExactly(0, 1, 2);
        List<Long> pids = set.replicas().stream().map(ReplicaState::pid).toList();

        set.scale(1);

        await().atMost(LOAD).until(() -> set.replicas().size() == 1);
        assertThat(set.replicas()).extracting(ReplicaState::index).containsExactly(0);
        await().atMost(LOAD).until(() -> !alive(pids.get(1)) && !alive(pids.get(2)));
        assertThat(heard)
                .filteredOn(r -> r.status() == ReplicaStatus.STOPPING)
                .extracting(ReplicaState::index)
                .containsExactlyInAnyOrder(1, 2);
        assertThat(set.score(REQUEST).probabilities()).containsKey("team");
    }

    @Test
    void autoscalingGoesUpAtOnceWithTheCallsInFlightAndDownAfterAQuietPeriod() throws Exception {
        var clock = new MovableClock();
        var set = replicas(1, Map.of("score_delay_ms", "1500"), clock);
        set.autoscale(Optional.of(new ReplicaSet.Autoscaling(1, 3, 1)));
        awaitReady(set, 1);

        List<CompletableFuture<Scoring.Answer>> calls = List.of(
                CompletableFuture.supplyAsync(() -> set.score(REQUEST), callers),
                CompletableFuture.supplyAsync(() -> set.score(REQUEST), callers),
                CompletableFuture.supplyAsync(() -> set.score(REQUEST), callers));
        await().atMost(LOAD)
                .until(() ->
                        set.replicas().stream().mapToInt(ReplicaState::inFlight).sum() == 3);
        set.tick();
        assertThat(set.desired()).as("three in flight, a target of one").isEqualTo(3);
        awaitReady(set, 3);
        for (var call : calls) {
            call.get(60, TimeUnit.SECONDS);
        }

        set.tick();
        assertThat(set.desired()).as("not before the quiet period").isEqualTo(3);
        clock.advance(Replicas.QUIET_PERIOD.plus(Replicas.AUTOSCALING_WINDOW).plusSeconds(1));
        set.tick();
        set.tick();
        assertThat(set.desired()).isEqualTo(1);
        await().atMost(LOAD).until(() -> set.replicas().size() == 1);
    }

    @ParameterizedTest
    @CsvSource({"hash-decider, embed", "hash-decider, generate", "minilm-decider, generate"})
    void aCallTheModelCannotServeIsRefused(String modelId, String call) {
        runtime = new ModelRuntime(new Models(true), data, ModelRuntime.Settings.DEFAULT, meters);
        try (var set = runtime.replicas(modelId, "none-running", 0, ReplicaSet.Listener.NONE)) {
            assertThatThrownBy(() -> {
                        if (call.equals("embed")) {
                            set.embed(List.of("a text"));
                        } else {
                            set.generate(
                                    new ReplicaSet.GenerationRequest(
                                            List.of(new ReplicaSet.Message("user", "hi")),
                                            5,
                                            0,
                                            1,
                                            List.of(),
                                            Optional.empty()),
                                    delta -> {});
                        }
                    })
                    .isInstanceOfSatisfying(ApiException.class, e -> {
                        assertThat(e.code().code()).isEqualTo("model_capability_unsupported");
                        assertThat(e.code().status()).isEqualTo(400);
                        assertThat(e.problems().getFirst().param()).isEqualTo("model");
                    });
            assertThat(set.capabilities()).doesNotContain(ReplicaSet.Capability.valueOf(call.toUpperCase(Locale.ROOT)));
        }
    }

    @Test
    void embedsEachInputIntoOneVectorOfTheModelsDimension() {
        runtime = new ModelRuntime(new Models(true), data, ModelRuntime.Settings.DEFAULT, meters);
        runtime.start();
        var set = runtime.replicas("minilm-decider", "embedder", 1, ReplicaSet.Listener.NONE);
        assertThat(set.capabilities()).contains(ReplicaSet.Capability.EMBED);

        ReplicaSet.Embeddings embeddings =
                set.embed(List.of("Billed twice for March", "The login page is broken", "Billed twice for March"));

        assertThat(embeddings.vectors())
                .hasSize(3)
                .allSatisfy(vector -> assertThat(vector).hasSize(384));
        assertThat(embeddings.vectors().get(0)).isEqualTo(embeddings.vectors().get(2));
        assertThat(embeddings.vectors().get(0))
                .isNotEqualTo(embeddings.vectors().get(1));
        assertThat(embeddings.inputTokens()).isGreaterThan(6);
    }

    @Test
    void anEmbeddingPastTheCallersPatienceIsModelTimeoutAndItsReplicaStopsEmbeddingForNoOne() {
        runtime = new ModelRuntime(new Models(true), data, ModelRuntime.Settings.DEFAULT, meters);
        runtime.start();
        var set = runtime.replicas("minilm-decider", "patient", 1, ReplicaSet.Listener.NONE);
        set.embed(List.of("ready"));
        ProcessHandle worker = ProcessHandle.of(set.replicas().getFirst().pid()).orElseThrow();
        String text = String.join(" ", Collections.nCopies(40, "a billing question about a refund"));
        // minutes of work on two cores
        List<String> inputs =
                IntStream.range(0, 2048).mapToObj(i -> i + " " + text).toList();

        assertThatThrownBy(() -> set.embed(inputs, Duration.ofMillis(500)))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.code().code()).isEqualTo("model_timeout");
                    assertThat(e.code().status()).isEqualTo(504);
                    assertThat(e.problems().getFirst().param()).isEqualTo("model");
                });
        // the worker stops at its next input: its processor time stops growing, where the batch would take minutes
        long[] lastCpuMillis = {cpuMillis(worker)};
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> {
                    long now = cpuMillis(worker);
                    long used = now - lastCpuMillis[0];
                    lastCpuMillis[0] = now;
                    return used < 300;
                });
    }

    private static long cpuMillis(ProcessHandle process) {
        return process.info().totalCpuDuration().orElseThrow().toMillis();
    }

    @Test
    void aReplicasVectorsAreTheEnginesOwnToTheBit() throws Exception {
        runtime = new ModelRuntime(new Models(true), data, ModelRuntime.Settings.DEFAULT, meters);
        runtime.start();
        var set = runtime.replicas("minilm-decider", "exact", 1, ReplicaSet.Listener.NONE);
        var texts = List.of("Billed twice for March", "The login page is broken");

        ReplicaSet.Embeddings served = set.embed(texts);

        List<float[]> own = ((Engine.Embedder) Engine.load("embedding", Map.of()))
                .embed(texts)
                .vectors();
        assertThat(served.vectors()).hasSameSizeAs(own);
        for (int i = 0; i < own.size(); i++) {
            assertThat(served.vectors().get(i)).containsExactly(own.get(i));
        }
    }

    @Test
    void generatesStreamingDeltasThatAddUpToTheTextTheSameEachTimeAtTemperatureZero() throws Exception {
        Path folder = data.resolve("tiny-llama");
        TinyLlama.write(folder, 7);
        // a model added from a local folder, as the registry would hand it to the runtime
        var tinyLlama = new RunnableModel(
                "tiny-llama",
                "causal-lm",
                Map.of(),
                Optional.of(folder),
                Optional.empty(),
                "downloaded",
                Optional.empty(),
                Map.of());
        RunnableModels models = (modelId, param) -> tinyLlama;
        runtime = new ModelRuntime(models, data, ModelRuntime.Settings.DEFAULT, meters);
        runtime.start();
        try (var set = runtime.replicas("tiny-llama", "writer", 1, ReplicaSet.Listener.NONE)) {
            var request = new ReplicaSet.GenerationRequest(
                    List.of(new ReplicaSet.Message("system", "Be brief."), new ReplicaSet.Message("user", "Hello")),
                    12,
                    0,
                    1,
                    List.of(),
                    Optional.empty());
            var deltas = new ArrayList<String>();
            // seen with Jlama 0.8.4: a fresh worker's first generation of a new length may differ; from the second
            // on, the same input gives the same text
            set.generate(request, delta -> {});

            ReplicaSet.Generation generation = set.generate(request, deltas::add);

            assertThat(deltas).isNotEmpty();
            assertThat(String.join("", deltas)).isEqualTo(generation.text());
            assertThat(generation.finishReason()).isEqualTo("length");
            assertThat(generation.completionTokens()).isEqualTo(12);
            assertThat(generation.promptTokens()).isGreaterThan("system: Be brief.".length());
            assertThat(set.generate(request, delta -> {})).isEqualTo(generation);
        }
    }

    /** What {@code arbor_model_replicas} shows for the model of these sets in this status. */
    private double replicasShown(String status) {
        return meters.get("arbor.model.replicas")
                .tag("model", "hash-decider")
                .tag("status", status)
                .gauge()
                .value();
    }
}
