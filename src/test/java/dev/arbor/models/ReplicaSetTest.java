package dev.arbor.models;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.arbor.models.ReplicaSet.ReplicaState;
import dev.arbor.models.ReplicaSet.ReplicaStatus;
import dev.arbor.platform.http.ApiException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
        assertThat(meters.find("arbor.model.replicas").tag("set", "support-bot").gauges())
                .isNotEmpty();

        set.close();

        assertThat(pids).noneMatch(ReplicaSetTest::alive);
        assertThat(set.replicas()).isEmpty();
        assertThat(meters.find("arbor.model.replicas").tag("set", "support-bot").gauges())
                .isEmpty();
        assertThatThrownBy(() -> set.score(REQUEST))
                .satisfies(e -> assertThat(((ApiException) e).code().code()).isEqualTo("model_ejected"));
    }
}
