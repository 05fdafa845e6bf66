package dev.arbor.pipelines;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetupTest;
import dev.arbor.pipelines.runs.RunContract;
import dev.arbor.platform.db.Dialect;
import dev.arbor.testing.ArborProcess;
import dev.arbor.testing.HttpReceiver;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TempFolders;
import dev.arbor.testing.TestPostgres;
import dev.arbor.testing.TestServer;
import jakarta.mail.MessagingException;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Steering a run with the server killed (kill -9: nothing tidied) between each pair of moves, on SQLite and on
 * PostgreSQL: what was decided stays decided, nothing that completed runs again, and the run ends as it was steered.
 * The pattern of RunRestartTest, which covers a cut-off step, a paused run and an approval by API on SQLite.
 */
class SteeringKillTest {
    private static final Pattern APPROVE = Pattern.compile("Approve: (\\S+)");
    private GreenMail mail;
    private HttpReceiver receiver;
    private ArborProcess server;
    private TestServer http;

    @BeforeEach
    void startMailAndReceiver() throws IOException {
        mail = new GreenMail(ServerSetupTest.SMTP.dynamicPort());
        mail.start();
        receiver = new HttpReceiver();
    }

    @AfterEach
    void stopAll() {
        if (server != null) {
            server.close();
        }
        receiver.close();
        mail.stop();
    }

