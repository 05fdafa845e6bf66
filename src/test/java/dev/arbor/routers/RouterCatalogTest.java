package dev.arbor.routers;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.ParamTypes;
import dev.arbor.testing.ProblemCodes;
import dev.arbor.testing.TestServer;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The router action catalog and {@code POST /routers/actions/validate}: every parameter type of the contract used and
 * checked, every reference looked up, unknown and hidden params errors, each problem at its param.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RouterCatalogTest {
    private ArborServer server;
    private TestServer http;
    /** A cloud model of the registry: an endpoint. */
    private String cloud;

    private String project;

    @BeforeAll
    void start() {
        server = ArborServer.start(Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1"));
        http = server.http();
        HttpReply added = http.post(
                "/models",
                "{\"model_uri\": \"http://127.0.0.1:9/v1\", \"model_name\": \"Cloud One\", \"model_source\": "
                        + "\"cloud\", \"engine\": \"remote\", \"remote_model\": \"tiny\"}");
        assertThat(added.status()).as(added.body()).isEqualTo(201);
        cloud = added.json().path("id").asText();
        project = http.post("/projects", "{\"name\": \"catalog\"}")
                .json()
                .path("id")
                .asText();
        assertThat(http.post("/credentials", "{\"name\": \"router-key\", \"value\": \"s3cret\"}")
                        .status())
                .isEqualTo(201);
    }

    @AfterAll
    void stop() {
        server.close();
    }

    @Test
    void theCatalogUsesEveryParameterTypeAndShowsEachParamsChecks() {
        JsonNode catalog = http.get("/routers/actions").json();
        var types = new HashSet<String>();
        var actions = new HashMap<String, JsonNode>();
        catalog.path("data").forEach(action -> {
            actions.put(action.path("type").asText(), action);
            action.path("params").forEach(param -> types.add(param.path("type").asText()));
            assertThat(action.has("description") && action.has("icon") && action.has("color"))
                    .as(action.toString())
                    .isTrue();
        });
        assertThat(types).containsExactlyInAnyOrderElementsOf(ParamTypes.CONTRACT);
        assertThat(actions.keySet())
                .contains(
                        "single_endpoint",
                        "weighted_routing",
                        "ordered_fallback",
                        "least_busy",
                        "latency_aware",
                        "decision_branches",
                        "content_rules",
                        "system_prompt",
                        "request_limits",
                        "canned_response",
                        "rate_limit",
                        "decide");
        assertThat(catalog.path("categories")).isNotEmpty();
        assertThat(actions.get("rate_limit").at("/params/3/visible_when").toString())
                .isEqualTo("{\"param\":\"per\",\"equals\":\"header\"}");
        assertThat(actions.get("rate_limit").at("/params/0/validation/min").asInt())
                .isEqualTo(1);
        assertThat(actions.get("rate_limit").at("/params/3/validation/pattern").asText())
                .isNotBlank();
        assertThat(actions.get("latency_aware").at("/params/1/options").toString())
                .isEqualTo("[\"p50\",\"p95\"]");
        assertThat(actions.get("latency_aware").at("/params/1/default").asText())
                .isEqualTo("p50");
        assertThat(actions.get("single_endpoint").path("terminal").asBoolean()).isTrue();
        assertThat(actions.get("system_prompt").has("terminal")).isFalse();
    }

    Stream<Arguments> refusals() {
        String weighted = "{\"weights\": [{\"endpoint\": \"%s\", \"weight\": %s}]}";
        return Stream.of(
                // required, unknown and hidden params
                Arguments.of("single_endpoint", "{}", "missing_field params.endpoint"),
                Arguments.of("canned_response", "{\"message\": \"hi\", \"colour\": 1}", "invalid_field params.colour"),
                Arguments.of(
                        "rate_limit",
                        "{\"requests\": 5, \"per\": \"router\", \"header\": \"X-Team\"}",
                        "invalid_field params.header"),
                Arguments.of("rate_limit", "{\"requests\": 5, \"per\": \"header\"}", "missing_field params.header"),
                // each type
                Arguments.of("delegate", "{\"project\": \"PRJ\", \"router\": \"\"}", "invalid_field params.router"),
                Arguments.of(
                        "decide",
                        "{\"template\": \"bad id!\", \"branches\": [{\"name\": \"a\", \"next_step\": \"b\"}], "
                                + "\"fallback_step\": \"b\"}",
                        "invalid_field params.template"),
                Arguments.of("rate_limit", "{\"requests\": 0}", "invalid_field params.requests"),
                Arguments.of("rate_limit", "{\"requests\": 2.5}", "invalid_field params.requests"),
                Arguments.of(
                        "content_rules",
                        "{\"rules\": [{\"match\": \"keyword\", \"pattern\": \"x\", \"action\": \"block\", \"on\": "
                                + "\"input\"}], \"case_sensitive\": \"yes\"}",
                        "invalid_field params.case_sensitive"),
                Arguments.of(
                        "latency_aware",
                        "{\"endpoints\": [\"CLOUD\"], \"percentile\": \"p99\"}",
                        "invalid_field params.percentile"),
                Arguments.of(
                        "ordered_fallback",
                        "{\"endpoints\": [{\"endpoint\": \"CLOUD\"}], \"retry_on\": [\"teapot\"]}",
                        "invalid_field params.retry_on[0]"),
                Arguments.of("system_prompt", "{\"prompt\": \"\"}", "invalid_field params.prompt"),
                Arguments.of(
                        "request_limits",
                        "{\"temperature\": {\"min\": 2, \"max\": 1}}",
                        "invalid_field params.temperature"),
                Arguments.of("local_model", "{\"model\": \"nope\"}", "unknown_reference params.model"),
                Arguments.of(
                        "local_model",
                        "{\"model\": \"CLOUD\", \"cluster\": \"gpu-farm\"}",
                        "unknown_reference params.cluster"),
                Arguments.of(
                        "delegate",
                        "{\"project\": \"prj_nope\", \"router\": \"x\"}",
                        "unknown_reference params.project"),
                Arguments.of("single_endpoint", "{\"endpoint\": \"nope\"}", "unknown_reference params.endpoint"),
                Arguments.of("least_busy", "{\"endpoints\": []}", "invalid_field params.endpoints"),
                Arguments.of("least_busy", "{\"endpoints\": [\"nope\"]}", "unknown_reference params.endpoints[0]"),
                Arguments.of(
                        "weighted_routing", weighted.formatted("CLOUD", "0"), "invalid_field params.weights[0].weight"),
                Arguments.of(
                        "weighted_routing",
                        weighted.formatted("nope", "1"),
                        "unknown_reference params.weights[0].endpoint"),
                Arguments.of(
                        "weighted_routing",
                        "{\"weights\": [{\"endpoint\": \"CLOUD\", \"weight\": 1, \"share\": 2}]}",
                        "invalid_field params.weights[0].share"),
                Arguments.of(
                        "ordered_fallback",
                        "{\"endpoints\": [{\"endpoint\": \"CLOUD\", \"timeout_seconds\": 0}]}",
                        "invalid_field params.endpoints[0].timeout_seconds"),
                Arguments.of(
                        "ordered_fallback",
                        "{\"endpoints\": [{\"endpoint\": \"CLOUD\"}], \"first_byte_timeout_ms\": 0}",
                        "invalid_field params.first_byte_timeout_ms"),
                Arguments.of(
                        "single_endpoint",
                        "{\"endpoint\": \"CLOUD\", \"idle_timeout_ms\": 1.5}",
                        "invalid_field params.idle_timeout_ms"),
                Arguments.of(
                        "least_busy",
                        "{\"endpoints\": [\"CLOUD\"], \"total_timeout_ms\": 3600001}",
                        "invalid_field params.total_timeout_ms"),
                Arguments.of(
                        "single_endpoint",
                        "{\"endpoint\": \"CLOUD\", \"connect_timeout_ms\": \"10\"}",
                        "invalid_field params.connect_timeout_ms"),
                Arguments.of(
                        "ordered_fallback",
                        "{\"endpoints\": [{\"endpoint\": \"CLOUD\"}], \"retry_statuses\": [\"200\"]}",
                        "invalid_field params.retry_statuses[0]"),
                Arguments.of(
                        "ordered_fallback",
                        "{\"endpoints\": [{\"endpoint\": \"CLOUD\"}], \"max_retries\": 6}",
                        "invalid_field params.max_retries"),
                Arguments.of(
                        "weighted_routing",
                        "{\"weights\": [{\"endpoint\": \"CLOUD\", \"weight\": 1}], \"retry_after_cap_seconds\": -1}",
                        "invalid_field params.retry_after_cap_seconds"),
                Arguments.of(
                        "ordered_fallback",
                        "{\"endpoints\": [{\"endpoint\": \"CLOUD\"}], \"hedge_after_ms\": 0}",
                        "invalid_field params.hedge_after_ms"),
                Arguments.of( // a hedge asks the next endpoint of a chain: one endpoint has none
                        "single_endpoint",
                        "{\"endpoint\": \"CLOUD\", \"hedge_after_ms\": 500}",
                        "invalid_field params.hedge_after_ms"),
                Arguments.of(
                        "latency_aware",
                        "{\"endpoints\": [\"CLOUD\"], \"hold_back_tokens\": 1001}",
                        "invalid_field params.hold_back_tokens"),
                Arguments.of(
                        "provider_models",
                        "{\"provider\": \"acme\", \"default_model\": \"CLOUD\"}",
                        "unknown_reference params.provider"),
                Arguments.of(
                        "provider_models",
                        "{\"provider\": \"http://127.0.0.1:9/v1\", \"default_model\": \"CLOUD\", \"credential\": \"nope\"}",
                        "unknown_reference params.credential"),
                Arguments.of(
                        "provider_models",
                        "{\"provider\": \"openai\", \"default_model\": \"nope\"}",
                        "unknown_reference params.default_model"),
                Arguments.of(
                        "provider_models",
                        "{\"provider\": \"openai\", \"default_model\": \"CLOUD\"}",
                        "invalid_reference params.default_model"),
                Arguments.of("delegate", "{\"project\": \"PRJ\", \"router\": \" \"}", "invalid_field params.router"),
                Arguments.of("decision_branches", "{\"branches\": []}", "invalid_field params.branches"),
                Arguments.of(
                        "decision_branches",
                        "{\"branches\": [{\"name\": \"a\", \"condition\": \"request.tokens >\", \"next_step\": \"b\"}]}",
                        "invalid_field params.branches[0].condition"),
                Arguments.of(
                        "decision_branches",
                        "{\"branches\": [{\"name\": \"a\", \"condition\": \"true\"}]}",
                        "missing_field params.branches[0].next_step"),
                Arguments.of(
                        "decision_branches",
                        "{\"branches\": [{\"name\": \"a\", \"next_step\": \"b\"}, {\"name\": \"a\", \"condition\": "
                                + "\"true\", \"next_step\": \"c\"}]}",
                        "invalid_field params.branches[1].name"),
                Arguments.of(
                        "content_rules",
                        "{\"rules\": [{\"match\": \"regex\", \"pattern\": \"(\", \"action\": \"block\", \"on\": "
                                + "\"input\"}]}",
                        "invalid_field params.rules[0].pattern"),
                Arguments.of( // a backreference: RE2 runs in linear time and has none
                        "content_rules",
                        "{\"rules\": [{\"match\": \"regex\", \"pattern\": \"^(\\\\w+)+\\\\1$\", \"action\": \"block\","
                                + " \"on\": \"input\"}]}",
                        "invalid_field params.rules[0].pattern"),
                Arguments.of( // lookaround, which RE2 has not either
                        "content_rules",
                        "{\"rules\": [{\"match\": \"regex\", \"pattern\": \"secret(?!ary)\", \"action\": \"block\","
                                + " \"on\": \"input\"}]}",
                        "invalid_field params.rules[0].pattern"),
                Arguments.of(
                        "content_rules",
                        "{\"rules\": [{\"match\": \"keyword\", \"pattern\": \"x\", \"action\": \"tag\", \"on\": "
                                + "\"both\"}]}",
                        "invalid_field params.rules[0].tag"),
                Arguments.of(
                        "content_rules",
                        "{\"rules\": [{\"match\": \"glob\", \"pattern\": \"x\", \"action\": \"block\", \"on\": "
                                + "\"input\"}]}",
                        "invalid_field params.rules[0].match"),
                Arguments.of(
                        "request_limits", "{\"blocked_params\": [\"\"]}", "invalid_field params.blocked_params[0]"),
                Arguments.of(
                        "decide",
                        "{\"template\": \"no-such-template\", \"branches\": [{\"name\": \"a\", \"next_step\": \"b\"}], "
                                + "\"fallback_step\": \"b\"}",
                        "unknown_reference params.template"));
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @MethodSource("refusals")
    void eachParamIsCheckedAsASaveWould(String action, String params, String expected) {
        JsonNode answer = validate(action, params);
        assertThat(answer.path("valid").asBoolean()).as(answer.toString()).isFalse();
        assertThat(ProblemCodes.of(answer.path("errors"))).as(answer.toString()).containsExactly(expected);
        assertThat(answer.path("warnings")).isEmpty();
    }

    Stream<Arguments> acceptances() {
        return Stream.of(
                Arguments.of("single_endpoint", "{\"endpoint\": \"CLOUD\"}"),
                Arguments.of("weighted_routing", "{\"weights\": [{\"endpoint\": \"CLOUD\", \"weight\": 3}]}"),
                Arguments.of(
                        "ordered_fallback",
                        "{\"endpoints\": [{\"endpoint\": \"CLOUD\", \"timeout_seconds\": 5}, {\"endpoint\": "
                                + "\"CLOUD\"}], \"retry_on\": [\"timeout\"]}"),
                Arguments.of("latency_aware", "{\"endpoints\": [\"CLOUD\"], \"percentile\": \"p95\"}"),
                Arguments.of(
                        "ordered_fallback",
                        "{\"endpoints\": [{\"endpoint\": \"CLOUD\", \"timeout_seconds\": 5}], "
                                + "\"connect_timeout_ms\": 1000, \"first_byte_timeout_ms\": 2000, \"idle_timeout_ms\": "
                                + "3000, \"total_timeout_ms\": 60000, \"retry_statuses\": [\"429\", \"503\"], "
                                + "\"max_retries\": 3, \"backoff_ms\": 100, \"retry_after_cap_seconds\": 5, "
                                + "\"hedge_after_ms\": 800, \"hold_back_tokens\": 4, \"hold_back_ms\": 250}"),
                Arguments.of(
                        "provider_models",
                        "{\"provider\": \"http://127.0.0.1:9/v1\", \"default_model\": \"CLOUD\", "
                                + "\"first_byte_timeout_ms\": 5000, \"retry_statuses\": [\"500\"]}"),
                Arguments.of("local_model", "{\"model\": \"CLOUD\", \"cluster\": \"local\"}"),
                Arguments.of("delegate", "{\"project\": \"PRJ\", \"router\": \"other\"}"),
                Arguments.of(
                        "provider_models",
                        "{\"provider\": \"http://127.0.0.1:9/v1\", \"default_model\": \"CLOUD\", \"credential\": "
                                + "\"router-key\"}"),
                Arguments.of(
                        "decision_branches",
                        "{\"branches\": [{\"name\": \"long\", \"condition\": \"request.tokens > 1000 and "
                                + "'vip' in request.tags\", \"next_step\": \"b\"}, {\"name\": \"rest\", \"next_step\": "
                                + "\"c\"}]}"),
                Arguments.of(
                        "content_rules",
                        "{\"rules\": [{\"match\": \"regex\", \"pattern\": \"\\\\d{16}\", \"action\": \"redact\", "
                                + "\"on\": \"both\"}, {\"match\": \"keyword\", \"pattern\": \"secret\", \"action\": "
                                + "\"tag\", \"tag\": \"sensitive\", \"on\": \"input\"}]}"),
                Arguments.of(
                        "request_limits",
                        "{\"max_tokens\": 512, \"blocked_params\": [\"logit_bias\"], \"temperature\": {\"min\": 0, "
                                + "\"max\": 1}, \"default_params\": {\"top_p\": 0.9}}"),
                Arguments.of("rate_limit", "{\"requests\": 100, \"per\": \"header\", \"header\": \"X-Team\"}"),
                Arguments.of("canned_response", "{\"message\": \"We are closed.\"}"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("acceptances")
    void validParamsPass(String action, String params) {
        JsonNode answer = validate(action, params);
        assertThat(answer.path("errors")).as(answer.toString()).isEmpty();
        assertThat(answer.path("valid").asBoolean()).isTrue();
    }

    @Test
    void anUnknownActionIsNamedAtActionType() {
        JsonNode answer = http.post("/routers/actions/validate", "{\"action_type\": \"teleport\"}")
                .json();
        assertThat(ProblemCodes.of(answer.path("errors"))).containsExactly("invalid_field action_type");
    }

    private JsonNode validate(String action, String params) {
        HttpReply reply = http.post(
                "/routers/actions/validate",
                "{\"action_type\": \"" + action + "\", \"params\": "
                        + params.replace("CLOUD", cloud).replace("PRJ", project) + "}");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        return reply.json();
    }
}
