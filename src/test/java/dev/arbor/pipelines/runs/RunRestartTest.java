package dev.arbor.pipelines.runs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.ArborProcess;
import dev.arbor.testing.HttpReceiver;
import dev.arbor.testing.TempFolders;
import dev.arbor.testing.TestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A server killed mid-run (kill -9, no chance to tidy up) and started again on the same data: its runs go on where
 * they were, the step cut off runs again, no completed step runs twice, and a wait keeps its place.
 */
class RunRestartTest {
    @Test
    void aRunGoesOnAfterTheServerIsKilledAndNoCompletedStepRunsTwice() throws Exception {
        Path data = TempFolders.newFolder("arbor-restart-");
        try (var receiver = new HttpReceiver()) {
            receiver.hold("/held");
            ArborProcess server = ArborProcess.serve(data, Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1"));
            TestServer http = server.http();
            String pipeline;
            String running;
            String waiting;
            long waitStarted;
            try {
                pipeline = http.post("/pipelines", """
                        {"name": "survives", "steps": [
                          {"id": "before", "action": "set_output", "params": {"key": "n", "value": 7}},
                          {"id": "call", "action": "http_request", "depends_on": ["before"],
                           "params": {"url": "%s", "method": "POST", "body": {"n": "{{ steps.before.outputs.n }}"}}},
                          {"id": "after", "action": "log", "depends_on": ["call"], "params": {"message": "done"}}]}""".formatted(receiver.url("/held")))
                        .json()
                        .path("id")
                        .asText();
                String waits = http.post("/pipelines", """
                        {"name": "waits", "parameters": [{"name": "at", "type": "integer", "required": true}],
                         "steps": [{"id": "wait", "action": "wait_until",
                                    "params": {"condition": "now >= params.at", "poll_interval_seconds": 1}}]}""").json().path("id").asText();
                running = http.post("/pipelines/" + pipeline + "/runs", "{}")
                        .json()
                        .path("id")
                        .asText();
                waitStarted = System.nanoTime();
                waiting = http.post(
                                "/pipelines/" + waits + "/runs",
                                "{\"params\": {\"at\": " + (System.currentTimeMillis() / 1000 + 6) + "}}")
                        .json()
                        .path("id")
                        .asText();
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> receiver.received("/held").size() == 1
                                && status(http, waiting).equals("running"));
            } finally {
                server.kill();
            }
            receiver.release("/held");

            server.start();
            try {
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> !status(http, running).equals("running")
                                && !status(http, waiting).equals("running"));
                JsonNode run = http.get("/runs/" + running).json();
                assertThat(run.path("status").asText()).as(run.toString()).isEqualTo("completed");
                assertThat(RunContract.step(run, "before").path("attempts").asInt())
                        .isEqualTo(1);
                assertThat(RunContract.step(run, "call").path("attempts").asInt())
                        .isEqualTo(2);
                assertThat(receiver.received("/held"))
                        .hasSize(2)
                        .allSatisfy(r -> assertThat(r.body()).isEqualTo("{\"n\":7}"));
                List<JsonNode> events = events(http, running);
                assertThat(events)
                        .filteredOn(e -> e.path("step_id").asText().equals("before")
                                && e.path("status").asText().equals("running"))
                        .hasSize(1);
                assertThat(events)
                        .filteredOn(e -> e.path("step_id").asText().equals("call")
                                && e.path("message").asText().contains("cut off"))
                        .hasSize(1);

                long secondsSinceTheWaitStarted =
                        Duration.ofNanos(System.nanoTime() - waitStarted).toSeconds();
                JsonNode waited = http.get("/runs/" + waiting).json();
                assertThat(waited.path("status").asText()).as(waited.toString()).isEqualTo("completed");
                assertThat(RunContract.step(waited, "wait")
                                .at("/outputs/waited_seconds")
                                .asLong())
                        .as("the wait counts from its first attempt, across the restart")
                        .isBetween(4L, secondsSinceTheWaitStarted + 1);
            } finally {
                server.close();
            }
        }
    }

    @Test
    void aPausedRunStaysPausedAcrossAKillAndGoesOnWhenResumed() throws Exception {
        Path data = TempFolders.newFolder("arbor-paused-");
        ArborProcess server = ArborProcess.serve(data, Map.of());
        TestServer http = server.http();
        String run;
        try {
            String pipeline = http.post("/pipelines", """
                    {"name": "pauses", "parameters": [{"name": "at", "type": "integer", "required": true}],
                     "steps": [{"id": "wait", "action": "wait_until",
                                "params": {"condition": "now >= params.at", "poll_interval_seconds": 1}},
                               {"id": "after", "action": "log", "depends_on": ["wait"], "params": {"message": "after"}}]}""").json().path("id").asText();
            run = http.post(
                            "/pipelines/" + pipeline + "/runs",
                            "{\"params\": {\"at\": " + (System.currentTimeMillis() / 1000 + 2) + "}}")
                    .json()
                    .path("id")
                    .asText();
            await().atMost(Duration.ofSeconds(30)).until(() -> status(http, run).equals("running"));
            assertThat(http.action("/runs/" + run + "/pause")
                            .json()
                            .path("status")
                            .asText())
                    .isEqualTo("paused");
        } finally {
            server.kill();
        }

        server.start();
        try {
            // past the time the wait waits for: a server that picked the run up would finish it
            await().during(Duration.ofSeconds(4))
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> status(http, run).equals("paused"));
            assertThat(RunContract.step(http.get("/runs/" + run).json(), "after")
                            .path("status")
                            .asText())
                    .isEqualTo("pending");
            assertThat(http.action("/runs/" + run + "/resume")
                            .json()
                            .path("status")
                            .asText())
                    .isEqualTo("running");
            JsonNode finished = RunContract.finished(http, run);
            assertThat(finished.path("status").asText()).as(finished.toString()).isEqualTo("completed");
        } finally {
            server.close();
        }
    }

    @Test
    void anApprovalWaitsAcrossAKillAndTheRunGoesOnWhenItIsAnswered() throws Exception {
        Path data = TempFolders.newFolder("arbor-approval-");
        ArborProcess server = ArborProcess.serve(data, Map.of());
        TestServer http = server.http();
        String run;
        try {
            String pipeline = http.post("/pipelines", """
                    {"name": "asks", "steps": [
                      {"id": "ask", "action": "approval", "params": {"message": "ok?", "approvers": ["role:admin"]}},
                      {"id": "after", "action": "log", "depends_on": ["ask"], "params": {"message": "after"}}]}""").json().path("id").asText();
            run = http.post("/pipelines/" + pipeline + "/runs", "{}")
                    .json()
                    .path("id")
                    .asText();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> RunContract.step(http.get("/runs/" + run).json(), "ask")
                            .path("status")
                            .asText()
                            .equals("waiting"));
        } finally {
            server.kill();
        }

        server.start();
        try {
            assertThat(http.get("/approvals").json().path("data").findValuesAsText("run_id"))
                    .contains(run);
            assertThat(http.post("/runs/" + run + "/steps/ask/approval", "{\"decision\": \"approved\"}")
                            .status())
                    .isEqualTo(200);
            JsonNode finished = RunContract.finished(http, run);
            assertThat(finished.path("status").asText()).as(finished.toString()).isEqualTo("completed");
            assertThat(RunContract.step(finished, "ask").path("attempts").asInt())
                    .isEqualTo(1);
        } finally {
            server.close();
        }
    }

    private static String status(TestServer http, String runId) {
        return http.get("/runs/" + runId).json().path("status").asText();
    }

    private static List<JsonNode> events(TestServer http, String runId) {
        var events = new java.util.ArrayList<JsonNode>();
        http.get("/runs/" + runId + "/events?limit=100").json().path("data").forEach(events::add);
        return events;
    }
}
