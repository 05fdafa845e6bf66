package dev.arbor.triggers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.events.EventEnvelope;
import dev.arbor.events.EventSubscribers;
import dev.arbor.events.EventSubscribers.Firing;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.json.Json;
import dev.arbor.testing.HttpReceiver;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.MovableClock;
import dev.arbor.testing.NodeScript;
import dev.arbor.testing.TwoProjectsContract;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Triggers (issue 21) on a real server: CRUD in the current project, every check of a body, a member kept out of
 * other projects' triggers, the URL target's secret shown once; events handed to the triggers as the webhook ingest
 * will hand them, starting real pipeline runs that read the event, filtered, once per round, debounced, and posted
 * signed to a real HTTP server (checked with the standardwebhooks library), retried. Runs once per database.
 */
abstract class TriggerContract extends TwoProjectsContract {
    private static final String ADMIN_SECRET = "arb_triggers_admin";
    /** A signing secret nobody signed with. */
    private static final String OTHER_SECRET = "whsec_" + Base64.getEncoder().encodeToString(new byte[32]);

    private final MovableClock clock = new MovableClock();
    private HttpReceiver receiver;
    /** A GitHub connection shared with mine and theirs, new for each test: its events fire its triggers only. */
    private String connection;
    /** A GitHub connection shared with theirs only. */
    private String theirsOnly;

    private String pipeline;