    private void serve(Dialect dialect) {
        var env = new HashMap<String, String>(Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1"));
        if (dialect == Dialect.POSTGRESQL) {
            env.put("ARBOR_DATABASE_URL", TestPostgres.newDatabaseUrl());
        }
        server = ArborProcess.serve(TempFolders.newFolder("arbor-steering-"), env);
        http = server.http();
    }

    /** Kills the server as kill -9 does, and serves the same data again. */
    private void killAndStartAgain() throws InterruptedException {
        server.kill();
        server.start();
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void anApprovalByAnEmailLinkHoldsAcrossAKillBetweenEachMove(Dialect dialect) throws Exception {
        serve(dialect);
        HttpReply channel = http.put(
                "/notification-channels/email",
                "{\"smtp_host\": \"127.0.0.1\", \"smtp_port\": "
                        + mail.getSmtp().getPort() + ", \"security\": \"none\", \"from\": \"arbor@arbor.test\"}");
        assertThat(channel.status()).as(channel.body()).isEqualTo(200);
        String pipeline = create("""
                {"name": "mailed", "steps": [
                  {"id": "ask", "action": "approval", "params": {"message": "Scale the cluster?",
                   "approvers": ["role:admin"], "channels": ["email"], "recipients": ["ops@arbor.test"]}},
                  {"id": "after", "action": "log", "depends_on": ["ask"], "params": {"message": "scaled"}}]}""");
        String run = start(pipeline, "{}");
        // waiting: the mail is sent and recorded as sent (a kill between the two sends it again, with new links)
        awaitStep(run, "ask", "waiting");
        assertThat(mail.getReceivedMessages()).hasSize(1);
        killAndStartAgain();

        String link = approveLink();
        assertThat(http.get(link).status()).isEqualTo(200);
        killAndStartAgain();

        HttpReply clicked = http.action(
                link, "Origin", "http://127.0.0.1:" + http.port(), "Content-Type", "application/x-www-form-urlencoded");
        assertThat(clicked.status()).as(clicked.body()).isEqualTo(200);
        killAndStartAgain();

        JsonNode finished = RunContract.finished(http, run);
        assertThat(finished.path("status").asText()).as(finished.toString()).isEqualTo("completed");
        assertThat(RunContract.step(finished, "ask").at("/outputs/by").asText()).isEqualTo("email:ops@arbor.test");
        assertThat(RunContract.step(finished, "ask").path("attempts").asInt()).isEqualTo(1);
        assertThat(mail.getReceivedMessages()).as("the question is mailed once").hasSize(1);
        assertThat(http.get(link).status())
                .as("used: a restart does not make it usable again")
                .isEqualTo(410);
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void anApprovalByApiHoldsAcrossAKillBetweenEachMove(Dialect dialect) throws Exception {
        serve(dialect);
        String pipeline = create("""
                {"name": "asked", "steps": [
                  {"id": "ask", "action": "approval", "params": {"message": "ok?", "approvers": ["role:admin"]}},
                  {"id": "after", "action": "log", "depends_on": ["ask"], "params": {"message": "after"}}]}""");
        String run = start(pipeline, "{}");
        awaitStep(run, "ask", "waiting");
        killAndStartAgain();

        assertThat(http.post(
                                "/runs/" + run + "/steps/ask/approval",
                                "{\"decision\": \"approved\", \"comment\": \"go\"}")
                        .status())
                .isEqualTo(200);
        killAndStartAgain();

        JsonNode finished = RunContract.finished(http, run);
        assertThat(finished.path("status").asText()).isEqualTo("completed");
        assertThat(RunContract.step(finished, "ask").at("/outputs/comment").asText())
                .isEqualTo("go");
        // the answer survived both kills: a second one is refused as answered, never taken
        http.post("/runs/" + run + "/steps/ask/approval", "{\"decision\": \"rejected\"}")
                .assertError(409, "approval_answered", "step_id");
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void anApprovalByTimeoutIsDecidedAfterAKillThatSpannedItsTimeout(Dialect dialect) throws Exception {
        serve(dialect);
        String pipeline = create("""
                {"name": "timed", "steps": [
                  {"id": "ask", "action": "approval", "params": {"message": "ok?", "approvers": ["role:admin"],
                   "timeout_seconds": 3, "on_timeout": "approve"}},
                  {"id": "after", "action": "log", "depends_on": ["ask"], "params": {"message": "after"}}]}""");
        String run = start(pipeline, "{}");
        awaitStep(run, "ask", "waiting");
        long expires = http.get("/approvals")
                .json()
                .findValues("expires_at")
                .getFirst()
                .asLong();
        server.kill();
        // the question's time runs out while no server runs
        await().atMost(Duration.ofSeconds(10)).until(() -> System.currentTimeMillis() / 1000 > expires);
        server.start();

        JsonNode finished = RunContract.finished(http, run);
        assertThat(finished.path("status").asText()).as(finished.toString()).isEqualTo("completed");
        assertThat(RunContract.step(finished, "ask").at("/outputs/by").asText()).isEqualTo("timeout");
        assertThat(RunContract.step(finished, "ask").at("/outputs/decision").asText())
                .isEqualTo("approved");
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void aReplayFromTheFailedStepReusesEarlierOutputsAcrossAKill(Dialect dialect) throws Exception {
        serve(dialect);
        String pipeline = create("""
                {"name": "replayed", "parameters": [{"name": "broken", "type": "boolean", "default": true}],
                 "steps": [
                  {"id": "count", "action": "http_request", "params": {"url": "%s", "method": "POST"}},
                  {"id": "check", "action": "fail", "depends_on": ["count"], "condition": "params.broken",
                   "params": {"message": "broken"}}]}""".formatted(receiver.url("/count")));
        String failed = start(pipeline, "{}");
        assertThat(RunContract.finished(http, failed).path("status").asText()).isEqualTo("failed");
        killAndStartAgain();

        HttpReply replay = http.post("/runs/" + failed + "/replay", "{\"params\": {\"broken\": false}}");
        assertThat(replay.status()).as(replay.body()).isEqualTo(202);
        String replayed = replay.json().path("id").asText();
        killAndStartAgain();

        JsonNode finished = RunContract.finished(http, replayed);
        assertThat(finished.path("status").asText()).as(finished.toString()).isEqualTo("completed");
        assertThat(finished.path("replay_of").asText()).isEqualTo(failed);
        assertThat(RunContract.step(finished, "count")
                        .at("/outputs/status_code")
                        .asInt())
                .isEqualTo(200);
        assertThat(RunContract.step(finished, "check").path("status").asText()).isEqualTo("skipped");
        assertThat(receiver.received("/count"))
                .as("the upstream step ran once, in the first run")
                .hasSize(1);
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void aRunKeepsItsVersionWhenThePipelineIsSavedAcrossAKill(Dialect dialect) throws Exception {
        serve(dialect);
        String v1 = """
                {"name": "versioned", "steps": [
                  {"id": "ask", "action": "approval", "params": {"message": "ok?", "approvers": ["role:admin"]}},
                  {"id": "say", "action": "set_output", "depends_on": ["ask"], "params": {"key": "v", "value": "%s"}}]}""";
        String pipeline = create(v1.formatted("one"));
        String run = start(pipeline, "{}");
        awaitStep(run, "ask", "waiting");
        assertThat(http.put("/pipelines/" + pipeline, v1.formatted("two")).status())
                .isEqualTo(200);
        killAndStartAgain();

        assertThat(http.post("/runs/" + run + "/steps/ask/approval", "{\"decision\": \"approved\"}")
                        .status())
                .isEqualTo(200);
        JsonNode finished = RunContract.finished(http, run);
        assertThat(finished.path("pipeline_version").asInt()).isEqualTo(1);
        assertThat(RunContract.step(finished, "say").at("/outputs/v").asText()).isEqualTo("one");
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void aSubPipelineGoesOnAcrossAKillAndCancellingItsParentCancelsIt(Dialect dialect) throws Exception {
        serve(dialect);
        String child = create("""
                {"name": "child", "steps": [
                  {"id": "ask", "action": "approval", "params": {"message": "ok?", "approvers": ["role:admin"]}}]}""");
        String parentPipeline = create("""
                {"name": "parent", "steps": [
                  {"id": "sub", "action": "run_pipeline", "params": {"pipeline_id": "%s"}}]}""".formatted(child));
        String parent = start(parentPipeline, "{}");
        await().atMost(Duration.ofSeconds(60))
                .until(() -> RunContract.step(http.get("/runs/" + parent).json(), "sub")
                        .path("status")
                        .asText()
                        .equals("waiting"));
        String childRun = http.get("/pipelines/" + child + "/runs")
                .json()
                .at("/data/0/id")
                .asText();
        awaitStep(childRun, "ask", "waiting");
        killAndStartAgain();

        assertThat(http.action("/runs/" + parent + "/cancel").status()).isEqualTo(200);
        killAndStartAgain();

        assertThat(http.get("/runs/" + parent).json().path("status").asText()).isEqualTo("cancelled");
        assertThat(http.get("/runs/" + childRun).json().path("status").asText()).isEqualTo("cancelled");
        assertThat(http.get("/pipelines/" + child + "/runs").json().path("data"))
                .hasSize(1);
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void aPausedRunWithAStepRunningFinishesTheStepStaysPausedAcrossAKillAndGoesOnWhenResumed(Dialect dialect)
            throws Exception {
        serve(dialect);
        receiver.hold("/held");
        String pipeline = create("""
                {"name": "paused", "steps": [
                  {"id": "call", "action": "http_request", "params": {"url": "%s", "method": "POST"}},
                  {"id": "after", "action": "log", "depends_on": ["call"], "params": {"message": "after"}}]}""".formatted(receiver.url("/held")));
        String run = start(pipeline, "{}");
        await().atMost(Duration.ofSeconds(60))
                .until(() -> receiver.received("/held").size() == 1);
        assertThat(http.action("/runs/" + run + "/pause").json().path("status").asText())
                .isEqualTo("paused");
        receiver.release("/held");
        awaitStep(run, "call", "completed");
        killAndStartAgain();

        await().during(Duration.ofSeconds(2))
                .atMost(Duration.ofSeconds(30))
                .until(() ->
                        http.get("/runs/" + run).json().path("status").asText().equals("paused"));
        assertThat(RunContract.step(http.get("/runs/" + run).json(), "after")
                        .path("status")
                        .asText())
                .isEqualTo("pending");
        assertThat(http.action("/runs/" + run + "/resume").json().path("status").asText())
                .isEqualTo("running");
        killAndStartAgain();

        JsonNode finished = RunContract.finished(http, run);
        assertThat(finished.path("status").asText()).as(finished.toString()).isEqualTo("completed");
        assertThat(RunContract.step(finished, "call").path("attempts").asInt()).isEqualTo(1);
        assertThat(receiver.received("/held")).hasSize(1);
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void cappedRunsStayCappedAcrossAKillAndTheQueuedOneStartsWhenTheFirstEnds(Dialect dialect) throws Exception {
        serve(dialect);
        String pipeline = create("""
                {"name": "capped", "max_concurrent_runs": 1, "steps": [
                  {"id": "ask", "action": "approval", "params": {"message": "ok?", "approvers": ["role:admin"]}}]}""");
        String first = start(pipeline, "{}");
        awaitStep(first, "ask", "waiting");
        String second = start(pipeline, "{}");
        killAndStartAgain();

        await().during(Duration.ofSeconds(2))
                .atMost(Duration.ofSeconds(30))
                .until(() -> http.get("/runs/" + second)
                        .json()
                        .path("status")
                        .asText()
                        .equals("queued"));
        assertThat(http.post("/runs/" + first + "/steps/ask/approval", "{\"decision\": \"approved\"}")
                        .status())
                .isEqualTo(200);
        awaitStep(second, "ask", "waiting");
        killAndStartAgain();

        assertThat(http.get("/runs/" + first).json().path("status").asText()).isEqualTo("completed");
        assertThat(http.post("/runs/" + second + "/steps/ask/approval", "{\"decision\": \"approved\"}")
                        .status())
                .isEqualTo(200);
        assertThat(RunContract.finished(http, second).path("status").asText()).isEqualTo("completed");
    }

    private String create(String definition) {
        HttpReply created = http.post("/pipelines", definition);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return created.json().path("id").asText();
    }

    private String start(String pipeline, String body) {
        HttpReply started = http.post("/pipelines/" + pipeline + "/runs", body);
        assertThat(started.status()).as(started.body()).isEqualTo(202);
        return started.json().path("id").asText();
    }

    private void awaitStep(String run, String step, String status) {
        await().atMost(Duration.ofSeconds(60))
                .until(() -> RunContract.step(http.get("/runs/" + run).json(), step)
                        .path("status")
                        .asText()
                        .equals(status));
    }

    /** The path of the approve link of the one mail received. */
    private String approveLink() {
        String body = Stream.of(mail.getReceivedMessages())
                .map(message -> {
                    try {
                        return (String) message.getContent();
                    } catch (MessagingException | IOException e) {
                        throw new IllegalStateException(e);
                    }
                })
                .findFirst()
                .orElseThrow();
        Matcher found = APPROVE.matcher(body);
        assertThat(found.find()).as(body).isTrue();
        return URI.create(found.group(1)).getRawPath();
    }
}
