package dev.arbor.pipelines;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.platform.db.Dialect;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.ParamTypes;
import dev.arbor.testing.TestPostgres;
import dev.arbor.testing.TestServer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Pipeline definitions and the action catalog over HTTP: the catalog as the contract names it, params checked per
 * action (types, bounds, patterns, visibility), a definition's every problem at once, and the definitions' life.
 */
class PipelineDefinitionTest {
    private static final String NIGHTLY = """
            {"name": "nightly check",
             "parameters": [{"name": "cluster", "type": "cluster_ref", "required": true},
                            {"name": "replicas", "type": "integer", "default": 2}],
             "steps": [
               {"id": "health", "action": "cluster_health_check", "params": {"cluster_id": "{{ params.cluster }}"}},
               {"id": "route", "action": "conditional_branch", "depends_on": ["health"],
                "params": {"condition": "true", "branches": {
                   "healthy": {"condition": "steps.health.outputs.status == 'healthy'", "steps": ["scale"]},
                   "sick": {"condition": "steps.health.outputs.status != 'healthy'", "steps": ["alert"]}}}},
               {"id": "scale", "action": "scale_deployment", "depends_on": ["route"],
                "params": {"deployment_id": "dep_1", "replicas": "{{ params.replicas }}"},
                "retry": {"max_attempts": 3, "backoff_seconds": 30}},
               {"id": "alert", "action": "send_notification", "depends_on": ["route"], "on_failure": "continue",
                "params": {"channel": "team_chat_1", "message": "Nodes: {{ steps.health.outputs.node_count }}"}},
               {"id": "note", "action": "set_output", "depends_on": ["scale"],
                "condition": "steps.scale.outputs.current_replicas > 0 and event.kind != 'params.nothing'",
                "params": {"key": "scaled", "value": "{{ steps.scale.outputs.current_replicas }}"}},
               {"id": "log", "action": "log", "depends_on": ["note"],
                "params": {"message": "scaled to {{ steps.note.outputs.scaled }}", "level": "info"}}],
             "outputs": {"status": "{{ steps.health.outputs.status }}"}}""";

    @Test
    void theCatalogNamesEveryActionOfTheContractWithItsParametersAndOutputs() throws Exception {
        try (var server = ArborServer.start(Map.of())) {
            JsonNode catalog = server.http().get("/pipelines/actions").json();
            var types = new ArrayList<String>();
            var actions = new HashMap<String, JsonNode>();
            catalog.path("data").forEach(action -> {
                types.add(action.path("type").asText());
                actions.put(action.path("type").asText(), action);
            });
            assertThat(types)
                    .containsExactlyInAnyOrder(
                            "log",
                            "conditional_branch",
                            "transform",
                            "aggregate",
                            "set_output",
                            "wait_until",
                            "approval",
                            "run_pipeline",
                            "fail",
                            "deploy_model",
                            "scale_deployment",
                            "configure_rate_limiting",
                            "delete_deployment",
                            "add_model",
                            "add_cloud_model",
                            "model_benchmark",
                            "delete_model",
                            "cluster_health_check",
                            "http_request",
                            "send_notification");
            assertThat(catalog.path("categories")).hasSize(5);
            assertThat(names(actions.get("deploy_model").path("params")))
                    .containsExactly(
                            "model_id", "cluster_id", "deployment_name", "replicas", "auto_scaling", "project_id");
            assertThat(actions.get("deploy_model").path("outputs").toString())
                    .isEqualTo("[\"deployment_id\",\"endpoint_url\",\"status\"]");
            assertThat(names(actions.get("http_request").path("params")))
                    .containsExactly("url", "method", "headers", "body", "timeout_seconds");
            assertThat(actions.get("model_benchmark").path("outputs").toString())
                    .isEqualTo("[\"latency_p50\",\"latency_p99\",\"throughput\"]");
            assertThat(names(actions.get("add_model").path("params")))
                    .containsExactly("model_uri", "model_name", "model_source", "max_wait_seconds");
            assertThat(actions.get("wait_until")
                            .at("/params/1/validation/integer")
                            .asBoolean())
                    .isTrue();
            assertThat(actions.get("send_notification")
                            .at("/params/2/visible_when")
                            .toString())
                    .isEqualTo("{\"param\":\"channel\",\"equals\":\"email\"}");
            catalog.path("data")
                    .forEach(action -> action.path("params")
                            .forEach(param -> assertThat(ParamTypes.CONTRACT)
                                    .contains(param.path("type").asText())));
        }
    }