    TriggerContract() {
        super(ADMIN_SECRET, Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1", "ARBOR_TRIGGER_RETRY_SECONDS", "1,1"));
    }

    @Override
    protected Clock clock() {
        return clock;
    }

    @BeforeAll
    void start() throws IOException {
        receiver = new HttpReceiver();
        theirsOnly = admin(
                        "POST",
                        "/events/shared-connections",
                        "{\"provider\": \"github\", \"credentials\": {\"signing_secret\": \"s\"}, "
                                + "\"project_ids\": [\"" + theirs + "\"]}")
                .path("id")
                .asText();
        pipeline = admin("POST", "/pipelines", """
                        {"name": "on push", "parameters": [{"name": "env", "type": "string", "default": "prod"}],
                         "steps": [{"id": "say", "action": "set_output", "params": {"key": "repo",
                           "value": "{{ event.payload.repository.name }} {{ event.type }} {{ params.env }}"}}]}""").path("id").asText();
        newConnection(); // the bad bodies are made before the first test
    }

    @BeforeEach
    void newConnection() {
        connection = admin(
                        "POST",
                        "/events/shared-connections",
                        "{\"provider\": \"github\", \"credentials\": {\"signing_secret\": \"s\"}, "
                                + "\"project_ids\": [\"" + mine + "\", \"" + theirs + "\"]}")
                .path("id")
                .asText();
    }

    @AfterAll
    void stop() {
        receiver.close();
    }

    // ---- CRUD and checks

    @Test
    void aUrlTriggerIsCreatedReadChangedAndDeletedAndItsSecretIsShownOnce() {
        HttpReply created = http.post("/triggers", urlTrigger("/crud"), admin(mine));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        JsonNode trigger = created.json();
        String id = trigger.path("id").asText();
        assertThat(id).startsWith("trg_");
        assertThat(created.header("location")).isEqualTo("/triggers/" + id);
        assertThat(trigger.path("signing_secret").asText()).startsWith("whsec_");
        assertThat(trigger.path("target").path("secret_set").asBoolean()).isTrue();
        assertThat(trigger.path("project_id").asText()).isEqualTo(mine);
        assertThat(trigger.path("enabled").asBoolean()).isTrue();

        JsonNode read = http.get("/triggers/" + id, admin(mine)).json();
        assertThat(read.has("signing_secret")).isFalse();
        assertThat(read.toString())
                .doesNotContain(trigger.path("signing_secret").asText());
        assertThat(ids(http.get("/triggers?connection_id=" + connection, admin(mine))))
                .contains(id);

        HttpReply renamed = http.patch("/triggers/" + id, "{\"name\": \"renamed\", \"enabled\": false}", admin(mine));
        assertThat(renamed.status()).as(renamed.body()).isEqualTo(200);
        assertThat(renamed.json().path("name").asText()).isEqualTo("renamed");
        assertThat(renamed.json().path("enabled").asBoolean()).isFalse();
        assertThat(renamed.json().has("signing_secret")).isFalse();
        assertThat(renamed.json().path("event_types")).isEqualTo(trigger.path("event_types"));

        assertThat(http.delete("/triggers/" + id, admin(mine))
                        .json()
                        .path("deleted")
                        .asBoolean())
                .isTrue();
        http.get("/triggers/" + id, admin(mine)).assertError(404, "trigger_not_found", "trigger_id");
    }

    record BadBody(String name, String body, int status, String code, String param) {
        @Override
        public String toString() {
            return name;
        }
    }

    Stream<Arguments> badBodies() {
        return Stream.of(
                        new BadBody(
                                "no name",
                                body(null, "[\"push\"]", null, url("/x"), null),
                                400,
                                "missing_field",
                                "name"),
                        new BadBody(
                                "no event types",
                                body("t", "[]", null, url("/x"), null),
                                400,
                                "invalid_field",
                                "event_types"),
                        new BadBody(
                                "an unknown event type",
                                body("t", "[\"push\", \"issue.opened\"]", null, url("/x"), null),
                                400,
                                "invalid_field",
                                "event_types[1]"),
                        new BadBody(
                                "a filter that is no object",
                                body("t", "[\"push\"]", "[1]", url("/x"), null),
                                400,
                                "invalid_field",
                                "filter"),
                        new BadBody(
                                "a filter path rooted at the payload",
                                body("t", "[\"push\"]", "{\"$.repository.name\": \"arbor\"}", url("/x"), null),
                                400,
                                "invalid_field",
                                "filter[\"$.repository.name\"]"),
                        new BadBody(
                                "a filter path with a wildcard",
                                body("t", "[\"push\"]", "{\"$.payload.commits[*].id\": \"x\"}", url("/x"), null),
                                400,
                                "invalid_field",
                                "filter[\"$.payload.commits[*].id\"]"),
                        new BadBody(
                                "a filter value that is an object",
                                body("t", "[\"push\"]", "{\"$.payload.ref\": {\"a\": 1}}", url("/x"), null),
                                400,
                                "invalid_field",
                                "filter[\"$.payload.ref\"]"),
                        new BadBody(
                                "an empty membership list",
                                body("t", "[\"push\"]", "{\"$.payload.ref\": []}", url("/x"), null),
                                400,
                                "invalid_field",
                                "filter[\"$.payload.ref\"]"),
                        new BadBody(
                                "no target", body("t", "[\"push\"]", null, null, null), 400, "missing_field", "target"),
                        new BadBody(
                                "an empty target",
                                body("t", "[\"push\"]", null, "{}", null),
                                400,
                                "invalid_field",
                                "target"),
                        new BadBody(
                                "a target with both",
                                body(
                                        "t",
                                        "[\"push\"]",
                                        null,
                                        "{\"url\": \"http://127.0.0.1:9/x\", \"pipeline_id\": \"pl_1\"}",
                                        null),
                                400,
                                "invalid_field",
                                "target"),
                        new BadBody(
                                "a target with an unknown field",
                                body(
                                        "t",
                                        "[\"push\"]",
                                        null,
                                        "{\"url\": \"http://127.0.0.1:9/x\", \"headers\": {}}",
                                        null),
                                400,
                                "invalid_field",
                                "target.headers"),
                        new BadBody(
                                "a url that is not http",
                                body("t", "[\"push\"]", null, "{\"url\": \"ftp://127.0.0.1/x\"}", null),
                                400,
                                "invalid_field",
                                "target.url"),
                        new BadBody(
                                "a url the outbound policy refuses",
                                body("t", "[\"push\"]", null, "{\"url\": \"http://10.1.2.3/hook\"}", null),
                                400,
                                "invalid_field",
                                "target.url"),
                        new BadBody(
                                "params the pipeline does not take",
                                body(
                                        "t",
                                        "[\"push\"]",
                                        null,
                                        "{\"pipeline_id\": \"" + pipeline + "\", \"params\": {\"nope\": 1}}",
                                        null),
                                400,
                                "invalid_field",
                                "target.params.nope"),
                        new BadBody(
                                "a pipeline that does not exist",
                                body("t", "[\"push\"]", null, "{\"pipeline_id\": \"pl_missing\"}", null),
                                404,
                                "pipeline_not_found",
                                "target.pipeline_id"),
                        new BadBody(
                                "a connection that does not exist",
                                body("t", "[\"push\"]", null, url("/x"), null).replace(connection, "esc_missing"),
                                404,
                                "event_connection_not_found",
                                "connection_id"),
                        new BadBody(
                                "a connection not shared with the project",
                                body("t", "[\"push\"]", null, url("/x"), null).replace(connection, theirsOnly),
                                404,
                                "event_connection_not_found",
                                "connection_id"),
                        new BadBody(
                                "a correlation key without debouncing",
                                body("t", "[\"push\"]", null, url("/x"), "\"correlation_key\": \"$.payload.ref\""),
                                400,
                                "invalid_field",
                                "correlation_key"),
                        new BadBody(
                                "a correlation key that is no path",
                                body(
                                        "t",
                                        "[\"push\"]",
                                        null,
                                        url("/x"),
                                        "\"correlation_key\": \"payload.ref\", \"debounce_seconds\": 5"),
                                400,
                                "invalid_field",
                                "correlation_key"),
                        new BadBody(
                                "a debounce too long",
                                body("t", "[\"push\"]", null, url("/x"), "\"debounce_seconds\": 86401"),
                                400,
                                "invalid_field",
                                "debounce_seconds"),
                        new BadBody(
                                "enabled not a boolean",
                                body("t", "[\"push\"]", null, url("/x"), "\"enabled\": \"yes\""),
                                400,
                                "invalid_field",
                                "enabled"),
                        new BadBody(
                                "a field triggers do not have",
                                body("t", "[\"push\"]", null, url("/x"), "\"colour\": \"red\""),
                                400,
                                "invalid_field",
                                "colour"))
                .map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badBodies")
    void aBadBodyIsRefusedWithItsCodeAndParamAndWritesNothing(BadBody bad) {
        int before = ids(http.get("/triggers?limit=100", admin(mine))).size();
        http.post("/triggers", bad.body(), admin(mine)).assertError(bad.status(), bad.code(), bad.param());
        assertThat(ids(http.get("/triggers?limit=100", admin(mine)))).hasSize(before);
    }

    @Test
    void anUnknownEventTypeGetsTheClosestKnownOne() {
        JsonNode error = http.post("/triggers", body("t", "[\"issue.opened\"]", null, url("/x"), null), admin(mine))
                .assertError(400, "invalid_field", "event_types[0]");
        assertThat(error.path("message").asText()).contains("Did you mean `issues.opened`?");
    }

    @Test
    void everyProblemOfABodyIsListedAtOnce() {
        JsonNode error = http.post(
                        "/triggers",
                        body(null, "[\"nope\"]", "{\"type\": 1}", "{\"url\": \"ftp://x\"}", "\"debounce_seconds\": -1"),
                        admin(mine))
                .assertError(400, "missing_field", "name");
        assertThat(error.path("details").findValuesAsText("param"))
                .contains("name", "event_types[0]", "filter.type", "target.url", "debounce_seconds");
    }

    @Test
    void aTriggerNeedsAProject() {
        http.post(
                        "/triggers",
                        body("t", "[\"push\"]", null, url("/x"), null),
                        "Authorization",
                        "Bearer " + ADMIN_SECRET)
                .assertError(400, "missing_field", "project_id");
        // a body's project_id wins over the header
        HttpReply created = http.post(
                "/triggers",
                body("t", "[\"push\"]", null, url("/x"), "\"project_id\": \"" + theirs + "\""),
                admin(mine));
        assertThat(created.json().path("project_id").asText())
                .as(created.body())
                .isEqualTo(theirs);
    }

    @Test
    void aMemberSeesOnlyItsOwnProjectsTriggersNotEvenInACount() {
        String ours = created(urlTrigger("/ours"), member(mine));
        String other = created(urlTrigger("/other"), admin(theirs));
        assertThat(ids(http.get("/triggers?limit=100", "Authorization", "Bearer " + memberSecret)))
                .contains(ours)
                .doesNotContain(other);
        http.get("/triggers/" + other, "Authorization", "Bearer " + memberSecret)
                .assertError(404, "trigger_not_found", "trigger_id");
        http.get("/triggers/" + other + "/firings", "Authorization", "Bearer " + memberSecret)
                .assertError(404, "trigger_not_found", "trigger_id");
        http.get("/triggers?project_id=" + theirs, "Authorization", "Bearer " + memberSecret)
                .assertError(403, "project_forbidden", "project_id");
        http.patch("/triggers/" + other, "{\"name\": \"mine now\"}", "Authorization", "Bearer " + memberSecret)
                .assertError(404, "trigger_not_found", "trigger_id");
        // an admin naming a project sees that project's triggers only
        assertThat(ids(http.get("/triggers?limit=100", admin(mine))))
                .contains(ours)
                .doesNotContain(other);
    }

    @Test
    void onlyAnAdminMakesATriggerStartAPipeline() {
        http.post("/triggers", pipelineTrigger("[\"push\"]", null, null), member(mine))
                .assertError(403, "admin_required", "target.pipeline_id");
        String id = created(pipelineTrigger("[\"push\"]", null, null), admin(mine));
        assertThat(http.get("/triggers/" + id, member(mine)).status()).isEqualTo(200);
        http.patch("/triggers/" + id, "{\"enabled\": false}", member(mine))
                .assertError(403, "admin_required", "target.pipeline_id");
        http.delete("/triggers/" + id, member(mine)).assertError(403, "admin_required", "trigger_id");
    }

    @Test
    void rotatingTheSecretAnswersANewOneOnceAndSignsWithBothDuringTheGrace() throws Exception {
        HttpReply created = http.post("/triggers", urlTrigger("/rotated"), admin(mine));
        String id = created.json().path("id").asText();
        String first = created.json().path("signing_secret").asText();
        JsonNode rotated = http.patch("/triggers/" + id, "{\"rotate_secret\": true}", admin(mine))
                .json();
        String second = rotated.path("signing_secret").asText();
        assertThat(second).startsWith("whsec_").isNotEqualTo(first);
        assertThat(rotated.path("target").path("previous_secret_expires_at").asLong())
                .isGreaterThan(Instant.now().getEpochSecond());

        dispatch(event("push", "{\"repository\": {\"name\": \"arbor\"}}"), 0);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> !receiver.received("/rotated").isEmpty());
        HttpReceiver.Received received = receiver.received("/rotated").getFirst();
        assertThat(verify(List.of(first, second, OTHER_SECRET), received)).containsExactly(true, true, false);

        http.patch(
                        "/triggers/" + id,
                        "{\"target\": {\"pipeline_id\": null, \"url\": null}, \"rotate_secret\": true}",
                        admin(mine))
                .assertError(400, "invalid_field", "target");
    }

    // ---- dispatch

    @Test
    void anEventStartsARealPipelineRunThatReadsIt() {
        String id = created(pipelineTrigger("[\"push\"]", null, "{\"env\": \"staging\"}"), admin(mine));
        EventEnvelope push = event("push", "{\"repository\": {\"name\": \"arbor\"}, \"ref\": \"refs/heads/main\"}");
        dispatch(push, 0);
        Firing firing = firingOf(push.id(), id).getFirst();
        assertThat(firing.status()).isEqualTo(Firing.Status.DONE);
        String run = firing.runId().orElseThrow();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> http.get("/runs/" + run, "Authorization", "Bearer " + ADMIN_SECRET)
                        .json()
                        .path("status")
                        .asText()
                        .equals("completed"));
        JsonNode read = http.get("/runs/" + run, "Authorization", "Bearer " + ADMIN_SECRET)
                .json();
        assertThat(read.path("steps").path(0).path("outputs").path("repo").asText())
                .isEqualTo("arbor push staging");
        assertThat(read.path("trigger").path("type").asText()).isEqualTo("event");
        assertThat(read.path("trigger").path("trigger_id").asText()).isEqualTo(id);
        assertThat(read.path("trigger").path("event").path("id").asText()).isEqualTo(push.id());

        JsonNode listed = http.get("/triggers/" + id + "/firings", admin(mine)).json();
        assertThat(listed.path("data").path(0).path("run_id").asText()).isEqualTo(run);
        assertThat(listed.path("data").path(0).path("delivery_id").asText()).isEqualTo(push.id());
        assertThat(listed.path("data").path(0).path("status").asText()).isEqualTo("done");
    }

