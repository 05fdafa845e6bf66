package dev.arbor.pipelines.runs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.platform.json.Json;
import dev.arbor.testing.HttpReceiver;
import dev.arbor.testing.HttpReceiver.Reply;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TestServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Pipeline runs over HTTP, on the durable engine: order and parallel steps, templates that keep types, branches and
 * conditions, retries, {@code continue}, timeouts, waits, cancel, retry from the failed step, and events. Runs once
 * on SQLite and once on PostgreSQL.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class RunContract {
    private static final AtomicInteger NAMES = new AtomicInteger();
    ArborServer server;
    TestServer http;
    HttpReceiver receiver;

    abstract Map<String, String> environment();

    @BeforeAll
    void startServer() throws IOException {
        receiver = new HttpReceiver();
        var env = new HashMap<>(environment());
        env.put("ARBOR_OUTBOUND_ALLOW", "127.0.0.1");
        server = ArborServer.start(env);
        http = server.http();
    }

    @AfterAll
    void stopServer() {
        server.close();
        receiver.close();
    }

    @Test
    void stepsRunInDependencyOrderInParallelWhereTheyCanAndTemplatesKeepTheirTypes() {
        String pipeline = create("""
                {"parameters": [{"name": "n", "type": "integer", "required": true},
                                {"name": "who", "type": "string", "default": "world"}],
                 "steps": [
                   {"id": "double", "action": "set_output",
                    "params": {"key": "value", "value": "{{ params.n * 2 }}"}},
                   {"id": "list", "action": "set_output", "params": {"key": "items", "value": [3, 1, 2]}},
                   {"id": "sorted", "action": "transform", "depends_on": ["list"],
                    "params": {"operation": "sort", "input": "{{ steps.list.outputs.items }}"}},
                   {"id": "greet", "action": "transform", "depends_on": ["double"],
                    "params": {"operation": "template", "template": "hello {{ params.who }} x{{ steps.double.outputs.value }}"}},
                   {"id": "all", "action": "aggregate", "depends_on": ["sorted", "greet"],
                    "params": {"sources": ["sorted", "greet"], "strategy": "concat"}},
                   {"id": "say", "action": "log", "depends_on": ["all"],
                    "params": {"message": "{{ steps.all.outputs.result | length }} results", "level": "warning"}}],
                 "outputs": {"doubled": "{{ steps.double.outputs.value }}", "sorted": "{{ steps.sorted.outputs.result }}",
                             "text": "n={{ params.n }}"}}""");
        HttpReply started = http.post("/pipelines/" + pipeline + "/runs", "{\"params\": {\"n\": 21}}");
        assertThat(started.status()).isEqualTo(202);
        assertThat(started.json().path("status").asText()).isEqualTo("queued");
        assertThat(started.header("location"))
                .isEqualTo("/runs/" + started.json().path("id").asText());
        JsonNode run = finished(started.json().path("id").asText());

        assertThat(run.path("status").asText()).as(run.toString()).isEqualTo("completed");
        assertThat(run.path("params").toString()).isEqualTo("{\"n\":21,\"who\":\"world\"}");
        assertThat(run.at("/outputs/doubled").isIntegralNumber()).isTrue();
        assertThat(run.at("/outputs/doubled").asInt()).isEqualTo(42);
        assertThat(run.at("/outputs/sorted").toString()).isEqualTo("[1,2,3]");
        assertThat(run.at("/outputs/text").asText()).isEqualTo("n=21");
        assertThat(step(run, "greet").at("/outputs/result").asText()).isEqualTo("hello world x42");
        assertThat(step(run, "all").at("/outputs/result").toString())
                .isEqualTo("[{\"result\":[1,2,3]},{\"result\":\"hello world x42\"}]");
        run.path("steps").forEach(step -> {
            assertThat(step.path("status").asText()).as(step.toString()).isEqualTo("completed");
            assertThat(step.path("attempts").asInt()).isEqualTo(1);
        });
        assertThat(run.at("/progress/finished_steps").asInt()).isEqualTo(6);
        // a step starts only after every step it depends on has completed
        assertThat(step(run, "all").path("started_at").asLong())
                .isGreaterThanOrEqualTo(step(run, "greet").path("finished_at").asLong());

        List<JsonNode> events = events(run.path("id").asText());
        assertThat(events).anySatisfy(e -> {
            assertThat(e.path("kind").asText()).isEqualTo("log");
            assertThat(e.path("level").asText()).isEqualTo("warning");
            assertThat(e.path("message").asText()).isEqualTo("2 results");
        });
        assertThat(events.getFirst().path("status").asText()).isEqualTo("queued");
        assertThat(events.getLast().path("status").asText()).isEqualTo("completed");
        assertThat(events.stream()
                        .filter(e -> e.path("kind").asText().equals("step")
                                && e.path("status").asText().equals("completed"))
                        .count())
                .isEqualTo(6);
    }

    @Test
    void independentStepsRunAtTheSameTime() {
        String held = "/held-" + NAMES.incrementAndGet();
        receiver.hold(held);
        String pipeline = create("""
                {"steps": [{"id": "one", "action": "http_request", "params": {"url": "%1$s?n=1"}},
                           {"id": "two", "action": "http_request", "params": {"url": "%1$s?n=2"}},
                           {"id": "three", "action": "http_request", "params": {"url": "%1$s?n=3"}}]}""".formatted(receiver.url(held)));
        String id = start(pipeline, "{}");
        // all three are in flight together: none of them can finish before the receiver lets them go
        await().atMost(Duration.ofSeconds(20))
                .until(() -> receiver.received(held).size() == 3);
        assertThat(statuses(http.get("/runs/" + id).json()).values()).containsOnly("running");
        receiver.release(held);
        assertThat(finished(id).path("status").asText()).isEqualTo("completed");
    }

    @Test
    void inlineStepsThatFanOutAndInAgainEachRunOnce() {
        // inline steps run where the step before them ended: each is made ready by one transaction, so one worker
        // takes it, however many of its siblings end at once
        var steps = new ArrayList<String>();
        steps.add("{\"id\": \"root\", \"action\": \"set_output\", \"params\": {\"key\": \"n\", \"value\": 1}}");
        var sources = new ArrayList<String>();
        for (int i = 0; i < 20; i++) {
            sources.add("\"say" + i + "\"");
            steps.add("{\"id\": \"say" + i + "\", \"action\": \"log\", \"depends_on\": [\"root\"], "
                    + "\"params\": {\"message\": \"said " + i + "\"}}");
        }
        steps.add("{\"id\": \"join\", \"action\": \"aggregate\", \"depends_on\": " + sources + ", "
                + "\"params\": {\"sources\": " + sources + ", \"strategy\": \"concat\"}}");
        steps.add("{\"id\": \"after\", \"action\": \"log\", \"depends_on\": [\"join\"], "
                + "\"params\": {\"message\": \"joined\"}}");
        String pipeline = create("{\"steps\": [" + String.join(", ", steps) + "]}");

        JsonNode run = finished(start(pipeline, "{}"));

        assertThat(run.path("status").asText()).as(run.toString()).isEqualTo("completed");
        run.path("steps")
                .forEach(step -> assertThat(step.path("attempts").asInt())
                        .as(step.toString())
                        .isEqualTo(1));
        List<JsonNode> events = events(run.path("id").asText());
        for (int i = 0; i < 20; i++) {
            String said = "said " + i;
            assertThat(events)
                    .filteredOn(e -> e.path("message").asText().equals(said))
                    .hasSize(1);
        }
        assertThat(events)
                .filteredOn(e -> e.path("kind").asText().equals("step")
                        && e.path("status").asText().equals("running"))
                .hasSize(23);
        assertThat(events)
                .filteredOn(e -> e.path("message").asText().equals("joined"))
                .hasSize(1);
    }

    @Test
    void everyTransformOperationAndAggregateStrategyGivesWhatItSays() {
        String pipeline = create("""
                {"steps": [
                   {"id": "a", "action": "set_output", "params": {"key": "x", "value": {"b": 2, "a": 1}}},
                   {"id": "b", "action": "set_output", "params": {"key": "x", "value": {"a": 9, "c": 3}}},
                   {"id": "up", "action": "transform", "params": {"operation": "uppercase", "input": "MiXed"}},
                   {"id": "low", "action": "transform", "params": {"operation": "lowercase", "input": "MiXed"}},
                   {"id": "keys", "action": "transform", "depends_on": ["a"],
                    "params": {"operation": "keys", "input": "{{ steps.a.outputs.x }}"}},
                   {"id": "values", "action": "transform", "depends_on": ["a"],
                    "params": {"operation": "values", "input": "{{ steps.a.outputs.x }}"}},
                   {"id": "count", "action": "transform", "params": {"operation": "count", "input": [1, 2, 3]}},
                   {"id": "flat", "action": "transform", "params": {"operation": "flatten", "input": [[1, 2], 3, [4]]}},
                   {"id": "uniq", "action": "transform", "params": {"operation": "unique", "input": [1, 2, 1, "1"]}},
                   {"id": "rev", "action": "transform", "params": {"operation": "reverse", "input": "abc"}},
                   {"id": "pass", "action": "transform", "params": {"operation": "passthrough", "input": {"k": [1]}}},
                   {"id": "bad", "action": "transform", "on_failure": "continue",
                    "params": {"operation": "sort", "input": [1, "a"]}},
                   {"id": "merged", "action": "aggregate", "depends_on": ["a", "b"],
                    "params": {"sources": ["a", "b"], "strategy": "merge"}},
                   {"id": "first", "action": "aggregate", "depends_on": ["bad", "b"],
                    "params": {"sources": ["bad", "b"], "strategy": "first"}}]}""");
        JsonNode run = finished(start(pipeline, "{}"));
        assertThat(run.path("status").asText()).as(run.toString()).isEqualTo("completed");
        Map<String, String> results = new HashMap<>();
        run.path("steps")
                .forEach(step -> results.put(
                        step.path("id").asText(), step.at("/outputs/result").toString()));
        assertThat(results)
                .containsEntry("up", "\"MIXED\"")
                .containsEntry("low", "\"mixed\"")
                .containsEntry("keys", "[\"b\",\"a\"]")
                .containsEntry("values", "[2,1]")
                .containsEntry("count", "3")
                .containsEntry("flat", "[1,2,3,4]")
                .containsEntry("uniq", "[1,2,\"1\"]")
                .containsEntry("rev", "\"cba\"")
                .containsEntry("pass", "{\"k\":[1]}")
                .containsEntry("merged", "{\"x\":{\"a\":9,\"c\":3}}")
                .containsEntry("first", "{\"x\":{\"a\":9,\"c\":3}}");
        assertThat(step(run, "bad").at("/error/code").asText()).isEqualTo("invalid_input");
    }

    @Test
    void aBranchSkipsTheStepsItDoesNotTakeAndAFalseConditionSkipsItsStep() {
        String pipeline = create("""
                {"parameters": [{"name": "env", "type": "string", "required": true}],
                 "steps": [
                   {"id": "check", "action": "set_output", "params": {"key": "healthy", "value": true}},
                   {"id": "route", "action": "conditional_branch", "depends_on": ["check"],
                    "params": {"condition": "true", "branches": {
                      "ok": {"condition": "steps.check.outputs.healthy and params.env == 'prod'", "steps": ["scale"]},
                      "other": {"condition": "{{ true }}", "steps": ["alert"]}}}},
                   {"id": "scale", "action": "log", "depends_on": ["route"], "params": {"message": "scaling"}},
                   {"id": "alert", "action": "log", "depends_on": ["route"], "params": {"message": "alert"}},
                   {"id": "after_alert", "action": "log", "depends_on": ["alert"], "params": {"message": "x"}},
                   {"id": "join", "action": "log", "depends_on": ["scale", "alert"], "params": {"message": "joined"}},
                   {"id": "never", "action": "log", "depends_on": ["join"], "condition": "params.env == 'dev'",
                    "params": {"message": "dev only"}}]}""");
        JsonNode prod = finished(start(pipeline, "{\"params\": {\"env\": \"prod\"}}"));
        assertThat(prod.path("status").asText()).as(prod.toString()).isEqualTo("completed");
        assertThat(step(prod, "route").at("/outputs/branch").asText()).isEqualTo("ok");
        assertThat(statuses(prod))
                .containsEntry("scale", "completed")
                .containsEntry("alert", "skipped")
                .containsEntry("after_alert", "skipped")
                .containsEntry("join", "completed")
                .containsEntry("never", "skipped");

        JsonNode staging = finished(start(pipeline, "{\"params\": {\"env\": \"staging\"}}"));
        assertThat(step(staging, "route").at("/outputs/branch").asText()).isEqualTo("other");
        assertThat(statuses(staging))
                .containsEntry("scale", "skipped")
                .containsEntry("alert", "completed")
                .containsEntry("after_alert", "completed")
                .containsEntry("join", "completed");
    }

    @Test
    void anUndefinedReferenceInAConditionFailsTheStepInsteadOfReadingAsFalse() {
        String pipeline = create("""
                {"steps": [
                   {"id": "a", "action": "set_output", "params": {"key": "x", "value": 1}},
                   {"id": "b", "action": "log", "depends_on": ["a"], "condition": "steps.a.outputs.x > 0 and event.nope",
                    "params": {"message": "never"}}]}""");
        JsonNode run = finished(start(pipeline, "{}"));
        assertThat(run.path("status").asText()).isEqualTo("failed");
        assertThat(step(run, "b").at("/error/code").asText()).isEqualTo("condition_error");
        assertThat(step(run, "b").at("/error/message").asText()).contains("event.nope");
        assertThat(run.at("/error/step_id").asText()).isEqualTo("b");
    }

    @Test
    void failedAttemptsAreRetriedWithBackoffAndContinueLetsTheRunGoOn() {
        String flaky = "/flaky-" + NAMES.incrementAndGet();
        receiver.script(
                flaky,
                Reply.json(503, "{\"busy\": true}"),
                Reply.json(500, "oops"),
                Reply.json(200, "{\"answer\": 42}"));
        String pipeline = create("""
                {"steps": [
                   {"id": "call", "action": "http_request",
                    "params": {"url": "%s", "method": "POST", "body": {"q": "{{ params.q }}"}, "headers": {"x-run": "yes"}},
                    "retry": {"max_attempts": 3, "backoff_seconds": 1, "backoff_multiplier": 1.5}},
                   {"id": "stop", "action": "fail", "depends_on": ["call"], "on_failure": "continue",
                    "params": {"message": "answer was {{ steps.call.outputs.response_body.answer }}", "error_code": "bad_answer"}},
                   {"id": "after", "action": "log", "depends_on": ["stop"], "params": {"message": "still here"}}],
                 "parameters": [{"name": "q", "type": "string", "default": "life"}]}""".formatted(receiver.url(flaky)));
        JsonNode run = finished(start(pipeline, "{}"));
        assertThat(run.path("status").asText()).as(run.toString()).isEqualTo("completed");
        JsonNode call = step(run, "call");
        assertThat(call.path("attempts").asInt()).isEqualTo(3);
        assertThat(call.at("/outputs/status_code").asInt()).isEqualTo(200);
        assertThat(call.at("/outputs/response_body/answer").asInt()).isEqualTo(42);
        assertThat(call.at("/outputs/headers/x-receiver").asText()).isEqualTo("yes");
        assertThat(receiver.received(flaky)).hasSize(3).allSatisfy(r -> {
            assertThat(r.body()).isEqualTo("{\"q\":\"life\"}");
            assertThat(r.headers()).containsEntry("x-run", "yes").containsEntry("content-type", "application/json");
        });
        assertThat(step(run, "stop").path("status").asText()).isEqualTo("failed");
        assertThat(step(run, "stop").at("/error/code").asText()).isEqualTo("bad_answer");
        assertThat(step(run, "stop").at("/error/message").asText()).isEqualTo("answer was 42");
        assertThat(step(run, "after").path("status").asText()).isEqualTo("completed");
        assertThat(events(run.path("id").asText()))
                .filteredOn(e -> e.path("status").asText().equals("retrying"))
                .hasSize(2);
    }

    @Test
    void aFailedRunIsRetriedFromTheStepThatFailedAndCompletedStepsDoNotRunAgain() {
        String path = "/once-broken-" + NAMES.incrementAndGet();
        receiver.script(path, Reply.json(404, "not yet"));
        String pipeline = create("""
                {"steps": [
                   {"id": "first", "action": "http_request", "params": {"url": "%s"}},
                   {"id": "second", "action": "http_request", "depends_on": ["first"], "params": {"url": "%s"}},
                   {"id": "third", "action": "log", "depends_on": ["second"], "params": {"message": "done"}}]}""".formatted(receiver.url(path + "-first"), receiver.url(path)));
        String id = start(pipeline, "{}");
        JsonNode failed = finished(id);
        assertThat(failed.path("status").asText()).isEqualTo("failed");
        assertThat(failed.at("/error/code").asText()).isEqualTo("http_status");
        assertThat(failed.at("/error/step_id").asText()).isEqualTo("second");
        assertThat(statuses(failed))
                .containsEntry("first", "completed")
                .containsEntry("second", "failed")
                .containsEntry("third", "cancelled");
        http.action("/runs/" + id + "/cancel").assertError(409, "run_finished", "run_id");

        HttpReply retried = http.action("/runs/" + id + "/retry");
        assertThat(retried.status()).isEqualTo(200);
        JsonNode run = finished(id);
        assertThat(run.path("status").asText()).as(run.toString()).isEqualTo("completed");
        assertThat(step(run, "first").path("attempts").asInt()).isEqualTo(1);
        assertThat(receiver.received(path + "-first")).hasSize(1);
        assertThat(receiver.received(path)).hasSize(2);
        http.action("/runs/" + id + "/retry").assertError(409, "run_not_failed", "run_id");
    }

    @Test
    void aStepOverItsTimeoutFailsAndSoDoesARunOverItsOwn() {
        String slow = "/slow-" + NAMES.incrementAndGet();
        receiver.script(slow, Reply.slow(8_000));
        String pipeline = create("""
                {"steps": [{"id": "call", "action": "http_request", "timeout_seconds": 1,
                            "params": {"url": "%s", "timeout_seconds": 30}}]}""".formatted(receiver.url(slow)));
        JsonNode run = finished(start(pipeline, "{}"));
        assertThat(step(run, "call").at("/error/code").asText()).isEqualTo("step_timed_out");
        assertThat(step(run, "call").path("duration_ms").asLong()).isLessThan(5_000);

        String waits = create("""
                {"timeout_seconds": 2, "steps": [{"id": "wait", "action": "wait_until",
                  "params": {"condition": "false", "poll_interval_seconds": 1, "timeout_seconds": 600}}]}""");
        JsonNode timedOut = finished(start(waits, "{}"));
        assertThat(timedOut.path("status").asText()).isEqualTo("failed");
        assertThat(timedOut.at("/error/code").asText()).isEqualTo("run_timed_out");
        assertThat(step(timedOut, "wait").path("status").asText()).isEqualTo("cancelled");
    }

    @Test
    void waitUntilParksUntilItsConditionHoldsOrGivesUpAtItsTimeout() {
        String pipeline = create("""
                {"parameters": [{"name": "at", "type": "integer", "required": true}],
                 "steps": [{"id": "wait", "action": "wait_until",
                            "params": {"condition": "now >= params.at", "poll_interval_seconds": 1, "timeout_seconds": 60}},
                           {"id": "done", "action": "log", "depends_on": ["wait"], "params": {"message": "waited"}}]}""");
        long at = System.currentTimeMillis() / 1000 + 2;
        String id = start(pipeline, "{\"params\": {\"at\": " + at + "}}");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> step(http.get("/runs/" + id).json(), "wait")
                        .path("status")
                        .asText()
                        .equals("waiting"));
        JsonNode run = finished(id);
        assertThat(run.path("status").asText()).as(run.toString()).isEqualTo("completed");
        assertThat(step(run, "wait").at("/outputs/waited_seconds").asInt()).isBetween(1, 10);

        String never = create("""
                {"steps": [{"id": "wait", "action": "wait_until",
                            "params": {"condition": "1 > 2", "poll_interval_seconds": 1, "timeout_seconds": 2}}]}""");
        JsonNode gaveUp = finished(start(never, "{}"));
        assertThat(step(gaveUp, "wait").at("/error/code").asText()).isEqualTo("wait_timed_out");
    }

    @Test
    void aCancelledRunEndsItsOpenStepsAndCannotBeCancelledOrRetriedAgain() {
        String pipeline = create("""
                {"steps": [{"id": "wait", "action": "wait_until",
                            "params": {"condition": "false", "poll_interval_seconds": 1, "timeout_seconds": 600}},
                           {"id": "next", "action": "log", "depends_on": ["wait"], "params": {"message": "x"}}]}""");
        String id = start(pipeline, "{}");
        await().atMost(Duration.ofSeconds(10))
                .until(() ->
                        http.get("/runs/" + id).json().path("status").asText().equals("running"));
        JsonNode cancelled = http.action("/runs/" + id + "/cancel").json();
        assertThat(cancelled.path("status").asText()).isEqualTo("cancelled");
        assertThat(statuses(cancelled)).containsEntry("wait", "cancelled").containsEntry("next", "cancelled");
        http.action("/runs/" + id + "/cancel").assertError(409, "run_finished", "run_id");
        http.action("/runs/" + id + "/retry").assertError(409, "run_not_failed", "run_id");
        http.get("/runs/run_nope").assertError(404, "run_not_found", "run_id");
        http.action("/runs/run_nope/cancel").assertError(404, "run_not_found", "run_id");
    }

    @Test
    void aPausedRunLetsItsRunningStepFinishStartsNoNewStepAndGoesOnWhenResumed() {
        String held = "/pause-held-" + NAMES.incrementAndGet();
        receiver.hold(held);
        String pipeline = create("""
                {"steps": [{"id": "call", "action": "http_request", "params": {"url": "%s"}},
                           {"id": "after", "action": "log", "depends_on": ["call"], "params": {"message": "after"}}]}""".formatted(receiver.url(held)));
        String id = start(pipeline, "{}");
        await().atMost(Duration.ofSeconds(20))
                .until(() -> receiver.received(held).size() == 1);

        JsonNode paused = http.action("/runs/" + id + "/pause").json();
        assertThat(paused.path("status").asText()).isEqualTo("paused");
        assertThat(paused.path("paused_at").isIntegralNumber()).isTrue();
        assertThat(http.action("/runs/" + id + "/pause").json().path("status").asText())
                .isEqualTo("paused");
        receiver.release(held);
        await().atMost(Duration.ofSeconds(20))
                .until(() ->
                        statuses(http.get("/runs/" + id).json()).get("call").equals("completed"));
        // the step that was running finished; the one after it does not start while the run is paused
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> {
            JsonNode run = http.get("/runs/" + id).json();
            return run.path("status").asText().equals("paused")
                    && statuses(run).get("after").equals("pending");
        });

        JsonNode resumed = http.action("/runs/" + id + "/resume").json();
        // the last step is a log line: the run may have finished by the time the answer is read back
        assertThat(resumed.path("status").asText()).isIn("running", "completed");
        assertThat(resumed.path("paused_at").isNull()).isTrue();
        JsonNode run = finished(id);
        assertThat(run.path("status").asText()).as(run.toString()).isEqualTo("completed");
        assertThat(step(run, "after").path("attempts").asInt()).isEqualTo(1);
        assertThat(receiver.received(held)).hasSize(1);
        assertThat(events(id))
                .filteredOn(e -> e.path("kind").asText().equals("run"))
                .extracting(e -> e.path("status").asText())
                .containsExactly("queued", "running", "paused", "running", "completed");
    }

    @Test
    void timePausedDoesNotCountAgainstARunsDeadline() {
        // the wait ends 6 s after the start, past the run's 4 s: only the time paused, moved onto the deadline, lets
        // it finish
        String pipeline = create("""
                {"timeout_seconds": 4, "parameters": [{"name": "at", "type": "integer", "required": true}],
                 "steps": [{"id": "wait", "action": "wait_until",
                            "params": {"condition": "now >= params.at", "poll_interval_seconds": 1, "timeout_seconds": 600}}]}""");
        long at = System.currentTimeMillis() / 1000 + 6;
        String id = start(pipeline, "{\"params\": {\"at\": " + at + "}}");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> step(http.get("/runs/" + id).json(), "wait")
                        .path("status")
                        .asText()
                        .equals("waiting"));
        long deadline =
                http.action("/runs/" + id + "/pause").json().path("deadline_at").asLong();
        // paused past the deadline it had: the run does not time out meanwhile
        await().during(Duration.ofSeconds(5))
                .atMost(Duration.ofSeconds(8))
                .until(() ->
                        http.get("/runs/" + id).json().path("status").asText().equals("paused"));
        JsonNode resumed = http.action("/runs/" + id + "/resume").json();
        assertThat(resumed.path("deadline_at").asLong()).isGreaterThanOrEqualTo(deadline + 5);

        JsonNode run = finished(id);
        assertThat(run.path("status").asText()).as(run.toString()).isEqualTo("completed");
    }

    @Test
    void aPausedRunCanBeCancelledAndAFinishedOrUnknownRunCannotBePausedOrResumed() {
        String pipeline = create("""
                {"steps": [{"id": "wait", "action": "wait_until",
                            "params": {"condition": "false", "poll_interval_seconds": 1, "timeout_seconds": 600}}]}""");
        String id = start(pipeline, "{}");
        assertThat(http.action("/runs/" + id + "/pause").json().path("status").asText())
                .isEqualTo("paused");
        JsonNode cancelled = http.action("/runs/" + id + "/cancel").json();
        assertThat(cancelled.path("status").asText()).isEqualTo("cancelled");
        assertThat(cancelled.path("paused_at").isNull()).isTrue();
        http.action("/runs/" + id + "/pause").assertError(409, "run_finished", "run_id");
        http.action("/runs/" + id + "/resume").assertError(409, "run_finished", "run_id");
        http.action("/runs/run_nope/pause").assertError(404, "run_not_found", "run_id");
        http.action("/runs/run_nope/resume").assertError(404, "run_not_found", "run_id");
        assertThat(http.get("/pipelines/" + pipeline + "/runs?status=cancelled")
                        .json()
                        .path("data"))
                .hasSize(1);
    }

    @Test
    void aPausedPipelineRefusesNewRunsUntilResumedAndItsRunsUnderWayGoOn() {
        String held = "/pipeline-paused-" + NAMES.incrementAndGet();
        receiver.hold(held);
        String pipeline = create("""
                {"steps": [{"id": "call", "action": "http_request", "params": {"url": "%s"}}]}""".formatted(receiver.url(held)));
        String underWay = start(pipeline, "{}");
        JsonNode paused = http.action("/pipelines/" + pipeline + "/pause").json();
        assertThat(paused.path("status").asText()).isEqualTo("paused");
        assertThat(paused.path("paused_at").isIntegralNumber()).isTrue();
        assertThat(http.get("/pipelines/" + pipeline).json().path("status").asText())
                .isEqualTo("paused");

        http.post("/pipelines/" + pipeline + "/runs", "{}").assertError(409, "pipeline_paused", "pipeline_id");
        String schedule = http.post("/pipelines/" + pipeline + "/schedules", "{\"cron\": \"0 3 * * *\"}")
                .json()
                .path("id")
                .asText();
        http.action("/schedules/" + schedule + "/run").assertError(409, "pipeline_paused", "pipeline_id");
        receiver.release(held);
        assertThat(finished(underWay).path("status").asText()).isEqualTo("completed");
        assertThat(http.get("/pipelines/" + pipeline + "/runs").json().path("data"))
                .hasSize(1);

        JsonNode resumed = http.action("/pipelines/" + pipeline + "/resume").json();
        assertThat(resumed.path("status").asText()).isEqualTo("active");
        assertThat(resumed.path("paused_at").isNull()).isTrue();
        assertThat(finished(start(pipeline, "{}")).path("status").asText()).isEqualTo("completed");
        http.action("/pipelines/pl_nope/pause").assertError(404, "pipeline_not_found", "pipeline_id");
        http.action("/pipelines/pl_nope/resume").assertError(404, "pipeline_not_found", "pipeline_id");
    }

    @Test
    void anApprovalParksTheRunUntilAnApproverApprovesAndTheAnswerIsTheStepsOutputs() {
        String pipeline = create("""
                {"parameters": [{"name": "model", "type": "string", "required": true}],
                 "steps": [{"id": "ask", "action": "approval",
                            "params": {"message": "Deploy {{ params.model }}?", "approvers": ["role:admin"]}},
                           {"id": "deploy", "action": "log", "depends_on": ["ask"],
                            "params": {"message": "deploying, {{ steps.ask.outputs.comment }}"}}]}""");
        String id = start(pipeline, "{\"params\": {\"model\": \"m7\"}}");
        await().atMost(Duration.ofSeconds(20))
                .until(() -> statuses(http.get("/runs/" + id).json()).get("ask").equals("waiting"));
        assertThat(http.get("/approvals").json().path("data"))
                .filteredOn(a -> a.path("run_id").asText().equals(id))
                .singleElement()
                .satisfies(a -> {
                    assertThat(a.path("message").asText()).isEqualTo("Deploy m7?");
                    assertThat(a.path("status").asText()).isEqualTo("pending");
                    assertThat(a.path("on_timeout").asText()).isEqualTo("reject");
                });
        assertThat(statuses(http.get("/runs/" + id).json())).containsEntry("deploy", "pending");

        JsonNode answer = http.post(
                        "/runs/" + id + "/steps/ask/approval", "{\"decision\": \"approved\", \"comment\": \"go\"}")
                .json();
        assertThat(answer.path("status").asText()).isEqualTo("approved");
        assertThat(answer.path("comment").asText()).isEqualTo("go");
        JsonNode run = finished(id);
        assertThat(run.path("status").asText()).as(run.toString()).isEqualTo("completed");
        assertThat(step(run, "ask").at("/outputs/decision").asText()).isEqualTo("approved");
        assertThat(step(run, "ask").at("/outputs/by").asText())
                .isEqualTo(answer.path("decided_by").asText());
        assertThat(step(run, "ask").at("/outputs/comment").asText()).isEqualTo("go");
        assertThat(events(id))
                .anySatisfy(e -> assertThat(e.path("message").asText()).isEqualTo("deploying, go"));
        http.post("/runs/" + id + "/steps/ask/approval", "{\"decision\": \"rejected\"}")
                .assertError(409, "approval_answered", "step_id");
        assertThat(http.get("/approvals").json().path("data"))
                .noneMatch(a -> a.path("run_id").asText().equals(id));
        assertThat(http.get("/approvals?status=approved").json().path("data"))
                .anyMatch(a -> a.path("run_id").asText().equals(id));
    }

    @Test
    void aSecondAnswerIsRefusedAndARejectionFailsTheStep() {
        String pipeline = create("""
                {"steps": [{"id": "ask", "action": "approval", "params": {"message": "ok?", "approvers": ["role:admin"]}},
                           {"id": "after", "action": "log", "depends_on": ["ask"], "params": {"message": "x"}}]}""");
        String id = start(pipeline, "{}");
        await().atMost(Duration.ofSeconds(20))
                .until(() -> statuses(http.get("/runs/" + id).json()).get("ask").equals("waiting"));
        assertThat(http.post(
                                "/runs/" + id + "/steps/ask/approval",
                                "{\"decision\": \"rejected\", \"comment\": \"not now\"}")
                        .status())
                .isEqualTo(200);
        http.post("/runs/" + id + "/steps/ask/approval", "{\"decision\": \"approved\"}")
                .assertError(409, "approval_answered", "step_id");
        JsonNode run = finished(id);
        assertThat(run.path("status").asText()).isEqualTo("failed");
        assertThat(step(run, "ask").at("/error/code").asText()).isEqualTo("approval_rejected");
        assertThat(step(run, "ask").at("/error/message").asText()).endsWith(": not now");
        assertThat(statuses(run)).containsEntry("after", "cancelled");
    }

    @Test
    void anApprovalNobodyAnswersIsDecidedByItsOnTimeout() {
        String pipeline = create("""
                {"steps": [{"id": "ask", "action": "approval",
                            "params": {"message": "ok?", "approvers": ["role:admin"], "timeout_seconds": 1,
                                       "on_timeout": "approve"}}]}""");
        JsonNode run = finished(start(pipeline, "{}"));
        assertThat(run.path("status").asText()).as(run.toString()).isEqualTo("completed");
        assertThat(step(run, "ask").at("/outputs/decision").asText()).isEqualTo("approved");
        assertThat(step(run, "ask").at("/outputs/by").asText()).isEqualTo("timeout");
    }

    @Test
    void onlyAListedApproverMayAnswerAndARefusalIsRecorded() {
        String pipeline = create("""
                {"steps": [{"id": "ask", "action": "approval", "params": {"message": "ok?", "approvers": ["tok_someone"]}},
                           {"id": "say", "action": "log", "params": {"message": "x"}}]}""");
        String id = start(pipeline, "{}");
        await().atMost(Duration.ofSeconds(20))
                .until(() -> statuses(http.get("/runs/" + id).json()).get("ask").equals("waiting"));
        http.post("/runs/" + id + "/steps/ask/approval", "{\"decision\": \"approved\"}")
                .assertError(403, "approval_forbidden", "step_id");
        assertThat(events(id))
                .anySatisfy(e -> assertThat(e.path("message").asText()).contains("is not one of the approvers"));
        assertThat(http.get("/approvals").json().path("data"))
                .noneMatch(a -> a.path("run_id").asText().equals(id));
        assertThat(statuses(http.get("/runs/" + id).json())).containsEntry("ask", "waiting");

        http.post("/runs/" + id + "/steps/say/approval", "{\"decision\": \"approved\"}")
                .assertError(404, "approval_not_found", "step_id");
        http.post("/runs/" + id + "/steps/ask/approval", "{\"decision\": \"maybe\"}")
                .assertError(400, "invalid_field", "decision");
        http.post("/runs/" + id + "/steps/ask/approval", "{}").assertError(400, "missing_field", "decision");
        http.post("/runs/run_nope/steps/ask/approval", "{\"decision\": \"approved\"}")
                .assertError(404, "run_not_found", "run_id");
        http.get("/approvals?status=later").assertError(400, "invalid_parameter", "status");
        http.action("/runs/" + id + "/cancel");
    }

    @Test
    void aReplayFromTheFailedStepReusesTheOutputsBeforeItAndLeavesTheReplayedRunAsItWas() {
        String path = "/replayed-" + NAMES.incrementAndGet();
        receiver.script(path, Reply.json(404, "not yet"));
        String pipeline = create("""
                {"steps": [
                   {"id": "first", "action": "http_request", "params": {"url": "%s"}},
                   {"id": "second", "action": "http_request", "depends_on": ["first"], "params": {"url": "%s"}},
                   {"id": "third", "action": "log", "depends_on": ["second"],
                    "params": {"message": "first said {{ steps.first.outputs.status_code }}"}}]}""".formatted(receiver.url(path + "-first"), receiver.url(path)));
        String id = start(pipeline, "{}");
        JsonNode failed = finished(id);
        assertThat(failed.path("status").asText()).isEqualTo("failed");

        HttpReply replayed = http.post("/runs/" + id + "/replay", "{}");
        assertThat(replayed.status()).as(replayed.body()).isEqualTo(202);
        String replay = replayed.json().path("id").asText();
        assertThat(replayed.header("location")).isEqualTo("/runs/" + replay);
        assertThat(replayed.json().path("replay_of").asText()).isEqualTo(id);
        assertThat(replayed.json().at("/trigger/from_step").asText()).isEqualTo("second");
        JsonNode run = finished(replay);
        assertThat(run.path("status").asText()).as(run.toString()).isEqualTo("completed");
        // the upstream counts every call: the step before the failed one did not run again
        assertThat(receiver.received(path + "-first")).hasSize(1);
        assertThat(receiver.received(path)).hasSize(2);
        assertThat(step(run, "first").path("outputs"))
                .isEqualTo(step(failed, "first").path("outputs"));
        assertThat(events(replay))
                .anySatisfy(e -> assertThat(e.path("message").asText()).isEqualTo("first said 200"));
        assertThat(http.get("/runs/" + id).json()).isEqualTo(failed);
    }

    @Test
    void aReplayFromAGivenStepRunsItAndWhatFollowsItWithNewParams() {
        String pipeline = create("""
                {"parameters": [{"name": "n", "type": "integer", "required": true}],
                 "steps": [
                   {"id": "a", "action": "set_output", "params": {"key": "v", "value": "{{ params.n }}"}},
                   {"id": "b", "action": "set_output", "depends_on": ["a"], "params": {"key": "v", "value": "{{ params.n * 10 }}"}},
                   {"id": "c", "action": "set_output", "depends_on": ["b"], "params": {"key": "v", "value": "{{ steps.a.outputs.v }}"}}]}""");
        String id = start(pipeline, "{\"params\": {\"n\": 1}}");
        assertThat(finished(id).path("status").asText()).isEqualTo("completed");

        HttpReply replayed = http.post("/runs/" + id + "/replay", "{\"from_step\": \"b\", \"params\": {\"n\": 2}}");
        assertThat(replayed.status()).as(replayed.body()).isEqualTo(202);
        JsonNode run = finished(replayed.json().path("id").asText());
        assertThat(run.path("params").path("n").asInt()).isEqualTo(2);
        assertThat(step(run, "a").at("/outputs/v").asInt()).isEqualTo(1);
        assertThat(step(run, "b").at("/outputs/v").asInt()).isEqualTo(20);
        assertThat(step(run, "c").at("/outputs/v").asInt()).isEqualTo(1);
    }

    @Test
    void aReplayOfARunNotEndedOrFromAStepThatIsNotThereIsRefused() {
        String pipeline = create("""
                {"parameters": [{"name": "n", "type": "integer", "required": true}],
                 "steps": [{"id": "wait", "action": "wait_until",
                            "params": {"condition": "false", "poll_interval_seconds": 1, "timeout_seconds": 600}}]}""");
        String id = start(pipeline, "{\"params\": {\"n\": 1}}");
        http.post("/runs/" + id + "/replay", "{}").assertError(409, "run_not_finished", "run_id");
        http.action("/runs/" + id + "/cancel");
        http.post("/runs/" + id + "/replay", "{\"from_step\": \"nope\"}")
                .assertError(409, "replay_step_not_found", "from_step");
        http.post("/runs/" + id + "/replay", "{\"params\": {\"n\": \"x\"}}")
                .assertError(400, "invalid_field", "params.n");
        http.post("/runs/" + id + "/replay", "{\"latest\": 1}").assertError(400, "invalid_field", "latest");
        http.post("/runs/run_nope/replay", "{}").assertError(404, "run_not_found", "run_id");
        assertThat(http.get("/pipelines/" + pipeline + "/runs").json().path("data"))
                .hasSize(1);
    }

    @Test
    void aRunKeepsTheVersionItStartedOnWhileThePipelineIsSavedAndAReplayTakesTheLatestWhenAsked() {
        String name = "versioned-" + NAMES.incrementAndGet();
        String pipeline =
                http.post("/pipelines", """
                {"name": "%s", "parameters": [{"name": "at", "type": "integer", "required": true}],
                 "steps": [{"id": "wait", "action": "wait_until",
                            "params": {"condition": "now >= params.at", "poll_interval_seconds": 1}},
                           {"id": "say", "action": "set_output", "depends_on": ["wait"], "params": {"key": "v", "value": "one"}}]}""".formatted(name)).json().path("id").asText();
        String id = start(pipeline, "{\"params\": {\"at\": " + (System.currentTimeMillis() / 1000 + 2) + "}}");
        assertThat(http.put("/pipelines/" + pipeline, """
                        {"name": "%s", "parameters": [{"name": "at", "type": "integer", "required": true}],
                         "steps": [{"id": "wait", "action": "wait_until",
                                    "params": {"condition": "now >= params.at", "poll_interval_seconds": 1}},
                                   {"id": "say", "action": "set_output", "depends_on": ["wait"], "params": {"key": "v", "value": "two"}}]}""".formatted(name))
                        .json()
                        .path("version")
                        .asInt())
                .isEqualTo(2);
        JsonNode run = finished(id);
        assertThat(run.path("pipeline_version").asInt()).isEqualTo(1);
        assertThat(step(run, "say").at("/outputs/v").asText()).isEqualTo("one");

        JsonNode same = finished(http.post("/runs/" + id + "/replay", "{\"from_step\": \"say\"}")
                .json()
                .path("id")
                .asText());
        assertThat(same.path("pipeline_version").asInt()).isEqualTo(1);
        assertThat(step(same, "say").at("/outputs/v").asText()).isEqualTo("one");
        JsonNode latest = finished(http.post("/runs/" + id + "/replay", "{\"from_step\": \"say\", \"latest\": true}")
                .json()
                .path("id")
                .asText());
        assertThat(latest.path("pipeline_version").asInt()).isEqualTo(2);
        assertThat(step(latest, "say").at("/outputs/v").asText()).isEqualTo("two");
        assertThat(step(latest, "wait").path("outputs"))
                .isEqualTo(step(run, "wait").path("outputs"));
        JsonNode versions =
                http.get("/pipelines/" + pipeline + "/versions").json().path("data");
        assertThat(versions.findValuesAsText("version")).containsExactly("2", "1");
        assertThat(versions.get(1).at("/definition/steps/1/params/value").asText())
                .isEqualTo("one");
        http.get("/pipelines/pl_nope/versions").assertError(404, "pipeline_not_found", "pipeline_id");
    }

    @Test
    void aQueuedRunStartsAsSoonAsTheRunAheadOfItEndsNotAtItsNextLookForRoom() {
        String pipeline = create("""
                {"max_concurrent_runs": 1, "steps": [
                   {"id": "ask", "action": "approval", "params": {"message": "go?", "approvers": ["role:admin"]}}]}""");
        String first = start(pipeline, "{}");
        awaitWaiting(first);
        String second = start(pipeline, "{}");
        // its first look finds no room: it parks until the next, ten seconds away
        await().during(Duration.ofSeconds(1))
                .atMost(Duration.ofSeconds(10))
                .until(() -> http.get("/runs/" + second)
                        .json()
                        .path("status")
                        .asText()
                        .equals("queued"));

        assertThat(http.post("/runs/" + first + "/steps/ask/approval", "{\"decision\": \"approved\"}")
                        .status())
                .isEqualTo(200);
        long firstFinished = finished(first).path("finished_at").asLong();
        awaitWaiting(second);

        long secondStarted =
                http.get("/runs/" + second).json().path("started_at").asLong();
        assertThat(secondStarted - firstFinished)
                .as("seconds from the end of the run ahead to the start of the queued one")
                .isLessThanOrEqualTo(3);
    }

    @Test
    void aPipelineCappedAtOneRunQueuesTheRestAndStartsThemHighestPriorityFirstThenOldestFirst() {
        String pipeline = create("""
                {"max_concurrent_runs": 1, "steps": [
                   {"id": "ask", "action": "approval", "params": {"message": "go?", "approvers": ["role:admin"]}},
                   {"id": "after", "action": "log", "depends_on": ["ask"], "params": {"message": "after"}}]}""");
        String first = start(pipeline, "{}");
        awaitWaiting(first);
        String older = start(pipeline, "{}");
        String urgent = start(pipeline, "{\"priority\": 5}");
        String newer = start(pipeline, "{}");
        assertThat(http.get("/runs/" + urgent).json().path("priority").asInt()).isEqualTo(5);

        List<String> order = new ArrayList<>(List.of(first));
        for (int i = 0; i < 3; i++) {
            String running = order.getLast();
            assertOnlyRunning(pipeline, running);
            assertThat(http.post("/runs/" + running + "/steps/ask/approval", "{\"decision\": \"approved\"}")
                            .status())
                    .isEqualTo(200);
            assertThat(finished(running).path("status").asText()).isEqualTo("completed");
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> runsIn(pipeline, "running").size() == 1);
            String next = runsIn(pipeline, "running").getFirst();
            awaitWaiting(next);
            order.add(next);
        }

        assertThat(order).containsExactly(first, urgent, older, newer);
    }

    @ParameterizedTest
    @CsvSource({
        "'{\"max_concurrent_runs\": 0, \"steps\": [{\"id\": \"a\", \"action\": \"log\", \"params\": {\"message\": \"x\"}}]}', max_concurrent_runs",
        "'{\"max_concurrent_runs\": \"two\", \"steps\": [{\"id\": \"a\", \"action\": \"log\", \"params\": {\"message\": \"x\"}}]}', max_concurrent_runs",
        "'{\"priority\": 101, \"steps\": [{\"id\": \"a\", \"action\": \"log\", \"params\": {\"message\": \"x\"}}]}', priority",
    })
    void aLimitOrPriorityOutOfRangeIsRefusedAtItsField(String definition, String param) {
        String named = definition.replaceFirst("\\{", "{\"name\": \"limits-" + NAMES.incrementAndGet() + "\", ");

        http.post("/pipelines", named).assertError(400, "invalid_field", param);
    }

    @Test
    void aRunStartedWithAPriorityOutOfRangeIsRefusedAndNothingIsQueued() {
        String pipeline = create("""
                {"steps": [{"id": "a", "action": "log", "params": {"message": "x"}}]}""");

        http.post("/pipelines/" + pipeline + "/runs", "{\"priority\": 101}")
                .assertError(400, "invalid_field", "priority");
        assertThat(http.get("/pipelines/" + pipeline + "/runs").json().path("data"))
                .isEmpty();
    }

    @Test
    void aPauseRacingARunsLastStepsEitherPausesItOrFindsItFinishedAndTheRunCompletesWithEachStepOnce() {
        String pipeline = create("""
                {"steps": [{"id": "a", "action": "log", "params": {"message": "a"}},
                           {"id": "b", "action": "log", "depends_on": ["a"], "params": {"message": "b"}}]}""");
        for (int round = 0; round < 8; round++) {
            String id = start(pipeline, "{}");

            HttpReply paused = http.action("/runs/" + id + "/pause");

            if (paused.status() == 200) {
                // paused before its end: it holds until resumed (or its running step ended it first)
                HttpReply resumed = http.action("/runs/" + id + "/resume");
                if (resumed.status() != 200) {
                    resumed.assertError(409, "run_finished", "run_id");
                }
            } else {
                paused.assertError(409, "run_finished", "run_id");
            }
            JsonNode run = finished(id);
            assertThat(run.path("status").asText()).as(run.toString()).isEqualTo("completed");
            assertThat(statuses(run).values()).containsOnly("completed");
            run.path("steps")
                    .forEach(step -> assertThat(step.path("attempts").asInt()).isEqualTo(1));
        }
    }

    @Test
    void anAnswerRacingAnApprovalsTimeoutEitherDecidesOrIsRefusedAndTheRunFollowsTheOneDecision() {
        String pipeline = create("""
                {"steps": [{"id": "ask", "action": "approval", "params": {"message": "ok?",
                             "approvers": ["role:admin"], "timeout_seconds": 1, "on_timeout": "reject"}},
                           {"id": "after", "action": "log", "depends_on": ["ask"], "params": {"message": "after"}}]}""");
        for (int round = 0; round < 4; round++) {
            String id = start(pipeline, "{}");
            awaitWaiting(id);
            long expiresAt = pendingApproval(id).path("expires_at").asLong() * 1000;
            // the answer is sent as the timeout falls due, so that the two meet
            await().atMost(Duration.ofSeconds(5))
                    .pollInterval(Duration.ofMillis(5))
                    .until(() -> System.currentTimeMillis() >= expiresAt);

            HttpReply answer = http.post("/runs/" + id + "/steps/ask/approval", "{\"decision\": \"approved\"}");

            JsonNode run = finished(id);
            if (answer.status() == 200) {
                assertThat(answer.json().path("status").asText()).isEqualTo("approved");
                assertThat(run.path("status").asText()).as(run.toString()).isEqualTo("completed");
            } else {
                // the timeout decided first: the answer finds the decision, or the run it ended
                String code = answer.json().at("/error/code").asText();
                assertThat(code).isIn("approval_answered", "run_finished");
                answer.assertError(409, code, code.equals("run_finished") ? "run_id" : "step_id");
                assertThat(run.path("status").asText()).as(run.toString()).isEqualTo("failed");
                assertThat(step(run, "after").path("status").asText()).isEqualTo("cancelled");
            }
            assertThat(step(run, "ask").path("attempts").asInt()).isEqualTo(1);
        }
    }

    private JsonNode pendingApproval(String runId) {
        for (JsonNode approval : http.get("/approvals?status=pending").json().path("data")) {
            if (approval.path("run_id").asText().equals(runId)) {
                return approval;
            }
        }
        throw new AssertionError("no pending approval of run " + runId);
    }

    @Test
    void aRunPipelineStepRunsAnotherPipelineAndItsRunsOutputsBecomeTheStepsOutputs() {
        String child = create("""
                {"parameters": [{"name": "n", "type": "integer", "required": true}],
                 "steps": [{"id": "s", "action": "set_output", "params": {"key": "doubled", "value": "{{ params.n * 2 }}"}}],
                 "outputs": {"doubled": "{{ steps.s.outputs.doubled }}"}}""");
        String parent = create("""
                {"steps": [{"id": "sub", "action": "run_pipeline", "params": {"pipeline_id": "%s", "params": {"n": 21}}},
                           {"id": "use", "action": "set_output", "depends_on": ["sub"],
                            "params": {"key": "got", "value": "{{ steps.sub.outputs.outputs.doubled }}"}}]}""".formatted(child));

        JsonNode run = finished(start(parent, "{}"));

        assertThat(run.path("status").asText()).as(run.toString()).isEqualTo("completed");
        assertThat(step(run, "use").at("/outputs/got").asInt()).isEqualTo(42);
        String childRun = step(run, "sub").at("/outputs/run_id").asText();
        JsonNode started = http.get("/runs/" + childRun).json();
        assertThat(started.path("pipeline_id").asText()).isEqualTo(child);
        assertThat(started.at("/trigger/type").asText()).isEqualTo("pipeline");
        assertThat(started.at("/trigger/run_id").asText())
                .isEqualTo(run.path("id").asText());
        assertThat(http.get("/pipelines/" + child + "/runs").json().path("data"))
                .hasSize(1);
    }

    @Test
    void cancellingARunCancelsTheRunItsRunPipelineStepWaitsFor() {
        String child = create("""
                {"steps": [{"id": "ask", "action": "approval", "params": {"message": "go?", "approvers": ["role:admin"]}}]}""");
        String parent = create("""
                {"steps": [{"id": "sub", "action": "run_pipeline", "params": {"pipeline_id": "%s"}}]}""".formatted(child));
        String id = start(parent, "{}");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> runsIn(child, "running").size() == 1);
        String childRun = runsIn(child, "running").getFirst();
        awaitWaiting(childRun);

        assertThat(http.action("/runs/" + id + "/cancel").status()).isEqualTo(200);

        assertThat(finished(childRun).path("status").asText()).isEqualTo("cancelled");
        assertThat(finished(id).path("status").asText()).isEqualTo("cancelled");
    }

    @Test
    void aRunPipelineStepThatWouldMakeACycleOrNamesNoPipelineIsRefusedWhenSaved() {
        String bottom = create("""
                {"steps": [{"id": "a", "action": "log", "params": {"message": "a"}}]}""");
        String top = create("""
                {"steps": [{"id": "sub", "action": "run_pipeline", "params": {"pipeline_id": "%s"}}]}""".formatted(bottom));
        String name = http.get("/pipelines/" + bottom).json().path("name").asText();
        String runs = "{\"name\": \"" + name + "\", \"steps\": [{\"id\": \"again\", \"action\": \"run_pipeline\", "
                + "\"params\": {\"pipeline_id\": \"%s\"}}]}";

        http.put("/pipelines/" + bottom, runs.formatted(top))
                .assertError(400, "pipeline_cycle", "steps[0].params.pipeline_id");
        http.put("/pipelines/" + bottom, runs.formatted(bottom))
                .assertError(400, "pipeline_cycle", "steps[0].params.pipeline_id");
        http.put("/pipelines/" + bottom, runs.formatted("pl_nope"))
                .assertError(400, "invalid_field", "steps[0].params.pipeline_id");
        http.put("/pipelines/" + bottom, runs.formatted("{{ now }}"))
                .assertError(400, "invalid_field", "steps[0].params.pipeline_id");
        assertThat(http.get("/pipelines/" + bottom).json().path("version").asInt())
                .isEqualTo(1);
    }

    private void awaitWaiting(String runId) {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> step(http.get("/runs/" + runId).json(), "ask")
                        .path("status")
                        .asText()
                        .equals("waiting"));
    }

    /** While {@code runId} waits, no other run of the pipeline starts: the others stay queued. */
    private void assertOnlyRunning(String pipeline, String runId) {
        await().during(Duration.ofMillis(2_500))
                .atMost(Duration.ofSeconds(10))
                .until(() -> runsIn(pipeline, "running").equals(List.of(runId)));
    }

    List<String> runsIn(String pipeline, String status) {
        var ids = new ArrayList<String>();
        for (JsonNode run : http.get("/pipelines/" + pipeline + "/runs?status=" + status)
                .json()
                .path("data")) {
            ids.add(run.path("id").asText());
        }
        return ids;
    }

    @Test
    void aDiffBetweenTwoVersionsComparesStepsByIdSoAMovedStepIsNoChange() {
        String name = "diffed-" + NAMES.incrementAndGet();
        String pipeline =
                http.post("/pipelines", """
                {"name": "%s", "steps": [
                   {"id": "a", "action": "log", "params": {"message": "one"}},
                   {"id": "b", "action": "log", "params": {"message": "two"}},
                   {"id": "gone", "action": "log", "params": {"message": "three"}}]}""".formatted(name)).json().path("id").asText();
        http.put("/pipelines/" + pipeline, """
                {"name": "%s", "description": "moved", "steps": [
                   {"id": "b", "action": "log", "params": {"message": "two"}},
                   {"id": "a", "action": "log", "params": {"message": "ONE"}},
                   {"id": "new", "action": "log", "params": {"message": "four"}}]}""".formatted(name));

        JsonNode diff = http.get("/pipelines/" + pipeline + "/versions/2/diff").json();

        assertThat(diff.path("object").asText()).isEqualTo("pipeline.version_diff");
        assertThat(diff.path("from").asInt()).isEqualTo(1);
        assertThat(diff.path("to").asInt()).isEqualTo(2);
        assertThat(Json.writeString(diff.path("steps_added"))).isEqualTo("[\"new\"]");
        assertThat(Json.writeString(diff.path("steps_removed"))).isEqualTo("[\"gone\"]");
        assertThat(Json.writeString(diff.path("steps_changed"))).isEqualTo("[\"a\"]");
        List<String> changes = new ArrayList<>();
        diff.path("changes")
                .forEach(change -> changes.add(
                        change.path("op").asText() + " " + change.path("path").asText() + " "
                                + change.path("value")
                                        .path("id")
                                        .asText(change.path("value").asText())));
        assertThat(changes)
                .containsExactly(
                        "replace /description moved",
                        "remove /steps/gone ",
                        "replace /steps/a/params/message ONE",
                        "add /steps/new new");
        JsonNode backwards = http.get("/pipelines/" + pipeline + "/versions/1/diff?against=2")
                .json();
        assertThat(Json.writeString(backwards.path("steps_removed"))).isEqualTo("[\"new\"]");
    }

    @ParameterizedTest
    @CsvSource({
        "/versions/3/diff, 404, pipeline_version_not_found, version",
        "/versions/2/diff?against=9, 404, pipeline_version_not_found, against",
        "/versions/1/diff, 400, invalid_parameter, against",
        "/versions/x/diff, 400, invalid_parameter, version",
        "/versions/2/diff?against=0, 400, invalid_parameter, against",
    })
    void aDiffOfVersionsThePipelineDoesNotHaveIsRefused(String path, int status, String code, String param) {
        String name = "undiffed-" + NAMES.incrementAndGet();
        String body = "{\"name\": \"" + name + "\", \"steps\": [{\"id\": \"a\", \"action\": \"log\", "
                + "\"params\": {\"message\": \"%s\"}}]}";
        String pipeline =
                http.post("/pipelines", body.formatted("one")).json().path("id").asText();
        http.put("/pipelines/" + pipeline, body.formatted("two"));

        http.get("/pipelines/" + pipeline + path).assertError(status, code, param);
    }

    @Test
    void aBulkReplayReplaysEachFailedRunOnceAndNotTheOthers() {
        String pipeline = create("""
                {"parameters": [{"name": "ok", "type": "boolean", "required": true}],
                 "steps": [{"id": "check", "action": "log", "params": {"message": "checking"}},
                           {"id": "stop", "action": "fail", "depends_on": ["check"], "condition": "params.ok == false",
                            "params": {"message": "not ok"}}]}""");
        String failedOne = start(pipeline, "{\"params\": {\"ok\": false}}");
        String failedTwo = start(pipeline, "{\"params\": {\"ok\": false}}");
        String completed = start(pipeline, "{\"params\": {\"ok\": true}}");
        for (String id : List.of(failedOne, failedTwo, completed)) {
            finished(id);
        }
        HttpReply replayed = http.post("/pipelines/" + pipeline + "/runs/replay", "{\"status\": \"failed\"}");
        assertThat(replayed.status()).as(replayed.body()).isEqualTo(202);
        assertThat(replayOf(replayed.json())).containsExactlyInAnyOrder(failedOne, failedTwo);
        for (JsonNode run : replayed.json().path("data")) {
            JsonNode replay = finished(run.path("id").asText());
            assertThat(step(replay, "stop").path("status").asText()).isEqualTo("failed");
            assertThat(step(replay, "check").path("attempts").asInt()).isEqualTo(1);
        }
        // a run replayed already is not replayed again; the replays failed too, and are replayed in their turn
        assertThat(replayOf(http.post("/pipelines/" + pipeline + "/runs/replay", "{}")
                        .json()))
                .doesNotContain(failedOne, failedTwo)
                .hasSize(2);
        http.post("/pipelines/" + pipeline + "/runs/replay", "{\"status\": \"running\"}")
                .assertError(400, "invalid_field", "status");
        http.post("/pipelines/pl_nope/runs/replay", "{}").assertError(404, "pipeline_not_found", "pipeline_id");
    }

    @Test
    void paramsAreCheckedBeforeARunStarts() {
        String pipeline = create("""
                {"parameters": [{"name": "n", "type": "integer", "required": true},
                                {"name": "tags", "type": "array"}],
                 "steps": [{"id": "a", "action": "log", "params": {"message": "{{ params.n }}"}}]}""");
        http.post("/pipelines/" + pipeline + "/runs", "{}").assertError(400, "missing_field", "params.n");
        http.post("/pipelines/" + pipeline + "/runs", "{\"params\": {\"n\": \"five\"}}")
                .assertError(400, "invalid_field", "params.n");
        JsonNode error = http.post("/pipelines/" + pipeline + "/runs", "{\"params\": {\"n\": 1, \"m\": 2}, \"x\": 1}")
                .assertError(400, "invalid_field", "x");
        assertThat(error.path("details").findValuesAsText("param")).containsExactly("x", "params.m");
        http.post("/pipelines/" + pipeline + "/runs", "{\"params\": {\"n\": 1}, \"timeout_seconds\": 0}")
                .assertError(400, "invalid_field", "timeout_seconds");
        http.post("/pipelines/pl_nope/runs", "{}").assertError(404, "pipeline_not_found", "pipeline_id");
        http.get("/pipelines/pl_nope/runs").assertError(404, "pipeline_not_found", "pipeline_id");
        JsonNode run = finished(start(pipeline, "{\"params\": {\"n\": 1}}"));
        assertThat(run.path("status").asText()).as(run.toString()).isEqualTo("completed");
        assertThat(run.path("params").toString()).isEqualTo("{\"n\":1,\"tags\":null}");
        assertThat(http.get("/pipelines/" + pipeline + "/runs?status=completed")
                        .json()
                        .path("data"))
                .hasSize(1);
        assertThat(http.get("/pipelines/" + pipeline + "/runs?status=failed")
                        .json()
                        .path("data"))
                .isEmpty();
        http.get("/pipelines/" + pipeline + "/runs?status=done").assertError(400, "invalid_parameter", "status");
    }

    @Test
    void anHttpRequestToAPrivateAddressIsRefusedUnlessAllowed() {
        String pipeline = create("""
                {"steps": [{"id": "call", "action": "http_request", "params": {"url": "http://10.1.2.3/x"}}]}""");
        JsonNode run = finished(start(pipeline, "{}"));
        assertThat(step(run, "call").at("/error/code").asText()).isEqualTo("url_not_allowed");
    }

    @Test
    void anHttpRequestToAUrlRenderedWithoutAHostIsRefusedAsTheSaveRefusesIt() {
        String pipeline = create("""
                {"steps": [{"id": "call", "action": "http_request", "params": {"url": "{{ params.target }}"}}],
                 "parameters": [{"name": "target", "type": "string", "required": true}]}""");
        JsonNode run = finished(start(pipeline, "{\"params\": {\"target\": \"http://127.1:9/x\"}}"));
        assertThat(step(run, "call").at("/error/code").asText()).isEqualTo("url_not_allowed");
        assertThat(step(run, "call").at("/error/message").asText()).contains("no host this server can judge");
    }

    @Test
    void eventsStreamAsServerSentEventsUntilTheRunEnds() throws Exception {
        String pipeline = create("""
                {"steps": [{"id": "wait", "action": "wait_until",
                            "params": {"condition": "now >= params.at", "poll_interval_seconds": 1}},
                           {"id": "say", "action": "log", "depends_on": ["wait"], "params": {"message": "hi"}}],
                 "parameters": [{"name": "at", "type": "integer", "required": true}]}""");
        String id = start(pipeline, "{\"params\": {\"at\": " + (System.currentTimeMillis() / 1000 + 1) + "}}");
        var request = HttpRequest.newBuilder(
                        URI.create(http.uri("/runs/" + id + "/events").toString()))
                .header("accept", "text/event-stream")
                .timeout(Duration.ofSeconds(30))
                .build();
        HttpResponse<java.io.InputStream> response =
                HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofInputStream());
        assertThat(response.headers().firstValue("content-type").orElse("")).startsWith("text/event-stream");
        var lines = new ArrayList<String>();
        try (var reader = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                lines.add(line);
            }
        }
        assertThat(lines).contains("event: step", "event: log", "event: end");
        assertThat(lines.stream().filter(l -> l.startsWith("data: ") && l.contains("\"message\":\"hi\"")))
                .hasSize(1);
        String lastId = lines.stream()
                .filter(l -> l.startsWith("id: "))
                .reduce((a, b) -> b)
                .orElseThrow()
                .substring(4);
        // a stream picked up again after its last event sends only what came after: here, the end
        HttpReply again = http.get("/runs/" + id + "/events", "accept", "text/event-stream", "last-event-id", lastId);
        assertThat(again.body().strip()).isEqualTo("event: end\ndata: {}");
        JsonNode page = http.get("/runs/" + id + "/events?limit=2").json();
        assertThat(page.path("data")).hasSize(2);
        assertThat(page.path("has_more").asBoolean()).isTrue();
        http.get("/runs/" + id + "/events?after=x").assertError(400, "invalid_parameter", "after");
    }

    // helpers

    String create(String definition) {
        String named = definition.replaceFirst("\\{", "{\"name\": \"p" + NAMES.incrementAndGet() + "\", ");
        HttpReply created = http.post("/pipelines", named);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return created.json().path("id").asText();
    }

    String start(String pipeline, String body) {
        HttpReply started = http.post("/pipelines/" + pipeline + "/runs", body);
        assertThat(started.status()).as(started.body()).isEqualTo(202);
        return started.json().path("id").asText();
    }

    JsonNode finished(String runId) {
        return finished(http, runId);
    }

    /** The run once it has ended (completed, failed or cancelled). */
    public static JsonNode finished(TestServer http, String runId) {
        await().atMost(Duration.ofSeconds(45))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    String status =
                            http.get("/runs/" + runId).json().path("status").asText();
                    return !status.equals("queued") && !status.equals("running");
                });
        return http.get("/runs/" + runId).json();
    }

    List<JsonNode> events(String runId) {
        var events = new ArrayList<JsonNode>();
        http.get("/runs/" + runId + "/events?limit=100").json().path("data").forEach(events::add);
        return events;
    }

    /** The runs a list of runs replays, one per run. */
    static List<String> replayOf(JsonNode runs) {
        var replayed = new ArrayList<String>();
        runs.path("data").forEach(run -> replayed.add(run.path("replay_of").asText()));
        return replayed;
    }

    public static JsonNode step(JsonNode run, String id) {
        for (JsonNode step : run.path("steps")) {
            if (step.path("id").asText().equals(id)) {
                return step;
            }
        }
        throw new AssertionError("no step " + id + " in " + run);
    }

    static Map<String, String> statuses(JsonNode run) {
        var statuses = new HashMap<String, String>();
        run.path("steps")
                .forEach(step -> statuses.put(
                        step.path("id").asText(), step.path("status").asText()));
        return statuses;
    }
}