    @Test
    void anActionsParamsAreCheckedAsAnEditorWould() throws Exception {
        try (var server = ArborServer.start(Map.of())) {
            TestServer http = server.http();
            assertThat(errors(http, "send_notification", "{\"message\": \"hi\", \"channel\": \"email\"}"))
                    .containsExactly("missing_field params.recipients");
            assertThat(errors(
                            http,
                            "send_notification",
                            "{\"message\": \"hi\", \"channel\": \"team_chat_2\", "
                                    + "\"recipients\": [\"ops@example.com\"]}"))
                    .containsExactly("invalid_field params.recipients");
            assertThat(errors(http, "scale_deployment", "{\"deployment_id\": \"dep_1\", \"replicas\": 2.5}"))
                    .containsExactly("invalid_field params.replicas");
            assertThat(errors(
                            http,
                            "scale_deployment",
                            "{\"deployment_id\": \"\", \"replicas\": -1, " + "\"colour\": 1}"))
                    .containsExactlyInAnyOrder(
                            "invalid_field params.colour",
                            "invalid_field params.deployment_id",
                            "invalid_field params.replicas");
            assertThat(errors(http, "http_request", "{\"url\": \"ftp://x\", \"method\": \"GET\", \"body\": {}}"))
                    .containsExactlyInAnyOrder("invalid_field params.url", "invalid_field params.body");
            assertThat(errors(http, "set_output", "{\"key\": \"9lives\", \"value\": 1}"))
                    .containsExactly("invalid_field params.key");
            assertThat(errors(http, "aggregate", "{\"sources\": []}")).containsExactly("invalid_field params.sources");
            assertThat(errors(http, "model_benchmark", "{\"model_id\": \"m\", \"metrics\": [\"latency\", \"cost\"]}"))
                    .containsExactly("invalid_field params.metrics[1]");
            assertThat(errors(http, "fail", "{\"message\": \"over quota\", \"error_code\": \"E_QUOTA\"}"))
                    .as("an error code is any string")
                    .isEmpty();
            assertThat(errors(http, "fail", "{\"message\": \"x\", \"error_code\": \"\"}"))
                    .containsExactly("invalid_field params.error_code");
            assertThat(errors(http, "fail", "{\"message\": \"x\", \"error_code\": \"" + "E".repeat(129) + "\"}"))
                    .containsExactly("invalid_field params.error_code");
            assertThat(errors(
                            http,
                            "scale_deployment",
                            "{\"deployment_id\": \"{{ params.d }}\", \"replicas\": " + "\"{{ params.n }}\"}"))
                    .as("references are checked when they are known")
                    .isEmpty();
            JsonNode unknown = http.post("/pipelines/actions/validate", "{\"action_type\": \"teleport\"}")
                    .json();
            assertThat(unknown.path("valid").asBoolean()).isFalse();
            assertThat(unknown.at("/errors/0/param").asText()).isEqualTo("action_type");
        }
    }