    @Test
    void aRepeatedRoundFiresOnceAndAReplayFiresAgain() {
        String id = created(pipelineTrigger("[\"push\"]", null, null), admin(mine));
        EventEnvelope push = event("push", "{\"repository\": {\"name\": \"again\"}}");
        dispatch(push, 0);
        dispatch(push, 0);
        assertThat(firingOf(push.id(), id)).hasSize(1);
        dispatch(push, 1);
        List<Firing> both = firingOf(push.id(), id);
        assertThat(both).extracting(Firing::round).containsExactly(0, 1);
        assertThat(both.get(0).runId()).isPresent().isNotEqualTo(both.get(1).runId());
    }

    record FilterCase(String name, String filter, String payload, boolean fires) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Arguments> filters() {
        return Stream.of(
                        new FilterCase(
                                "equality holds",
                                "{\"$.payload.repository.name\": \"arbor\"}",
                                "{\"repository\": {\"name\": \"arbor\"}}",
                                true),
                        new FilterCase(
                                "equality fails",
                                "{\"$.payload.repository.name\": \"arbor\"}",
                                "{\"repository\": {\"name\": \"other\"}}",
                                false),
                        new FilterCase(
                                "a missing value fails", "{\"$.payload.repository.name\": \"arbor\"}", "{}", false),
                        new FilterCase(
                                "membership holds",
                                "{\"$.payload.ref\": [\"refs/heads/main\", \"refs/heads/dev\"]}",
                                "{\"ref\": \"refs/heads/dev\"}",
                                true),
                        new FilterCase(
                                "membership fails",
                                "{\"$.payload.ref\": [\"refs/heads/main\"]}",
                                "{\"ref\": \"refs/heads/dev\"}",
                                false),
                        new FilterCase("numbers equal by value", "{\"$.payload.size\": 2}", "{\"size\": 2.0}", true),
                        new FilterCase(
                                "every condition must hold",
                                "{\"$.type\": \"push\", \"$.payload.size\": 3}",
                                "{\"size\": 2}",
                                false),
                        new FilterCase(
                                "the envelope's own fields",
                                "{\"$.type\": \"push\", \"$.provider\": \"github\"}",
                                "{}",
                                true))
                .map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("filters")
    void aFilterDecidesWhetherAnEventFires(FilterCase filterCase) {
        String id = created(pipelineTrigger("[\"push\"]", filterCase.filter(), null), admin(mine));
        EventEnvelope push = event("push", filterCase.payload());
        dispatch(push, 0);
        assertThat(firingOf(push.id(), id)).hasSize(filterCase.fires() ? 1 : 0);
    }

