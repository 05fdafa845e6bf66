package dev.arbor.pipelines.runs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TestPostgres;
import dev.arbor.testing.TestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/** Two servers on one PostgreSQL answering the same approval step at once: exactly one answer decides. */
class ApprovalOnTwoServersTest {
    @Test
    void ofTwoAnswersAtOnceOnTwoServersExactlyOneDecidesAndTheRunFollowsIt() throws Exception {
        Map<String, String> env = Map.of(
                "ARBOR_DATABASE_URL",
                TestPostgres.newDatabaseUrl(),
                "ARBOR_SECRET_KEY",
                Base64.getEncoder().encodeToString(new byte[32]));
        try (ArborServer a = ArborServer.start(env);
                ArborServer b = ArborServer.start(env);
                ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
            TestServer first = a.http();
            TestServer second = b.http();
            String pipeline = first.post("/pipelines", """
                    {"name": "two-answers", "steps": [
                      {"id": "ask", "action": "approval", "params": {"message": "ok?", "approvers": ["role:admin"]}},
                      {"id": "after", "action": "log", "depends_on": ["ask"], "params": {"message": "after"}}]}""").json().path("id").asText();
            for (int round = 0; round < 3; round++) {
                String run = first.post("/pipelines/" + pipeline + "/runs", "{}")
                        .json()
                        .path("id")
                        .asText();
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> RunContract.step(second.get("/runs/" + run).json(), "ask")
                                .path("status")
                                .asText()
                                .equals("waiting"));
                var go = new CountDownLatch(1);
                var answers = new ArrayList<CompletableFuture<HttpReply>>();
                for (TestServer server : List.of(first, second)) {
                    String decision = server == first ? "approved" : "rejected";
                    answers.add(CompletableFuture.supplyAsync(
                            () -> {
                                try {
                                    go.await();
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                }
                                return server.post(
                                        "/runs/" + run + "/steps/ask/approval", "{\"decision\": \"" + decision + "\"}");
                            },
                            callers));
                }
                go.countDown();
                List<HttpReply> replies =
                        answers.stream().map(CompletableFuture::join).toList();
                assertThat(replies).extracting(HttpReply::status).containsExactlyInAnyOrder(200, 409);
                HttpReply won = replies.stream()
                        .filter(r -> r.status() == 200)
                        .findFirst()
                        .orElseThrow();
                replies.stream()
                        .filter(r -> r.status() == 409)
                        .findFirst()
                        .orElseThrow()
                        .assertError(409, "approval_answered", "step_id");
                JsonNode finished = RunContract.finished(first, run);
                boolean approved = won.json().path("status").asText().equals("approved");
                assertThat(finished.path("status").asText()).isEqualTo(approved ? "completed" : "failed");
                assertThat(RunContract.step(finished, "ask").path("attempts").asInt())
                        .isEqualTo(1);
            }
        }
    }
}