    @Test
    void aDefinitionsEveryProblemIsReportedAtOnce() throws Exception {
        try (var server = ArborServer.start(Map.of())) {
            TestServer http = server.http();
            String broken = """
                    {"name": "broken", "parameters": [{"name": "limit", "type": "integer", "default": "ten"}],
                     "steps": [
                       {"id": "a", "action": "log", "params": {"message": "hi"}},
                       {"id": "a", "action": "log", "params": {"message": "again"}},
                       {"id": "b", "action": "teleport", "depends_on": ["a", "zzz", "b"]}],
                     "colour": "red"}""";
            JsonNode shape = http.post("/pipelines/validate", broken).json();
            assertThat(shape.path("valid").asBoolean()).isFalse();
            assertThat(problems(shape))
                    .containsExactlyInAnyOrder("invalid_field colour", "invalid_field parameters[0].default");

            String graph = """
                    {"name": "graph", "parameters": [{"name": "limit", "type": "integer"}],
                     "steps": [
                       {"id": "a", "action": "log", "params": {"message": "{{ params.nope }}"}},
                       {"id": "a", "action": "log", "params": {"message": "again"}},
                       {"id": "b", "action": "teleport", "depends_on": ["a", "zzz", "b"]}]}""";
            assertThat(problems(http.post("/pipelines/validate", graph).json()))
                    .containsExactlyInAnyOrder(
                            "invalid_definition steps[1].id",
                            "invalid_definition steps[2].depends_on[1]",
                            "invalid_definition steps[2].depends_on[2]",
                            "invalid_definition steps[0].params.message",
                            "invalid_field steps[2].action");

            String references = """
                    {"name": "references", "parameters": [{"name": "limit", "type": "integer"}],
                     "steps": [
                       {"id": "a", "action": "set_output", "params": {"key": "value", "value": 1}},
                       {"id": "b", "action": "log", "params": {"message": "{{ steps.c.outputs.result }}"}},
                       {"id": "c", "action": "transform", "depends_on": ["a"],
                        "params": {"operation": "template", "template": "{{ steps.a.outputs.other }} {{ params.nope }}"},
                        "condition": "steps.a.outputs.value > params.limit and steps.a"},
                       {"id": "d", "action": "teleport", "depends_on": ["c"]},
                       {"id": "e", "action": "scale_deployment", "depends_on": ["c"], "params": {"replicas": "x"}},
                       {"id": "f", "action": "aggregate", "depends_on": ["a"], "params": {"sources": ["a", "e"]}}],
                     "outputs": {"final": "{{ steps.f.outputs.result }} {{ steps.zz.outputs.x }}"}}""";
            JsonNode checked = http.post("/pipelines/validate", references).json();
            assertThat(checked.path("step_count").asInt()).isEqualTo(6);
            assertThat(problems(checked))
                    .containsExactlyInAnyOrder(
                            "invalid_definition steps[1].params.message", // c does not run before b
                            "invalid_definition steps[2].params.template", // a gives value, not other
                            "invalid_definition steps[2].params.template", // params.nope is not declared
                            "invalid_definition steps[2].condition", // steps.a without an output
                            "invalid_field steps[3].action",
                            "missing_field steps[4].params.deployment_id",
                            "invalid_field steps[4].params.replicas",
                            "invalid_definition steps[5].params.sources[1]",
                            "invalid_definition outputs.final");

            String cycle = """
                    {"name": "cycle", "steps": [
                       {"id": "a", "action": "log", "params": {"message": "a"}, "depends_on": ["c"]},
                       {"id": "b", "action": "log", "params": {"message": "b"}, "depends_on": ["a"]},
                       {"id": "c", "action": "log", "params": {"message": "c"}, "depends_on": ["b"]},
                       {"id": "d", "action": "log", "params": {"message": "d"}}]}""";
            JsonNode cyclic = http.post("/pipelines/validate", cycle).json();
            assertThat(problems(cyclic)).containsExactly("invalid_definition steps[0].depends_on");
            assertThat(cyclic.at("/errors/0/message").asText()).contains("a → c → b → a");

            HttpReply refused = http.post("/pipelines", references);
            JsonNode error = refused.assertError(400, "invalid_definition", "steps[1].params.message");
            assertThat(error.path("details")).hasSize(9);
            assertThat(http.get("/pipelines").json().path("data")).isEmpty();
            assertThat(http.post("/pipelines/validate", NIGHTLY).json().path("errors"))
                    .isEmpty();
        }
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void aPipelineIsCreatedReadReplacedAndDeleted(Dialect dialect) throws Exception {
        var env = new HashMap<String, String>();
        if (dialect == Dialect.POSTGRESQL) {
            env.put("ARBOR_DATABASE_URL", TestPostgres.newDatabaseUrl());
        }
        try (var server = ArborServer.start(env)) {
            TestServer http = server.http();
            HttpReply created = http.post("/pipelines", NIGHTLY);
            assertThat(created.status()).as(created.body()).isEqualTo(201);
            JsonNode pipeline = created.json();
            String id = pipeline.path("id").asText();
            assertThat(id).startsWith("pl_");
            assertThat(created.header("location")).isEqualTo("/pipelines/" + id);
            assertThat(pipeline.path("version").asInt()).isEqualTo(1);
            assertThat(pipeline.path("step_count").asInt()).isEqualTo(6);
            assertThat(pipeline.at("/definition/steps/2/retry/backoff_multiplier")
                            .asDouble())
                    .isEqualTo(2.0);
            assertThat(pipeline.at("/definition/steps/0/on_failure").asText()).isEqualTo("fail");
            assertThat(http.get("/pipelines/" + id).json()).isEqualTo(pipeline);

            http.post("/pipelines", NIGHTLY).assertError(409, "pipeline_exists", "name");
            JsonNode replaced = http.put("/pipelines/" + id, NIGHTLY.replace("nightly check", "nightly check v2"))
                    .json();
            assertThat(replaced.path("version").asInt()).isEqualTo(2);
            assertThat(replaced.path("name").asText()).isEqualTo("nightly check v2");
            http.put("/pipelines/" + id, "{\"name\": \"x\"}").assertError(400, "missing_field", "steps");
            assertThat(http.get("/pipelines/" + id).json().path("version").asInt())
                    .isEqualTo(2);

            String other = http.post("/pipelines", NIGHTLY).json().path("id").asText();
            JsonNode list = http.get("/pipelines?limit=1").json();
            assertThat(list.at("/data/0/id").asText()).isEqualTo(other);
            assertThat(list.path("has_more").asBoolean()).isTrue();
            http.put("/pipelines/" + other, NIGHTLY.replace("nightly check", "nightly check v2"))
                    .assertError(409, "pipeline_exists", "name");

            assertThat(http.delete("/pipelines/" + id).json().path("deleted").asBoolean())
                    .isTrue();
            http.get("/pipelines/" + id).assertError(404, "pipeline_not_found", "pipeline_id");
            http.delete("/pipelines/" + id).assertError(404, "pipeline_not_found", "pipeline_id");
            http.put("/pipelines/" + id, NIGHTLY).assertError(404, "pipeline_not_found", "pipeline_id");
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "http://127.1:8080/",
                "http://169.254.169.254.:80/latest/meta-data/",
                "http://0x7f.1:8080/",
                "http://[::1:8080/"
            })
    void anHttpRequestUrlTheServerCannotJudgeIsRefusedAtSave(String url) {
        try (var server = ArborServer.start(Map.of())) {
            TestServer http = server.http();
            String pipeline = """
                    {"name": "odd-url", "steps": [
                       {"id": "call", "action": "http_request", "params": {"url": "%s"}}]}""".formatted(url);
            JsonNode error =
                    http.post("/pipelines", pipeline).assertError(400, "url_not_allowed", "steps[0].params.url");
            assertThat(error.path("message").asText()).startsWith("`steps[0].params.url` cannot be called: ");
            assertThat(http.get("/pipelines").json().path("data")).isEmpty();
            assertThat(errors(http, "http_request", "{\"url\": \"" + url + "\"}"))
                    .containsExactly("url_not_allowed params.url");
        }
    }

    private static List<String> errors(TestServer http, String action, String params) {
        JsonNode result = http.post(
                        "/pipelines/actions/validate",
                        "{\"action_type\": \"" + action + "\", \"params\": " + params + "}")
                .json();
        assertThat(result.path("valid").asBoolean())
                .isEqualTo(result.path("errors").isEmpty());
        return problems(result);
    }

    private static List<String> problems(JsonNode result) {
        var found = new ArrayList<String>();
        result.path("errors")
                .forEach(e -> found.add(
                        e.path("code").asText() + " " + e.path("param").asText()));
        return found;
    }

    private static List<String> names(JsonNode params) {
        var names = new ArrayList<String>();
        params.forEach(p -> names.add(p.path("name").asText()));
        return names;
    }
}