    @Test
    void anEventOfAnotherTypeOrADisabledTriggerFiresNothing() {
        String id = created(pipelineTrigger("[\"issues.opened\"]", null, null), admin(mine));
        EventEnvelope push = event("push", "{}");
        dispatch(push, 0);
        assertThat(firingOf(push.id(), id)).isEmpty();
        assertThat(http.patch("/triggers/" + id, "{\"enabled\": false}", admin(mine))
                        .status())
                .isEqualTo(200);
        EventEnvelope opened = event("issues.opened", "{}");
        dispatch(opened, 0);
        assertThat(firingOf(opened.id(), id)).isEmpty();
    }

    @Test
    void eventsOfOneCorrelationValueWithinTheWindowStartOneRunWithTheLastEvent() {
        String id = created(
                body(
                        "debounced",
                        "[\"issues.opened\", \"issues.closed\"]",
                        null,
                        "{\"pipeline_id\": \"" + pipeline + "\"}",
                        "\"debounce_seconds\": 60, \"correlation_key\": \"$.payload.issue.number\""),
                admin(mine));
        EventEnvelope first = event("issues.opened", "{\"issue\": {\"number\": 7}, \"repository\": {\"name\": \"a\"}}");
        EventEnvelope second =
                event("issues.closed", "{\"issue\": {\"number\": 7}, \"repository\": {\"name\": \"b\"}}");
        EventEnvelope other = event("issues.opened", "{\"issue\": {\"number\": 8}, \"repository\": {\"name\": \"c\"}}");
        EventEnvelope last = event("issues.closed", "{\"issue\": {\"number\": 7}, \"repository\": {\"name\": \"d\"}}");
        for (EventEnvelope event : List.of(first, second, other, last)) {
            dispatch(event, 0);
        }
        dispatch(second, 0); // a repeated dispatch joins nothing twice
        assertThat(firingOf(first.id(), id).getFirst().status()).isEqualTo(Firing.Status.MERGED);
        assertThat(firingOf(second.id(), id).getFirst().status()).isEqualTo(Firing.Status.MERGED);
        assertThat(firingOf(last.id(), id).getFirst().status()).isEqualTo(Firing.Status.WAITING);

        clock.advance(Duration.ofSeconds(61));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> firingOf(last.id(), id).getFirst().status() == Firing.Status.DONE
                        && firingOf(other.id(), id).getFirst().status() == Firing.Status.DONE);
        String run = firingOf(last.id(), id).getFirst().runId().orElseThrow();
        JsonNode read = http.get("/runs/" + run, "Authorization", "Bearer " + ADMIN_SECRET)
                .json();
        assertThat(read.path("trigger").path("event").path("id").asText()).isEqualTo(last.id());
        assertThat(read.path("trigger").path("event_count").asInt()).isEqualTo(3);
        assertThat(firingOf(other.id(), id).getFirst().runId()).isPresent().isNotEqualTo(Optional.of(run));

