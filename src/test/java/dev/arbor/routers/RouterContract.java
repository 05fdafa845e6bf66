package dev.arbor.routers;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.ProblemCodes;
import dev.arbor.testing.TwoProjectsContract;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Routers over HTTP, once per database: a save checks the whole graph and ends active, a draft may be unfinished,
 * every save keeps the graph it replaced, names are unique per project, members stay in their own projects, and a
 * cloud model or credential an active router uses is not deleted from under it unless forced.
 */
abstract class RouterContract extends TwoProjectsContract {
    private static final String ADMIN_SECRET = "arb_router_admin";
    private static final AtomicInteger NAMES = new AtomicInteger();

    RouterContract() {
        super(ADMIN_SECRET, Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1"));
    }

    @Test
    void aSaveChecksTheWholeGraphAndEndsActive() {
        String model = cloudModel();
        String id = create("/routers", "{\"name\": \"" + name() + "\"}", member(mine));
        JsonNode draft = http.get("/routers/" + id, member(mine)).json();
        assertThat(draft.path("status").asText()).isEqualTo("draft");
        assertThat(draft.path("project_id").asText()).isEqualTo(mine);

        HttpReply saved = http.put("/routers/" + id, "{\"dag_config\": " + oneStep(model) + "}", member(mine));
        assertThat(saved.status()).as(saved.body()).isEqualTo(200);
        JsonNode router = saved.json();
        assertThat(router.path("status").asText()).isEqualTo("active");
        assertThat(router.path("step_count").asInt()).isEqualTo(1);
        assertThat(router.path("warnings")).isEmpty();
        assertThat(List.copyOf(fieldNames(router)))
                .containsExactlyInAnyOrder(
                        "id",
                        "object",
                        "project_id",
                        "name",
                        "description",
                        "tags",
                        "icon",
                        "dag_config",
                        "status",
                        "step_count",
                        "created_at",
                        "modified_at",
                        "warnings");
    }

    @Test
    void everyProblemOfASaveIsListedAtOnceWithItsParam() {
        String model = cloudModel();
        String id = create("/routers", "{\"name\": \"" + name() + "\"}", admin(mine));
        String broken = """
                {"dag_config": {"entry_step": "split", "steps": [
                  {"step_id": "split", "action_type": "weighted_routing",
                   "params": {"weights": [{"endpoint": "%s", "weight": 1}, {"endpoint": "%s", "weight": -2}]}},
                  {"step_id": "split", "action_type": "teleport"},
                  {"step_id": "branch", "action_type": "decision_branches", "next_steps": ["nowhere"],
                   "params": {"branches": [{"name": "big", "condition": "request.tokens > ", "next_step": "split"}]}},
                  {"step_id": "say", "action_type": "canned_response", "params": {"message": "hi"}, "depends_on": ["say"]}
                ]}}""".formatted(model, "no-such-model");
        HttpReply refused = http.put("/routers/" + id, broken, admin());
        assertThat(refused.status()).as(refused.body()).isEqualTo(400);
        assertThat(ProblemCodes.of(refused.json().path("error").path("details")))
                .contains(
                        "invalid_field dag_config.steps[0].params.weights[1].weight",
                        "unknown_reference dag_config.steps[0].params.weights[1].endpoint",
                        "invalid_definition dag_config.steps[1].step_id",
                        "invalid_field dag_config.steps[1].action_type",
                        "invalid_field dag_config.steps[2].params.branches[0].condition",
                        "invalid_definition dag_config.steps[2].next_steps[0]",
                        "invalid_definition dag_config.steps[3].depends_on[0]",
                        "invalid_definition dag_config.steps[2].step_id");
        assertThat(http.get("/routers/" + id, admin()).json().path("status").asText())
                .as("nothing of a refused save is kept")
                .isEqualTo("draft");
    }

    @Test
    void graphRulesHoldForAnActiveRouter() {
        String model = cloudModel();
        String id = create("/routers", "{\"name\": \"" + name() + "\"}", admin(mine));
        String cycle = """
                {"dag_config": {"entry_step": "a", "steps": [
                  {"step_id": "a", "action_type": "system_prompt", "params": {"prompt": "be brief"}, "next_steps": ["b"]},
                  {"step_id": "b", "action_type": "request_limits", "params": {"max_tokens": 10}, "next_steps": ["a"]}]}}""";
        assertThat(ProblemCodes.of(http.put("/routers/" + id, cycle, admin())
                        .json()
                        .path("error")
                        .path("details")))
                .contains("invalid_definition dag_config.steps[0].next_steps");
        String deadEnd = """
                {"dag_config": {"entry_step": "a", "steps": [
                  {"step_id": "a", "action_type": "system_prompt", "params": {"prompt": "be brief"}},
                  {"step_id": "b", "action_type": "single_endpoint", "params": {"endpoint": "%s"}},
                  {"step_id": "c", "action_type": "canned_response", "params": {"message": "x"}, "next_steps": ["b"]}]}}""".formatted(model);
        assertThat(ProblemCodes.of(http.put("/routers/" + id, deadEnd, admin())
                        .json()
                        .path("error")
                        .path("details")))
                .containsExactlyInAnyOrder(
                        "invalid_definition dag_config.steps[0].next_steps", // ends without an endpoint
                        "invalid_definition dag_config.steps[2].next_steps", // a terminal step goes on
                        "invalid_definition dag_config.steps[1].step_id", // unreachable
                        "invalid_definition dag_config.steps[2].step_id");
        String noEntry = """
                {"dag_config": {"entry_step": "zz", "steps": [
                  {"step_id": "a", "action_type": "canned_response", "params": {"message": "x"}}]}}""";
        http.put("/routers/" + id, noEntry, admin()).assertError(400, "invalid_definition", "dag_config.entry_step");
        String noDefault = """
                {"dag_config": {"entry_step": "a", "steps": [
                  {"step_id": "a", "action_type": "decision_branches", "params": {"branches": [
                    {"name": "long", "condition": "request.tokens > 1000", "next_step": "b"}]}},
                  {"step_id": "b", "action_type": "single_endpoint", "params": {"endpoint": "%s"}}]}}""".formatted(model);
        http.put("/routers/" + id, noDefault, admin())
                .assertError(400, "invalid_definition", "dag_config.steps[0].params.branches");
    }

    @Test
    void aGraphIsCheckedWithoutSavingAsASaveWouldCheckIt() {
        String model = cloudModel();
        String unlinked = """
                {"dag_config": {"entry_step": "a", "steps": [
                  {"step_id": "a", "action_type": "system_prompt", "params": {"prompt": "be brief"}},
                  {"step_id": "b", "action_type": "single_endpoint", "params": {"endpoint": "%s"}}]}}""".formatted(model);
        HttpReply checked = http.post("/routers/validate", unlinked, member(mine));
        assertThat(checked.status()).as(checked.body()).isEqualTo(200);
        assertThat(checked.json().path("object").asText()).isEqualTo("router.validation");
        assertThat(checked.json().path("valid").asBoolean()).isFalse();
        assertThat(ProblemCodes.of(checked.json().path("errors")))
                .containsExactlyInAnyOrder(
                        "invalid_definition dag_config.steps[0].next_steps", // ends without an endpoint
                        "invalid_definition dag_config.steps[1].step_id"); // unreachable
        assertThat(ProblemCodes.of(http.put(
                                "/routers/" + create("/routers", "{\"name\": \"" + name() + "\"}", member(mine)),
                                unlinked,
                                member(mine))
                        .json()
                        .path("error")
                        .path("details")))
                .as("a save names the same problems")
                .containsExactlyInAnyOrderElementsOf(
                        ProblemCodes.of(checked.json().path("errors")));

        String linked = unlinked.replace("\"be brief\"}}", "\"be brief\"}, \"next_steps\": [\"b\"]}");
        JsonNode good = http.post("/routers/validate", linked, member(mine)).json();
        assertThat(good.path("valid").asBoolean()).as(good.toString()).isTrue();
        assertThat(good.path("errors")).isEmpty();
        assertThat(good.path("warnings")).isEmpty();

        JsonNode draft = http.post(
                        "/routers/validate", unlinked.replaceFirst("\\{", "{\"status\": \"draft\", "), member(mine))
                .json();
        assertThat(draft.path("valid").asBoolean())
                .as("a draft may be unfinished")
                .isTrue();
        assertThat(ProblemCodes.of(draft.path("warnings")))
                .containsExactlyInAnyOrder(
                        "router_incomplete dag_config.steps[0].next_steps",
                        "router_incomplete dag_config.steps[1].step_id");

        JsonNode noGraph = http.post("/routers/validate", "{\"dag_config\": 3}", member(mine))
                .json();
        assertThat(ProblemCodes.of(noGraph.path("errors"))).containsExactly("invalid_field dag_config");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedGraphChecks")
    void aGraphCheckThatIsNoSuchRequestIsRefused(String body, int status, String code, String param) {
        http.post("/routers/validate", body, member(mine)).assertError(status, code, param);
    }

    List<Arguments> refusedGraphChecks() {
        return List.of(
                Arguments.of("{}", 400, "missing_field", "dag_config"),
                Arguments.of("{\"dag_config\": {}, \"status\": \"paused\"}", 400, "invalid_field", "status"),
                Arguments.of("{\"dag_config\": {}, \"name\": \"x\"}", 400, "invalid_field", "name"),
                Arguments.of(
                        "{\"dag_config\": {}, \"project_id\": \"" + theirs + "\"}",
                        403,
                        "project_forbidden",
                        "project_id"));
    }

    @Test
    void aDraftMayBeUnfinishedAndSaysWhatKeepsItFromBeingActive() {
        String id = create("/routers", "{\"name\": \"" + name() + "\"}", admin(mine));
        HttpReply saved = http.put(
                "/routers/" + id,
                "{\"status\": \"draft\", \"dag_config\": {\"entry_step\": \"a\", \"steps\": [{\"step_id\": \"a\", "
                        + "\"action_type\": \"single_endpoint\", \"params\": {}}]}}",
                admin());
        assertThat(saved.status()).as(saved.body()).isEqualTo(200);
        assertThat(saved.json().path("status").asText()).isEqualTo("draft");
        assertThat(saved.json().at("/warnings/0/code").asText()).isEqualTo("router_incomplete");
        assertThat(saved.json().at("/warnings/0/param").asText()).isEqualTo("dag_config.steps[0].params.endpoint");
        http.patch("/routers/" + id, "{\"status\": \"active\"}", admin())
                .assertError(400, "missing_field", "dag_config.steps[0].params.endpoint");
        http.put("/routers/" + id, "{\"status\": \"draft\", \"dag_config\": {\"steps\": 3}}", admin())
                .assertError(400, "invalid_field", "dag_config.steps");
    }

    @Test
    void everySaveKeepsTheGraphItReplacedAndModifiedAtMoves() {
        String model = cloudModel();
        String id = create("/routers", "{\"name\": \"" + name() + "\"}", admin(mine));
        JsonNode created = http.get("/routers/" + id, admin()).json();
        // timestamps are whole seconds: the save comes in a later one
        long createdAt = created.path("modified_at").asLong();
        Awaitility.await()
                .atMost(Duration.ofSeconds(3))
                .until(() -> Instant.now().getEpochSecond() > createdAt);
        http.put("/routers/" + id, "{\"dag_config\": " + oneStep(model) + "}", admin());
        http.put(
                "/routers/" + id,
                "{\"dag_config\": {\"entry_step\": \"no\", \"steps\": [{\"step_id\": \"no\", \"action_type\": "
                        + "\"canned_response\", \"params\": {\"message\": \"closed\"}}]}}",
                admin());
        JsonNode router = http.get("/routers/" + id, admin()).json();
        assertThat(router.path("modified_at").asLong()).isGreaterThan(createdAt);
        JsonNode versions = http.get("/routers/" + id + "/versions", admin()).json();
        assertThat(versions.path("data")).hasSize(2);
        assertThat(versions.at("/data/0/version").asInt()).isEqualTo(2);
        assertThat(versions.at("/data/0/dag_config/steps/0/action_type").asText())
                .isEqualTo("single_endpoint");
        assertThat(versions.at("/data/1/dag_config").toString()).isEqualTo("{}");
    }

    @Test
    void namesAreUniqueInAProject() {
        String name = name();
        create("/routers", "{\"name\": \"" + name + "\"}", admin(mine));
        http.post("/routers", "{\"name\": \"" + name + "\"}", admin(mine)).assertError(409, "router_exists", "name");
        assertThat(http.post("/routers", "{\"name\": \"" + name + "\"}", admin(theirs))
                        .status())
                .as("another project may use the name")
                .isEqualTo(201);
    }

    @Test
    void aMemberIsKeptOutOfOtherProjectsRouters() {
        String theirRouter = create("/routers", "{\"name\": \"" + name() + "\"}", admin(theirs));
        http.get("/routers/" + theirRouter, member(mine)).assertError(404, "router_not_found", "router_id");
        http.get("/routers/" + theirRouter, "Authorization", "Bearer " + memberSecret)
                .assertError(404, "router_not_found", "router_id");
        http.delete("/routers/" + theirRouter, member(mine)).assertError(404, "router_not_found", "router_id");
        http.post("/routers", "{\"name\": \"x\", \"project_id\": \"" + theirs + "\"}", member(mine))
                .assertError(403, "project_forbidden", "project_id");
        JsonNode listed = http.get("/routers?limit=100", "Authorization", "Bearer " + memberSecret)
                .json();
        listed.path("data")
                .forEach(r -> assertThat(r.path("project_id").asText()).isEqualTo(mine));
        // a reference to a project the member may not use reads as none
        JsonNode check = http.post(
                        "/routers/actions/validate",
                        "{\"action_type\": \"delegate\", \"params\": {\"project\": \"" + theirs
                                + "\", \"router\": \"x\"}}",
                        member(mine))
                .json();
        assertThat(ProblemCodes.of(check.path("errors"))).containsExactly("unknown_reference params.project");
    }

    @Test
    void theListFiltersByStatusNameAndTags() {
        String tag = "t" + NAMES.incrementAndGet();
        String a = create(
                "/routers", "{\"name\": \"Alpha " + tag + "\", \"tags\": [\"" + tag + "\", \"x\"]}", admin(mine));
        create("/routers", "{\"name\": \"Beta " + tag + "\", \"tags\": [\"" + tag + "\"]}", admin(mine));
        assertThat(http.get("/routers?q=alpha%20" + tag, admin(mine)).ids()).containsExactly(a);
        assertThat(http.get("/routers?tags=" + tag + ",x", admin(mine)).ids()).containsExactly(a);
        assertThat(http.get("/routers?tags=" + tag + "&status=active", admin(mine))
                        .ids())
                .isEmpty();
        assertThat(http.get("/routers?tags=" + tag + "&project_id=" + theirs, admin())
                        .ids())
                .isEmpty();
        http.get("/routers?status=gone", admin(mine)).assertError(400, "invalid_field", "status");
    }

    @Test
    void aCloudModelAnActiveRouterUsesIsDeletedOnlyWhenForced() {
        String model = cloudModel();
        String name = name();
        String id =
                create("/routers", "{\"name\": \"" + name + "\", \"dag_config\": " + oneStep(model) + "}", admin(mine));
        JsonNode refused = http.delete("/models/" + model, admin()).assertError(409, "in_use", "model_id");
        assertThat(refused.path("message").asText()).contains(name);
        assertThat(refused.at("/used_by/0/id").asText()).isEqualTo(id);
        assertThat(http.get("/models/" + model, admin()).status()).isEqualTo(200);

        HttpReply forced = http.delete("/models/" + model + "?force=true", admin());
        assertThat(forced.status()).as(forced.body()).isEqualTo(200);
        assertThat(forced.json().at("/warnings/0/code").asText()).isEqualTo("routers_deactivated");
        assertThat(forced.json().at("/warnings/0/message").asText()).contains(id);
        assertThat(http.get("/routers/" + id, admin()).json().path("status").asText())
                .isEqualTo("inactive");
    }

    @Test
    void aCredentialAnActiveRouterUsesIsDeletedOnlyWhenForced() {
        String model = cloudModel();
        String key = "key-" + NAMES.incrementAndGet();
        String credential = create("/credentials", "{\"name\": \"" + key + "\", \"value\": \"s3cret\"}", admin());
        String dag = """
                {"entry_step": "p", "steps": [{"step_id": "p", "action_type": "provider_models",
                  "params": {"provider": "http://127.0.0.1:9/v1", "default_model": "%s", "credential": "%s"}}]}""".formatted(model, key);
        String id = create("/routers", "{\"name\": \"" + name() + "\", \"dag_config\": " + dag + "}", admin(mine));
        http.delete("/credentials/" + credential, admin()).assertError(409, "in_use", "credential_id");
        assertThat(http.delete("/credentials/" + credential + "?force=true", admin())
                        .status())
                .isEqualTo(200);
        assertThat(http.get("/routers/" + id, admin()).json().path("status").asText())
                .isEqualTo("inactive");
    }

    @Test
    void theRuntimeFindsOnlyActiveRoutersOfTheGivenProjects() {
        String model = cloudModel();
        String name = name();
        String id =
                create("/routers", "{\"name\": \"" + name + "\", \"dag_config\": " + oneStep(model) + "}", admin(mine));
        ActiveRouters active = server.activeRouters();
        List<RouterSnapshot> byName = active.find(mine::equals, name);
        assertThat(byName).singleElement().extracting(RouterSnapshot::id).isEqualTo(id);
        assertThat(byName.getFirst().dagConfig().path("entry_step").asText()).isEqualTo("go");
        assertThat(active.find(mine::equals, id)).hasSize(1);
        assertThat(active.find(theirs::equals, name)).isEmpty();
        http.patch("/routers/" + id, "{\"status\": \"inactive\"}", admin());
        assertThat(active.find(mine::equals, name)).isEmpty();
    }

    private String cloudModel() {
        String name = "cloud " + NAMES.incrementAndGet();
        HttpReply added = http.post(
                "/models",
                "{\"model_uri\": \"http://127.0.0.1:9/v1\", \"model_name\": \"" + name + "\", \"model_source\": "
                        + "\"cloud\", \"engine\": \"remote\", \"remote_model\": \"tiny\"}",
                admin());
        assertThat(added.status()).as(added.body()).isEqualTo(201);
        return added.json().path("id").asText();
    }

    private static String oneStep(String endpoint) {
        return "{\"entry_step\": \"go\", \"steps\": [{\"step_id\": \"go\", \"action_type\": \"single_endpoint\", "
                + "\"params\": {\"endpoint\": \"" + endpoint + "\"}}]}";
    }

    private static String name() {
        return "router " + NAMES.incrementAndGet();
    }

    private String create(String path, String body, String... headers) {
        HttpReply created = http.post(path, body, headers);
        assertThat(created.status()).as("%s %s", path, created.body()).isEqualTo(201);
        return created.json().path("id").asText();
    }

    private static List<String> fieldNames(JsonNode json) {
        var names = new ArrayList<String>();
        json.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static String[] admin() {
        return new String[] {"Authorization", "Bearer " + ADMIN_SECRET};
    }

    private static String[] admin(String project) {
        return new String[] {"Authorization", "Bearer " + ADMIN_SECRET, "X-Project-Id", project};
    }

    private String[] member(String project) {
        return new String[] {"Authorization", "Bearer " + memberSecret, "X-Project-Id", project};
    }
}
