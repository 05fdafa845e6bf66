package dev.arbor.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReceiver;
import dev.arbor.testing.HttpReceiver.Reply;
import dev.arbor.testing.TestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The console's Pipelines page in a real browser against a real server: a pipeline defined in the editor and run,
 * its steps followed live; a failed run retried; a slow run cancelled; schedules. Each step is asserted on what the
 * page shows (scenarios/pipelines.mjs), then on what the server holds.
 */
class ConsolePipelinesBrowserTest {
    private static HttpReceiver receiver;
    private static ArborServer server;
    private static TestServer http;
    private static ConsoleBrowser browser;
    private static String[] admin;
    private static String adminToken;

    @BeforeAll
    static void start() throws Exception {
        receiver = new HttpReceiver();
        // the HTTP Request steps call the receiver on this computer
        server = ArborServer.start(Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1,localhost"));
        http = server.http();
        browser = ConsoleBrowser.forServer(http, "pipelines");
        adminToken = ConsoleBrowser.adminToken(http);
        admin = ConsoleBrowser.bearer(adminToken);
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
        if (receiver != null) {
            receiver.close();
        }
    }

    @Test
    void aMemberIsNotOfferedPipelines() throws Exception {
        String project = http.post("/projects", "{\"name\": \"support\"}", admin)
                .json()
                .path("id")
                .asText();
        String member = http.post(
                        "/auth/tokens",
                        "{\"name\": \"dev\", \"role\": \"member\", \"projects\": [\"" + project + "\"]}",
                        admin)
                .json()
                .path("token")
                .asText();
        browser.run("pipelines/member", Map.of("token", member));
    }

    @Test
    void aPipelineDefinedInTheEditorRunsWithItsStepsFollowedLiveAndItsLogShown() throws Exception {
        // the HTTP step waits at the gate until the scenario, having seen the run half done, calls /open
        receiver.hold("/gate");
        Thread opener = Thread.ofVirtual().start(() -> {
            await().atMost(Duration.ofMinutes(2))
                    .until(() -> !receiver.received("/open").isEmpty());
            receiver.release("/gate");
        });
        JsonNode said;
        try {
            said = browser.run(
                    "pipelines/run",
                    Map.of(
                            "token",
                            adminToken,
                            "name",
                            "greetings",
                            "gate",
                            receiver.url("/gate"),
                            "open",
                            receiver.url("/open")));
        } finally {
            opener.interrupt();
            receiver.release("/gate");
        }
        assertThat(said.path("refusal").asText()).contains("nope");

        JsonNode pipeline = pipelineNamed("greetings");
        assertThat(pipeline.at("/definition/steps").findValuesAsText("action"))
                .containsExactly("log", "http_request", "transform");
        assertThat(pipeline.at("/definition/steps/2/depends_on").toString()).isEqualTo("[\"call\"]");
        assertThat(pipeline.at("/definition/parameters/0/default").asText()).isEqualTo("world");

        JsonNode run = http.get("/runs/" + said.path("run_id").asText(), admin).json();
        assertThat(run.path("status").asText()).isEqualTo("completed");
        assertThat(run.at("/params/who").asText()).isEqualTo("console");
        assertThat(run.path("steps").findValuesAsText("status")).containsOnly("completed");
        assertThat(receiver.received("/gate")).hasSize(1);
    }

    @Test
    void aRunThatFailedIsRetriedFromItsPageAndCompletes() throws Exception {
        receiver.script("/flaky", Reply.json(503, "{\"error\": \"not yet\"}"));
        create("""
                {"name": "flaky", "steps": [
                   {"id": "call", "action": "http_request", "params": {"url": "%s"}},
                   {"id": "after", "action": "log", "depends_on": ["call"], "params": {"message": "after the call"}}]}""".formatted(receiver.url("/flaky")));

        JsonNode said = browser.run("pipelines/retry", Map.of("token", adminToken, "name", "flaky"));

        JsonNode run = http.get("/runs/" + said.path("run_id").asText(), admin).json();
        assertThat(run.path("status").asText()).isEqualTo("completed");
        assertThat(run.path("steps").findValuesAsText("status")).containsOnly("completed");
        assertThat(receiver.received("/flaky")).hasSize(2);
    }

    @Test
    void aRunningRunIsPausedAndResumedFromItsPage() throws Exception {
        create("""
                {"name": "held", "steps": [
                   {"id": "wait", "action": "wait_until",
                    "params": {"condition": "false", "poll_interval_seconds": 1, "timeout_seconds": 600}},
                   {"id": "next", "action": "log", "depends_on": ["wait"], "params": {"message": "never"}}]}""");

        JsonNode said = browser.run("pipelines/pause", Map.of("token", adminToken, "name", "held"));

        String runId = said.path("run_id").asText();
        assertThat(http.get("/runs/" + runId, admin).json().path("status").asText())
                .isEqualTo("running");
        List<String> moves = new ArrayList<>();
        for (JsonNode event :
                http.get("/runs/" + runId + "/events", admin).json().path("data")) {
            if (event.path("kind").asText().equals("run")) {
                moves.add(event.path("status").asText());
            }
        }
        assertThat(moves).containsSubsequence("running", "paused", "running");
        http.post("/runs/" + runId + "/cancel", "{}", admin);
    }

    @Test
    void anApprovalStepIsApprovedWithACommentFromTheRunsPage() throws Exception {
        create("""
                {"name": "asks", "steps": [
                   {"id": "ask", "action": "approval", "params": {"message": "ship?", "approvers": ["role:admin"]}},
                   {"id": "after", "action": "log", "depends_on": ["ask"], "params": {"message": "shipped"}}]}""");

        JsonNode said = browser.run("pipelines/approve", Map.of("token", adminToken, "name", "asks"));

        JsonNode run = http.get("/runs/" + said.path("run_id").asText(), admin).json();
        assertThat(run.path("status").asText()).isEqualTo("completed");
        JsonNode outputs = run.path("steps").get(0).path("outputs");
        assertThat(outputs.path("decision").asText()).isEqualTo("approved");
        assertThat(outputs.path("comment").asText()).isEqualTo("ship it");
    }

    @Test
    void anEndedRunIsReplayedFromAStepChosenOnItsPageReusingTheStepsBeforeIt() throws Exception {
        create("""
                {"name": "replays", "steps": [
                   {"id": "count", "action": "http_request", "params": {"url": "%s"}},
                   {"id": "check", "action": "fail", "depends_on": ["count"], "params": {"message": "still broken"}}]}""".formatted(receiver.url("/counted")));

        JsonNode said = browser.run("pipelines/replay", Map.of("token", adminToken, "name", "replays"));

        JsonNode replay =
                http.get("/runs/" + said.path("run_id").asText(), admin).json();
        assertThat(replay.path("replay_of").asText())
                .isEqualTo(said.path("failed_id").asText());
        assertThat(replay.at("/trigger/from_step").asText()).isEqualTo("check");
        assertThat(receiver.received("/counted"))
                .as("the step before it kept its outputs")
                .hasSize(1);
    }

    @Test
    void aSlowRunIsCancelledFromItsPage() throws Exception {
        create("""
                {"name": "slow", "steps": [
                   {"id": "wait", "action": "wait_until",
                    "params": {"condition": "false", "poll_interval_seconds": 1, "timeout_seconds": 600}},
                   {"id": "next", "action": "log", "depends_on": ["wait"], "params": {"message": "never"}}]}""");

        JsonNode said = browser.run("pipelines/cancel", Map.of("token", adminToken, "name", "slow"));

        JsonNode run = http.get("/runs/" + said.path("run_id").asText(), admin).json();
        assertThat(run.path("status").asText()).isEqualTo("cancelled");
        assertThat(run.path("steps").findValuesAsText("status")).containsOnly("cancelled");
    }

    @Test
    void schedulesAreMadePausedResumedAndDeletedOnThePipelinesPage() throws Exception {
        String pipeline = create("""
                {"name": "nightly", "parameters": [{"name": "who", "type": "string", "required": true}],
                 "steps": [{"id": "say", "action": "log", "params": {"message": "hello {{ params.who }}"}}]}""");

        browser.run("pipelines/schedules", Map.of("token", adminToken, "name", "nightly"));

        JsonNode schedules =
                http.get("/pipelines/" + pipeline + "/schedules", admin).json().path("data");
        assertThat(schedules).hasSize(1);
        JsonNode mornings = schedules.get(0);
        assertThat(mornings.path("name").asText()).isEqualTo("mornings");
        assertThat(mornings.path("cron").asText()).isEqualTo("0 6 * * 1-5");
        assertThat(mornings.path("timezone").asText()).isEqualTo("Europe/Berlin");
        assertThat(mornings.path("status").asText()).isEqualTo("active");
        assertThat(mornings.at("/params/who").asText()).isEqualTo("team");
    }

    private static JsonNode pipelineNamed(String name) {
        for (JsonNode pipeline : http.get("/pipelines?limit=100", admin).json().path("data")) {
            if (pipeline.path("name").asText().equals(name)) {
                return pipeline;
            }
        }
        throw new AssertionError("no pipeline is named " + name);
    }

    private static String create(String definition) {
        var reply = http.post("/pipelines", definition, admin);
        assertThat(reply.status()).as(reply.body()).isEqualTo(201);
        return reply.json().path("id").asText();
    }
}