        JsonNode listed =
                http.get("/triggers/" + id + "/firings?limit=100", admin(mine)).json();
        JsonNode lastJson = firingJson(listed, last.id());
        assertThat(lastJson.path("event_count").asInt()).isEqualTo(3);
        assertThat(lastJson.path("correlation_value").asInt()).isEqualTo(7);
        assertThat(firingJson(listed, first.id()).path("merged_into").asText())
                .isEqualTo(firingJson(listed, second.id()).path("id").asText());
        assertThat(firingJson(listed, second.id()).path("merged_into").asText())
                .isEqualTo(lastJson.path("id").asText());
    }

    @Test
    void aUrlTargetGetsTheEventSignedWithStandardWebhooks() throws Exception {
        HttpReply created = http.post("/triggers", urlTrigger("/signed"), admin(mine));
        String id = created.json().path("id").asText();
        String secret = created.json().path("signing_secret").asText();
        EventEnvelope push = event("push", "{\"repository\": {\"name\": \"arbor\"}}");
        dispatch(push, 0);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> firingOf(push.id(), id).getFirst().status() == Firing.Status.DONE);
        HttpReceiver.Received received = receiver.received("/signed").getFirst();
        assertThat(verify(List.of(secret, OTHER_SECRET), received)).containsExactly(true, false);
        JsonNode body = Json.read(received.body());
        assertThat(body.path("id").asText()).isEqualTo(push.id());
        assertThat(body.path("type").asText()).isEqualTo("push");
        assertThat(body.path("payload").path("repository").path("name").asText())
                .isEqualTo("arbor");
        JsonNode firing = http.get("/triggers/" + id + "/firings", admin(mine))
                .json()
                .path("data")
                .path(0);
        assertThat(received.headers().get("webhook-id"))
                .isEqualTo(firing.path("id").asText());
        assertThat(firing.path("attempts").path(0).path("status_code").asInt()).isEqualTo(200);
    }

    @Test
    void aUrlThatFailsIsRetriedWithEachAttemptRecordedAndFailsAfterTheLast() {
        receiver.script("/flaky", HttpReceiver.Reply.json(500, "{}"), HttpReceiver.Reply.json(200, "{}"));
        receiver.script(
                "/down",
                HttpReceiver.Reply.json(503, "{}"),
                HttpReceiver.Reply.json(502, "{}"),
                HttpReceiver.Reply.json(500, "{\"no\": true}"));
        String flaky = created(urlTrigger("/flaky"), admin(mine));
        String down = created(urlTrigger("/down"), admin(mine));
        EventEnvelope push = event("push", "{}");
        dispatch(push, 0);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> firingOf(push.id(), flaky).getFirst().status() == Firing.Status.DONE
                        && firingOf(push.id(), down).getFirst().status() == Firing.Status.FAILED);
        JsonNode retried = http.get("/triggers/" + flaky + "/firings", admin(mine))
                .json()
                .path("data")
                .path(0);
        assertThat(retried.path("attempts").findValuesAsText("status_code")).containsExactly("500", "200");
        JsonNode failed = http.get("/triggers/" + down + "/firings", admin(mine))
                .json()
                .path("data")
                .path(0);
        assertThat(failed.path("attempts").findValuesAsText("status_code")).containsExactly("503", "502", "500");
        assertThat(failed.path("error").asText()).contains("answered 500");
        assertThat(firingOf(push.id(), down).getFirst().error()).isPresent();
    }

    @Test
    void unsubscribingRemovesTheTriggersOfProjectsLeftOut() {
        String ours = created(urlTrigger("/kept"), admin(mine));
        String other = created(urlTrigger("/dropped"), admin(theirs));
        // each test has a connection of its own: these two are all its triggers
        assertThat(server.subscribers().unsubscribe(connection, Set.of(mine))).isEqualTo(1);
        assertThat(http.get("/triggers/" + ours, admin(mine)).status()).isEqualTo(200);
        http.get("/triggers/" + other, admin(theirs)).assertError(404, "trigger_not_found", "trigger_id");
        // the connection deleted: none is kept
        assertThat(server.subscribers().unsubscribe(connection, Set.of())).isEqualTo(1);
        http.get("/triggers/" + ours, admin(mine)).assertError(404, "trigger_not_found", "trigger_id");
    }

    @Test
    void deletingTheConnectionDeletesItsTriggersInEveryProjectAndSaysHowMany() {
        List<String> removed = List.of(
                created(urlTrigger("/cascade"), admin(mine)),
                created(pipelineTrigger("[\"push\"]", null, null), admin(mine)),
                created(urlTrigger("/cascade"), admin(theirs)));

        HttpReply deleted =
                http.delete("/events/shared-connections/" + connection, "Authorization", "Bearer " + ADMIN_SECRET);

        assertThat(deleted.status()).as(deleted.body()).isEqualTo(200);
        assertThat(deleted.json().path("subscriptions_removed").asInt()).isEqualTo(removed.size());
        for (String id : removed) {
            http.get("/triggers/" + id, "Authorization", "Bearer " + ADMIN_SECRET)
                    .assertError(404, "trigger_not_found", "trigger_id");
        }
    }

    @Test
    void narrowingTheShareSetDeletesTheTriggersOfTheProjectLeftOutOnly() {
        String ours = created(urlTrigger("/narrowed"), admin(mine));
        String other = created(urlTrigger("/narrowed"), admin(theirs));

        HttpReply narrowed = http.patch(
                "/events/shared-connections/" + connection, "{\"project_ids\": [\"" + mine + "\"]}", admin(mine));

        assertThat(narrowed.status()).as(narrowed.body()).isEqualTo(200);
        assertThat(narrowed.json().path("subscriptions_removed").asInt()).isEqualTo(1);
        assertThat(narrowed.json().path("project_ids").toString()).isEqualTo("[\"" + mine + "\"]");
        assertThat(ids(http.get("/triggers?connection_id=" + connection, admin(mine))))
                .containsExactly(ours);
        assertThat(ids(http.get("/triggers", admin(theirs)))).doesNotContain(other);
        http.get("/triggers/" + other, admin(theirs)).assertError(404, "trigger_not_found", "trigger_id");
    }

    @Test
    void withoutACorrelationKeyAllTheTriggersEventsAreOneWindow() {
        String id = created(
                body(
                        "burst",
                        "[\"push\"]",
                        null,
                        "{\"pipeline_id\": \"" + pipeline + "\"}",
                        "\"debounce_seconds\": 30"),
                admin(mine));
        EventEnvelope first = event("push", "{\"repository\": {\"name\": \"one\"}}");
        EventEnvelope last = event("push", "{\"repository\": {\"name\": \"two\"}}");
        dispatch(first, 0);
        dispatch(last, 0);
        clock.advance(Duration.ofSeconds(31));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> firingOf(last.id(), id).getFirst().status() == Firing.Status.DONE);
        assertThat(firingOf(first.id(), id).getFirst().status()).isEqualTo(Firing.Status.MERGED);
        assertThat(firingOf(first.id(), id).getFirst().runId()).isEmpty();
    }

    @Test
    void aTriggerDeletedWhileItsWindowIsOpenStartsNothing() {
        String id = created(body("gone", "[\"push\"]", null, url("/gone"), "\"debounce_seconds\": 30"), admin(mine));
        EventEnvelope push = event("push", "{}");
        dispatch(push, 0);
        http.delete("/triggers/" + id, admin(mine));
        clock.advance(Duration.ofSeconds(31));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> firingOf(push.id(), id).getFirst().status() == Firing.Status.FAILED);
        assertThat(firingOf(push.id(), id).getFirst().error().orElseThrow()).contains("deleted");
        assertThat(receiver.received("/gone")).isEmpty();
    }

    @Test
    void switchingATargetToAUrlAnswersItsNewSecretAndBackDropsIt() {
        String id = created(pipelineTrigger("[\"push\"]", null, null), admin(mine));
        JsonNode toUrl = http.patch(
                        "/triggers/" + id,
                        "{\"target\": {\"pipeline_id\": null, \"params\": null, \"url\": \"" + receiver.url("/switched")
                                + "\"}}",
                        admin(mine))
                .json();
        assertThat(toUrl.path("signing_secret").asText()).startsWith("whsec_");
        assertThat(toUrl.path("target").path("previous_secret_expires_at").isNull())
                .isTrue();
        JsonNode back = http.patch(
                        "/triggers/" + id,
                        "{\"target\": {\"url\": null, \"pipeline_id\": \"" + pipeline + "\"}}",
                        admin(mine))
                .json();
        assertThat(back.has("signing_secret")).isFalse();
        assertThat(back.path("target").path("pipeline_id").asText()).isEqualTo(pipeline);
        http.patch("/triggers/" + id, "{\"rotate_secret\": true}", admin(mine))
                .assertError(400, "invalid_field", "rotate_secret");
    }

    @Test
    void theListIsPagedNewestFirst() {
        String older = created(urlTrigger("/paged"), admin(mine));
        String newer = created(urlTrigger("/paged"), admin(mine));
        String query = "/triggers?limit=1&connection_id=" + connection;
        JsonNode first = http.get(query, admin(mine)).json();
        assertThat(first.path("data").findValuesAsText("id")).containsExactly(newer);
        assertThat(first.path("has_more").asBoolean()).isTrue();
        JsonNode second = http.get(query + "&after=" + newer, admin(mine)).json();
        assertThat(second.path("data").findValuesAsText("id")).containsExactly(older);
        assertThat(second.path("has_more").asBoolean()).isFalse();
    }

    // ---- helpers

    private static JsonNode firingJson(JsonNode list, String deliveryId) {
        for (JsonNode firing : list.path("data")) {
            if (firing.path("delivery_id").asText().equals(deliveryId)) {
                return firing;
            }
        }
        throw new AssertionError("no firing of " + deliveryId + " in " + list);
    }

    private void dispatch(EventEnvelope event, int round) {
        server.subscribers().dispatch(event, round, EventSubscribers.Audience.everyone());
    }

    private List<Firing> firingOf(String deliveryId, String triggerId) {
        return server.subscribers().firings(deliveryId).stream()
                .filter(f -> f.triggerId().equals(triggerId))
                .toList();
    }

    private EventEnvelope event(String type, String payload) {
        return new EventEnvelope(Ids.next("dlv"), "github", type, clock.instant(), connection, Json.read(payload));
    }

    private String urlTrigger(String path) {
        return body("to " + path, "[\"push\"]", null, url(path), null);
    }

    private String url(String path) {
        return "{\"url\": \"" + receiver.url(path) + "\"}";
    }

    private String pipelineTrigger(String types, String filter, String params) {
        return body(
                "run it",
                types,
                filter,
                "{\"pipeline_id\": \"" + pipeline + "\"" + (params == null ? "" : ", \"params\": " + params) + "}",
                null);
    }

    /** A trigger's body on the shared connection; null leaves a field out, {@code more} adds raw members. */
    private String body(String name, String types, String filter, String target, String more) {
        var members = new StringBuilder("{\"connection_id\": \"" + connection + "\"");
        if (name != null) {
            members.append(", \"name\": \"").append(name).append('"');
        }
        members.append(", \"event_types\": ").append(types);
        if (filter != null) {
            members.append(", \"filter\": ").append(filter);
        }
        if (target != null) {
            members.append(", \"target\": ").append(target);
        }
        if (more != null) {
            members.append(", ").append(more);
        }
        return members.append('}').toString();
    }

    /** Creates a trigger, which must succeed; its id. */
    private String created(String body, String... headers) {
        HttpReply reply = http.post("/triggers", body, headers);
        assertThat(reply.status()).as(reply.body()).isEqualTo(201);
        return reply.json().path("id").asText();
    }

    private static List<String> ids(HttpReply list) {
        assertThat(list.status()).as(list.body()).isEqualTo(200);
        return list.json().path("data").findValuesAsText("id");
    }

    private String[] admin(String project) {
        return new String[] {"Authorization", "Bearer " + ADMIN_SECRET, "X-Project-Id", project};
    }

    private String[] member(String project) {
        return new String[] {"Authorization", "Bearer " + memberSecret, "X-Project-Id", project};
    }

    private JsonNode admin(String method, String path, String body) {
        HttpReply reply = http.send(method, path, body, "Authorization", "Bearer " + ADMIN_SECRET);
        assertThat(reply.status()).as("%s %s: %s", method, path, reply.body()).isBetween(200, 299);
        return reply.json();
    }

    /** Whether the standardwebhooks library accepts the delivery with each secret. */
    private static List<Boolean> verify(List<String> secrets, HttpReceiver.Received received) {
        var cases = Json.mapper().createArrayNode();
        for (String secret : secrets) {
            ObjectNode one = cases.addObject().put("secret", secret).put("body", received.body());
            ObjectNode headers = one.putObject("headers");
            for (String name : List.of("webhook-id", "webhook-timestamp", "webhook-signature")) {
                headers.put(name, received.headers().get(name));
            }
        }
        return NodeScript.run("verify-webhook.cjs", cases).findValues("valid").stream()
                .map(JsonNode::asBoolean)
                .toList();
    }
}
