package dev.arbor.studio.running;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.platform.db.Database;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.QuestionType;
import dev.arbor.studio.history.AppliedSettings;
import dev.arbor.studio.history.Decided;
import dev.arbor.studio.history.DecisionStatus;
import dev.arbor.studio.history.Extensions;
import dev.arbor.studio.history.HistoryStore;
import dev.arbor.studio.history.StoreLevel;
import dev.arbor.studio.history.StoredDecision;
import dev.arbor.studio.questions.AnswerRow;
import dev.arbor.studio.questions.Question;
import dev.arbor.testing.TempFolders;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class GroupCommitTest {
    private static StoredDecision decision(String id) {
        var decided = new Decided(
                id,
                DecisionStatus.COMPLETED,
                1L,
                Optional.of(2L),
                Optional.empty(),
                Optional.of("hash-decider"),
                Optional.empty(),
                Extensions.NONE,
                Optional.empty(),
                new AppliedSettings(0.9, 1.0, Map.of(), Map.of()),
                0,
                Decided.Timing.NONE,
                List.of(),
                new Decided.Caller("api", "/v1/studio/decisions", "req_1"),
                Optional.empty(),
                StoreLevel.FULL,
                Optional.empty());
        return new StoredDecision(
                id,
                DecisionStatus.COMPLETED,
                StoreLevel.FULL,
                "api",
                "/v1/studio/decisions",
                "req_1",
                Optional.empty(),
                Optional.empty(),
                Optional.of("hash-decider"),
                Optional.of(true),
                Optional.of(0.95),
                Optional.empty(),
                false,
                Json.object(),
                Optional.empty(),
                1L,
                Optional.of(2L),
                Optional.of(1.0),
                decided,
                Optional.empty(),
                List.of(new AnswerRow("ok", 0, 0, QuestionType.NOUL, "yes", 0.95, 0.95, true, Question.Origin.ADHOC)),
                Json.object(),
                Optional.empty());
    }

    @Test
    void concurrentWritersShareCommitsAndABadDecisionFailsAlone() throws Exception {
        try (var database =
                Database.openSqlite(TempFolders.newFolder("arbor-group-").resolve("arbor.db"))) {
            var store = new HistoryStore(database, Clock.systemUTC(), file -> false);
            var commit = new GroupCommit(store, "srv_test");
            commit.write(decision("dec_taken"));
            var outcomes = new ArrayList<Future<Boolean>>();
            try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int i = 0; i < 200; i++) {
                    String id = i == 100 ? "dec_taken" : "dec_" + i; // one id that is already there
                    outcomes.add(pool.submit((Callable<Boolean>) () -> {
                        try {
                            commit.write(decision(id));
                            return true;
                        } catch (RuntimeException e) {
                            return false;
                        }
                    }));
                }
            }
            for (int i = 0; i < outcomes.size(); i++) {
                assertThat(outcomes.get(i).get()).as("decision %d", i).isEqualTo(i != 100);
            }
            long stored = database.read(h -> h.createQuery("SELECT count(*) FROM studio_decisions")
                    .mapTo(Long.class)
                    .one());
            long answers = database.read(h -> h.createQuery("SELECT count(*) FROM studio_decision_answers")
                    .mapTo(Long.class)
                    .one());
            assertThat(stored).isEqualTo(200);
            assertThat(answers).isEqualTo(200);
        }
    }

    @Test
    void aWriterWaitsForDecisionsInFlightOnlyUntilTheyAreGivenUp() throws Exception {
        try (var database =
                Database.openSqlite(TempFolders.newFolder("arbor-group-").resolve("arbor.db"))) {
            var commit = new GroupCommit(new HistoryStore(database, Clock.systemUTC(), file -> false), "srv_test");
            // many decisions in flight that never come (they fail at the model, say): the writer waits a moment
            // for company and then writes alone, and once they are given up it waits for nothing
            var inFlight = new ArrayList<GroupCommit.InFlight>();
            for (int i = 0; i < 64; i++) {
                inFlight.add(commit.announce());
            }
            try (var _ = commit.announce()) {
                commit.write(decision("dec_alone"));
            }
            inFlight.forEach(GroupCommit.InFlight::close);
            commit.write(decision("dec_after"));
            List<String> written = database.read(h -> h.createQuery("SELECT id FROM studio_decisions ORDER BY seq")
                    .mapTo(String.class)
                    .list());
            assertThat(written).containsExactly("dec_alone", "dec_after");
        }
    }
}
