package dev.arbor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.http.Route;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.OpenApiConformance;
import dev.arbor.testing.StudioFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /openapi.json} describes every route well enough for a client generator: a real OpenAPI validator accepts
 * it, every operation is typed, and real answers of every feature match the shapes it gives; {@code /docs/api} shows
 * it.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OpenApiTest {
    private static final String ADMIN_TOKEN = "arb_openapi_test_admin";
    private static ArborServer server;
    private static OpenApiConformance api;

    @BeforeAll
    static void start() {
        server = ArborServer.start(Map.of(
                "ARBOR_TEST_MODELS", "1", "ARBOR_ADMIN_TOKEN", ADMIN_TOKEN, "ARBOR_OUTBOUND_ALLOW", "127.0.0.1"));
        api = new OpenApiConformance(server.http(), "Authorization", "Bearer " + ADMIN_TOKEN);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void aRealOpenApiValidatorAcceptsTheDocument(@TempDir Path folder) throws Exception {
        Path file = folder.resolve("openapi.json");
        Files.writeString(file, server.http().get("/openapi.json").body());
        Process node = new ProcessBuilder(
                        "node",
                        Path.of("src/test/mcp/validate-openapi.cjs")
                                .toAbsolutePath()
                                .toString(),
                        file.toString())
                .redirectErrorStream(true)
                .start();
        String output = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(node.waitFor()).as(output).isZero();
    }

    @Test
    void everyOperationIsTypedAndSecured() {
        JsonNode paths = api.document().path("paths");
        for (Route route : server.application().server().routes()) {
            String what = route.method() + " " + route.path();
            JsonNode op = paths.path(route.path()).path(route.method().name().toLowerCase(Locale.ROOT));
            if (route.body() instanceof Route.Body.Json json) {
                assertThat(json.schema()).as("%s declares its body", what).isPresent();
            }
            assertThat(route.replies()).as("%s declares what it answers", what).isNotEmpty();
            assertThat(op.has("security")).as("%s states its security", what).isTrue();
            for (var reply : route.replies()) {
                assertThat(reply.status()).as(what).isBetween(200, 399); // a success, or a redirect (/ to /console)
            }
        }
    }

    @Test
    void securityFollowsWhoMayCall() {
        JsonNode paths = api.document().path("paths");
        assertThat(paths.at("/~1health/get/security").size()).isZero();
        assertThat(paths.at("/~1docs/get/security").size()).isZero();
        assertThat(paths.at("/~1projects/get/security/0").has("adminToken")).isTrue();
        assertThat(paths.at("/~1v1~1studio~1decisions/post/security/0").has("studioKey"))
                .isTrue();
    }

    @Test
    void listsDeclareTheirPagingParameters() {
        JsonNode parameters = api.document().at("/paths/~1projects/get/parameters");
        assertThat(parameters.findValuesAsText("name")).contains("limit", "after", "before");
        assertThat(parameters.get(0).at("/schema/maximum").asInt()).isEqualTo(100);
    }

    @Test
    void theWireFormatDeclaresTheProjectItsDeploymentsAreLookedUpIn() {
        JsonNode parameters = api.document().at("/paths/~1v1~1decide/post/parameters");
        assertThat(parameters.findValuesAsText("name")).contains("X-Project-Id");
    }

    @Test
    void aRequestSchemaCarriesTheLimitsTheServerEnforces() {
        JsonNode name = api.document()
                .at("/paths/~1auth~1tokens/post/requestBody/content/application~1json/schema" + "/properties/name");
        int maxLength = name.path("maxLength").asInt();
        assertThat(maxLength).isPositive();
        String longest = "n".repeat(maxLength);
        assertThat(api.post("/auth/tokens", "{\"name\": \"" + longest + "\", \"role\": \"admin\"}")
                        .status())
                .isEqualTo(201);
        api.post("/auth/tokens", "{\"name\": \"" + longest + "n\", \"role\": \"admin\"}")
                .assertError(400, "invalid_field", "name");
        JsonNode role = api.document()
                .at("/paths/~1auth~1tokens/post/requestBody/content/application~1json/schema"
                        + "/properties/role/enum");
        assertThat(role.toString()).isEqualTo("[\"admin\",\"member\"]");
    }

    @Test
    void theHistoryListDeclaresItsFiltersAndTheNamedOnesAsFreeForm() {
        JsonNode parameters = api.document().at("/paths/~1v1~1studio~1decisions/get/parameters");
        assertThat(parameters.findValuesAsText("name"))
                .contains("limit", "view", "include", "template", "created_after", "labelled", "q", "filters");
        JsonNode named = parameters.findParents("name").stream()
                .filter(p -> p.path("name").asText().equals("filters"))
                .findFirst()
                .orElseThrow();
        assertThat(named.at("/schema/type").asText()).isEqualTo("object");
        assertThat(named.at("/schema/additionalProperties/type").asText()).isEqualTo("string");
        assertThat(api.document()
                        .at("/paths/~1v1~1studio~1decisions~1export/get/responses/200/content")
                        .has("text/csv"))
                .isTrue();
    }

    @Test
    void projectsAndTokensAnswerAsDocumented() {
        String project = api.post("/projects", "{\"name\": \"docs\", \"description\": \"d\"}")
                .json()
                .path("id")
                .asText();
        api.get("/projects");
        api.get("/projects/" + project);
        api.patch("/projects/" + project, "{\"description\": \"e\"}");
        api.get("/auth/me");
        String token = api.post(
                        "/auth/tokens",
                        "{\"name\": \"dev\", \"role\": \"member\", \"projects\": [\"" + project + "\"]}")
                .json()
                .path("id")
                .asText();
        api.get("/auth/tokens");
        api.delete("/auth/tokens/" + token);
        api.delete("/projects/" + project);
        api.get("/projects/" + project);
        api.post("/projects", "{\"name\": 7}");
    }

    @Test
    void platformRoutesAnswerAsDocumented() {
        api.get("/health");
        api.get("/metrics");
        api.get("/openapi.json");
        api.get("/docs");
        api.get("/docs/api");
        api.get("/docs/readme");
        api.get("/docs/console.css");
        api.get("/docs/console.png");
        api.get("/docs/operations/configuration");
    }

    @Test
    void theApiReferenceLoadsItsFilesFromThisServer() {
        HttpReply page = api.get("/docs/api");
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.header("content-type")).startsWith("text/html");
        assertThat(page.body()).contains("/docs/api/swagger-ui-bundle.js").doesNotContain("https://");
        var assets = Map.of(
                "/docs/api/swagger-ui-bundle.js",
                "text/javascript",
                "/docs/api/swagger-ui.css",
                "text/css",
                "/docs/api/arbor-docs.js",
                "text/javascript",
                "/docs/api/favicon-32x32.png",
                "image/png");
        assets.forEach((path, type) -> {
            assertThat(page.body()).contains(path);
            HttpReply asset = api.get(path);
            assertThat(asset.status()).as(path).isEqualTo(200);
            assertThat(asset.header("content-type")).as(path).startsWith(type);
            assertThat(asset.body()).as(path).isNotEmpty();
        });
        assertThat(api.get("/docs/api/arbor-docs.js").body()).contains("/openapi.json");
        api.get("/docs/api/index.html").assertError(404, "not_found", null);
    }

    @Test
    void studioTemplatesAnswerAsDocumented() {
        String base = "/v1/studio/templates";
        api.post(base, """
                {"id": "docs-triage", "variables": {"message": {"type": "string", "max_length": 500}},
                 "state": "Customer wrote: {{message}}",
                 "questions": {"team": {"type": "choice", "criteria": {"billing": "charges", "tech": "errors"}}}}""");
        api.post(base, "{\"id\": \"docs-clone\", \"from\": {\"template\": \"builtin/support\"}}");
        api.get(base + "?limit=5");
        api.get(base + "?origin=builtin&include=definition&limit=2");
        succeeds(api.get(base + "?origin=user&include_archived=true&q=docs"));
        succeeds(api.get(base + "?archived=false"));
        succeeds(api.get(base + "/docs-triage?version=1&include=compatibility"));
        api.get(base + "/docs-triage");
        api.get(base + "/builtin/support");
        api.patch(
                base + "/docs-triage",
                "{\"questions\": {\"team\": {\"criteria\": {\"legal\": \"contracts\"}}}}",
                "If-Match",
                "\"1\"");
        api.put(base + "/docs-clone", """
                {"state": "{{message}}", "variables": {"message": {"type": "string"}},
                 "questions": {"ok": {"type": "noul"}}}""");
        api.get(base + "/docs-triage/versions");
        api.get(base + "/docs-triage/versions/1");
        api.get(base + "/docs-triage/versions/2/diff");
        succeeds(api.get(base + "/docs-triage/versions/2/diff?against=1"));
        succeeds(api.get(base + "/docs-triage/versions?include=definition&limit=1"));
        api.action(base + "/docs-triage/versions/1/restore");
        api.get(base + "/docs-triage/schema");
        succeeds(api.get(base + "/docs-triage/schema?version=1"));
        api.get(base + "/docs-triage/compatibility");
        succeeds(api.get(base + "/docs-triage/compatibility?version=latest"));
        api.put(base + "/docs-triage/aliases/prod", "{\"version\": 1}");
        api.delete(base + "/docs-triage/aliases/prod");
        api.action(base + "/docs-triage/archive");
        api.action(base + "/docs-triage/unarchive");
        succeeds(api.delete(base + "/docs-clone?confirm=docs-clone&history=delete"));
        api.get(base + "/nope");
    }

    /** Questions of every type, for the deterministic test model. */
    private static final String ALL_TYPES = """
            {"team": {"type": "choice", "criteria": {"billing": "charges", "tech": "errors"}},
             "urgent": {"type": "noul", "instructions": "Today?"},
             "level": {"type": "score", "criteria": ["low", "mid", "high"]},
             "tags": {"type": "multi", "criteria": ["refund", "angry", "legal"], "threshold": 0.4},
             "order": {"type": "rank", "criteria": ["a", "b", "c"]},
             "days": {"type": "number", "criteria": [1, 2, 5, 10], "unit": "days"}}""";

    /** The studio operations the decision side serves, which the drives below must each see succeed. */
    private static final Set<String> DECISION_SIDE = Set.of(
            "studio.decisions",
            "studio.examples",
            "studio.feedback",
            "studio.history",
            "studio.compare",
            "studio.settings",
            "studio.stats",
            "studio.wire");

    /** A drive's request that must succeed, so that its answer was checked against a documented 2xx shape. */
    private static HttpReply succeeds(HttpReply reply) {
        assertThat(reply.status()).as(reply.body()).isBetween(200, 299);
        return reply;
    }

    @Test
    void decisionsOfEveryTypeAndTheirHistoryAnswerAsDocumented() {
        String base = "/v1/studio/decisions";
        String decision =
                "{\"model\": \"hash-decider\", \"state\": \"I was charged twice.\", \"questions\": " + ALL_TYPES + "}";
        String id = succeeds(api.post(
                        base,
                        decision.replace(
                                "{\"model\"",
                                "{\"metadata\": {\"ticket\": \"T-1\", "
                                        + "\"team\": \"ops\"}, \"include\": [\"input\", \"answers.raw_probabilities\"], \"settings\": "
                                        + "{\"temperature\": 1.2, \"questions\": {\"urgent\": {\"act_threshold\": 0.6}}}, \"store\": \"full\", "
                                        + "\"model\"")))
                .json()
                .path("id")
                .asText();
        succeeds(api.post(
                base + "/preview",
                decision.replace(
                        "{\"model\"",
                        "{\"settings\": {\"questions\": " + "{\"team\": {\"temperature\": 2}}}, \"model\"")));
        String queued = succeeds(api.post(base, decision.replace("{\"model\"", "{\"background\": true, \"model\"")))
                .json()
                .path("id")
                .asText();
        succeeds(api.get(base + "/" + queued + "?wait=30"));
        succeeds(api.get(base + "/" + id));
        succeeds(api.get(base + "/" + id + "?include=input.rendered_state,answers.raw_probabilities"));
        succeeds(api.get(base + "/" + id + "?format=decide"));
        succeeds(api.get(base + "/" + id + "/input"));
        succeeds(api.get(base + "?limit=5"));
        succeeds(api.get(base + "?view=full&include=input&limit=2"));
        succeeds(api.get(base + "?template=none&model=hash-decider&status=completed&surface=api&pinned=false"
                + "&labelled=false&created_after=-1d&metadata.ticket=T-1&answer.team=billing,tech"
                + "&certainty_below.team=1&q=charged"));
        succeeds(api.get(base + "/export?format=jsonl&model=hash-decider"));
        succeeds(api.get(base + "/export?format=csv"));
        succeeds(api.get(base + "/stats"));
        succeeds(api.get(base + "/stats?group_by=model,day&include_extended=true&what_if.temperature=1.5"
                + "&what_if.act_threshold=0.5&model=hash-decider"));
        succeeds(api.patch(
                base + "/" + id, "{\"metadata\": {\"ticket\": \"T-2\", \"team\": null}, " + "\"pinned\": true}"));
        succeeds(api.action(base + "/" + id + "/rerun"));
        succeeds(api.post(base + "/" + id + "/feedback", """
                {"expected": {"team": "billing", "urgent": true, "level": 2, "tags": ["refund"], "order": ["b", "a"],
                              "days": 5},
                 "rating": 1, "note": "ok"}"""));
        succeeds(api.post(base + "/" + queued + "/feedback", "{\"expected\": {}, \"rating\": -1}"));
        JsonNode feedback = succeeds(api.get(base + "/" + id + "/feedback")).json();
        succeeds(api.get(base + "/" + id));
        succeeds(api.get(base + "?labelled=true&correct=false&act=false"));
        succeeds(api.post("/v1/decide", decision));
        succeeds(api.post(
                "/v1/decide",
                "{\"model\": \"hash-decider\", \"state\": {\"note\": \"hi\"}, "
                        + "\"questions\": {\"ok\": {\"type\": \"noul\"}}, \"settings\": {\"temperature\": 1.5}, "
                        + "\"store\": \"answers_only\", \"metadata\": {\"k\": \"v\"}}"));
        succeeds(api.post(
                "/v1/studio/models/compatibility", "{\"questions\": " + ALL_TYPES + ", \"media_types\": [\"image\"]}"));
        succeeds(api.get("/v1/studio/settings"));
        succeeds(api.patch("/v1/studio/settings", """
                {"history": {"store": "full", "store_media": true, "on_store_error": "serve", "retention_days": 30,
                             "keep_labelled": true, "max_storage_gb": 20},
                 "decisions": {"default_act_threshold": 0.9}}"""));
        succeeds(api.delete("/v1/studio/feedback/"
                + feedback.path("data").path(0).path("id").asText()));
        succeeds(api.post(base + "/" + id + "/redact", "{\"fields\": [\"metadata.ticket\", \"input.state\"]}"));
        succeeds(api.delete(base + "/" + id));
        succeeds(api.post(
                base + "/redact",
                "{\"filter\": {\"model\": \"hash-decider\", \"status\": "
                        + "[\"completed\"]}, \"fields\": [\"input.variables\"], \"dry_run\": true}"));
        succeeds(api.post(base + "/redact", "{\"all\": true, \"fields\": [\"input.state\"]}"));
        succeeds(api.post(base + "/delete", "{\"filter\": {\"model\": \"hash-decider\"}, \"include_pinned\": true}"));
        api.get(base + "/dec_nope");
    }

    @Test
    void aBackgroundDecisionCancelledAnswersAsDocumented() {
        server.http().post("/models/hash-small/load", "{\"options\": {\"load_delay_ms\": \"20000\"}}");
        String waiting = succeeds(
                        api.post(
                                "/v1/studio/decisions",
                                "{\"background\": true, \"model\": "
                                        + "\"hash-small\", \"state\": \"slow\", \"questions\": {\"ok\": {\"type\": \"noul\"}}}"))
                .json()
                .path("id")
                .asText();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> server.http()
                        .get("/v1/studio/decisions/" + waiting)
                        .json()
                        .path("status")
                        .asText()
                        .equals("in_progress"));
        assertThat(succeeds(api.action("/v1/studio/decisions/" + waiting + "/cancel"))
                        .json()
                        .path("status")
                        .asText())
                .isEqualTo("cancelled");
    }

    @Test
    void examplesAndComparisonsAnswerAsDocumented() {
        String template = "/v1/studio/templates/docs-ex";
        succeeds(api.post("/v1/studio/templates", """
                {"id": "docs-ex", "model": "hash-decider", "state": "{{m}}", "variables": {"m": {"type": "string"}},
                 "questions": {"ok": {"type": "noul"},
                               "team": {"type": "choice", "criteria": ["billing", "tech"]}}}"""));
        String base = template + "/examples";
        String example = succeeds(api.post(base, """
                {"variables": {"m": "hi"}, "expected": {"ok": "yes", "team": "tech"}, "tags": ["a"],
                 "split": "test", "note": "first"}""")).json().path("id").asText();
        succeeds(api.get(base));
        succeeds(api.get(base + "?revision=1&limit=10&split=test&labelled=true&tag=a&q=hi"));
        succeeds(api.get(base + "/" + example));
        succeeds(api.get(base + "/" + example + "?revision=1"));
        succeeds(api.patch(base + "/" + example, "{\"tags\": [\"b\"], \"expected\": {\"team\": null}}"));
        succeeds(api.post(
                base + "/import",
                "{\"examples\": [{\"variables\": {\"m\": \"yo\"}, "
                        + "\"expected\": {\"ok\": \"no\"}}, {\"variables\": {\"m\": \"hi\"}}]}"));
        succeeds(api.get(base + "/export"));
        succeeds(api.delete(base + "/" + example));
        String decision = succeeds(api.post(
                        "/v1/studio/decisions", "{\"template\": \"docs-ex\", \"variables\": " + "{\"m\": \"x\"}}"))
                .json()
                .path("id")
                .asText();
        succeeds(api.post(base, "{\"from_decision\": \"" + decision + "\"}"));
        succeeds(api.patch(template, "{\"questions\": {\"team\": {\"instructions\": \"Which team?\"}}}"));
        succeeds(api.post("/v1/studio/decisions", "{\"template\": \"docs-ex\", \"variables\": {\"m\": \"x\"}}"));
        succeeds(api.get(template + "/stats"));
        succeeds(api.get(template + "/stats?group_by=version"));
        succeeds(api.get("/v1/studio/templates/builtin/support/stats?group_by=status"));
        succeeds(api.get(template + "/compare?versions=1,2"));
        succeeds(api.get(template + "/compare"));
    }

    @Test
    @Order(Integer.MAX_VALUE)
    void everyOperationOfTheDecisionSideWasSeenSucceeding() {
        var succeeded = api.seen().stream()
                .filter(seen -> seen.matches(".* 2\\d\\d"))
                .map(seen -> seen.substring(0, seen.lastIndexOf(' ')))
                .collect(Collectors.toSet());
        for (Route route : server.application().server().routes()) {
            if (DECISION_SIDE.contains(route.tag()) || route.path().equals("/v1/studio/models/compatibility")) {
                assertThat(succeeded).contains(route.method() + " " + route.path());
            }
        }
    }

    @Test
    void filesAndModelsAnswerAsDocumented() {
        HttpReply uploaded = StudioFiles.upload(server.http(), "shot.png", "image/png", StudioFiles.PNG);
        api.check("POST", "/v1/studio/files", null, uploaded);
        String file = uploaded.json().path("id").asText();
        api.get("/v1/studio/files/" + file);
        api.get("/v1/studio/files/" + file + "/content");
        api.delete("/v1/studio/files/" + file);
        api.get("/v1/studio/models");
        api.get("/v1/studio/models/hash-decider");
        api.get("/models");
        api.get("/models/hash-decider");
        api.action("/models/hash-decider/load");
        api.get("/models/hash-decider/logs?lines=5");
        api.action("/models/hash-decider/eject");
        api.post(
                "/models",
                "{\"model_uri\": \"/nowhere\", \"model_name\": \"x\", \"model_source\": \"local\", "
                        + "\"engine\": \"embedding\"}");
    }

    @Test
    void pipelinesRunsAndSchedulesAnswerAsDocumented() {
        String pipelineBody = """
                {"name": "docs-nightly", "parameters": [{"name": "env", "type": "string", "required": true}],
                 "steps": [{"id": "say", "action": "log", "params": {"message": "{{ params.env }}"}}]}""";
        api.get("/pipelines/actions");
        api.post("/pipelines/actions/validate", "{\"action_type\": \"log\", \"params\": {\"message\": \"hi\"}}");
        api.post("/pipelines/validate", pipelineBody);
        String pipeline = api.post("/pipelines", pipelineBody).json().path("id").asText();
        api.get("/pipelines");
        api.get("/pipelines/" + pipeline);
        api.put("/pipelines/" + pipeline, pipelineBody);
        String run = api.post("/pipelines/" + pipeline + "/runs", "{\"params\": {\"env\": \"dev\"}}")
                .json()
                .path("id")
                .asText();
        api.get("/pipelines/" + pipeline + "/runs");
        api.get("/runs/" + run);
        api.get("/runs/" + run + "/events");
        api.action("/runs/" + run + "/cancel");
        api.action("/runs/" + run + "/retry");
        String schedule = api.post("/pipelines/" + pipeline + "/schedules", """
                {"cron": "30 2 * * *", "timezone": "Europe/Berlin", "params": {"env": "prod"}}""")
                .json()
                .path("id")
                .asText();
        api.get("/pipelines/" + pipeline + "/schedules");
        api.get("/schedules/" + schedule + "?count=3");
        api.patch("/schedules/" + schedule, "{\"name\": \"n\"}");
        api.action("/schedules/" + schedule + "/pause");
        api.action("/schedules/" + schedule + "/resume");
        api.action("/schedules/" + schedule + "/run");
        api.delete("/schedules/" + schedule);
        api.delete("/pipelines/" + pipeline);
    }

    @Test
    void credentialsAndNotificationChannelsAnswerAsDocumented() {
        String credential = api.post("/credentials", "{\"name\": \"docs.token\", \"value\": \"v\"}")
                .json()
                .path("id")
                .asText();
        api.get("/credentials");
        api.get("/credentials/" + credential);
        api.put("/credentials/" + credential, "{\"value\": \"w\"}");
        api.delete("/credentials/" + credential);
        api.get("/notification-channels");
        api.put("/notification-channels/team_chat_1", "{\"webhook_url\": \"http://127.0.0.1:9/hook\"}");
        api.post("/notification-channels/team_chat_1/test", "{\"message\": \"hi\"}");
        api.get("/notification-channels/team_chat_1");
        api.delete("/notification-channels/team_chat_1");
    }

    @Test
    void gatewaysAndTheRegistryAnswerAsDocumented() {
        api.get("/connectors/registry?q=git");
        JsonNode entry = api.get("/connectors/registry").json().path("data").path(0);
        api.get("/connectors/registry/" + entry.path("id").asText());
        String added = api.post(
                        "/connectors/registry",
                        "{\"id\": \"docs-mcp\", \"name\": \"Docs MCP\", "
                                + "\"url\": \"https://mcp.example.com/mcp\", \"auth_type\": \"none\"}")
                .json()
                .path("id")
                .asText();
        api.delete("/connectors/registry/" + added);
        api.get("/connectors/custom/credential-schemas");
        HttpReply custom = api.post(
                "/connectors/custom",
                "{\"name\": \"Docs\", \"url\": " + "\"http://127.0.0.1:9/mcp\", \"auth_type\": \"none\"}");
        assertThat(custom.status()).as(custom.body()).isEqualTo(201);
        String gateway = custom.json().path("id").asText();
        api.get("/connectors/configured?include_disabled=true");
        api.patch("/connectors/configured/" + gateway + "/toggle", "{\"enabled\": false}");
        api.patch("/connectors/configured/" + gateway, "{\"tags\": [\"x\"]}");
        api.get("/connectors/available?project_id=prj_none");
        api.get("/connectors/" + gateway + "/tools");
        api.get("/connectors/" + gateway + "/oauth/status");
        api.get("/prompts/p1/connections");
        api.delete("/connectors/gateways/" + gateway);
    }
}
