package dev.arbor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.http.Route;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.Multipart;
import dev.arbor.testing.OpenApiConformance;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /openapi.json} describes every route well enough for a client generator: a real OpenAPI validator accepts
 * it, every operation is typed, and real answers of every feature match the shapes it gives; {@code /docs} shows it.
 */
class OpenApiTest {
    private static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D',
        'R'};
    private static final String ADMIN_TOKEN = "arb_openapi_test_admin";
    private static ArborServer server;
    private static OpenApiConformance api;

    @BeforeAll
    static void start() {
        server = ArborServer.start(Map.of("ARBOR_TEST_MODELS", "1", "ARBOR_ADMIN_TOKEN", ADMIN_TOKEN,
                "ARBOR_OUTBOUND_ALLOW", "127.0.0.1"));
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
        Process node = new ProcessBuilder("node", Path.of("src/test/mcp/validate-openapi.cjs").toAbsolutePath()
                .toString(), file.toString()).redirectErrorStream(true).start();
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
                assertThat(reply.status()).as(what).isBetween(200, 299);
            }
        }
    }

    @Test
    void securityFollowsWhoMayCall() {
        JsonNode paths = api.document().path("paths");
        assertThat(paths.at("/~1health/get/security").size()).isZero();
        assertThat(paths.at("/~1docs/get/security").size()).isZero();
        assertThat(paths.at("/~1projects/get/security/0").has("adminToken")).isTrue();
        assertThat(paths.at("/~1v1~1studio~1decisions/post/security/0").has("studioKey")).isTrue();
    }

    @Test
    void listsDeclareTheirPagingParameters() {
        JsonNode parameters = api.document().at("/paths/~1projects/get/parameters");
        assertThat(parameters.findValuesAsText("name")).contains("limit", "after", "before");
        assertThat(parameters.get(0).at("/schema/maximum").asInt()).isEqualTo(100);
    }

    @Test
    void projectsAndTokensAnswerAsDocumented() {
        String project = api.post("/projects", "{\"name\": \"docs\", \"description\": \"d\"}").json()
                .path("id").asText();
        api.get("/projects");
        api.get("/projects/" + project);
        api.patch("/projects/" + project, "{\"description\": \"e\"}");
        api.get("/auth/me");
        String token = api.post("/auth/tokens", "{\"name\": \"dev\", \"role\": \"member\", \"projects\": [\""
                + project + "\"]}").json().path("id").asText();
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
    }

    @Test
    void theDocsPageLoadsItsFilesFromThisServer() {
        HttpReply page = api.get("/docs");
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.header("content-type")).startsWith("text/html");
        assertThat(page.body()).contains("/docs/swagger-ui-bundle.js").doesNotContain("https://");
        var assets = Map.of("/docs/swagger-ui-bundle.js", "text/javascript", "/docs/swagger-ui.css", "text/css",
                "/docs/arbor-docs.js", "text/javascript", "/docs/favicon-32x32.png", "image/png");
        assets.forEach((path, type) -> {
            assertThat(page.body()).contains(path);
            HttpReply asset = api.get(path);
            assertThat(asset.status()).as(path).isEqualTo(200);
            assertThat(asset.header("content-type")).as(path).startsWith(type);
            assertThat(asset.body()).as(path).isNotEmpty();
        });
        assertThat(api.get("/docs/arbor-docs.js").body()).contains("/openapi.json");
        api.get("/docs/index.html").assertError(404, "not_found", null);
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
        api.get(base + "/docs-triage");
        api.get(base + "/builtin/support");
        api.patch(base + "/docs-triage", "{\"questions\": {\"team\": {\"criteria\": {\"legal\": \"contracts\"}}}}",
                "If-Match", "\"1\"");
        api.put(base + "/docs-clone", """
                {"state": "{{message}}", "variables": {"message": {"type": "string"}},
                 "questions": {"ok": {"type": "noul"}}}""");
        api.get(base + "/docs-triage/versions");
        api.get(base + "/docs-triage/versions/1");
        api.get(base + "/docs-triage/versions/2/diff");
        api.action(base + "/docs-triage/versions/1/restore");
        api.get(base + "/docs-triage/schema");
        api.get(base + "/docs-triage/compatibility");
        api.put(base + "/docs-triage/aliases/prod", "{\"version\": 1}");
        api.delete(base + "/docs-triage/aliases/prod");
        api.action(base + "/docs-triage/archive");
        api.action(base + "/docs-triage/unarchive");
        api.delete(base + "/docs-clone?confirm=docs-clone");
        api.get(base + "/nope");
    }

    @Test
    void decisionsAndTheirHistoryAnswerAsDocumented() {
        String base = "/v1/studio/decisions";
        String decision = """
                {"model": "hash-decider", "state": "I was charged twice.",
                 "questions": {"team": {"type": "choice", "criteria": {"billing": "charges", "tech": "errors"}},
                               "urgent": {"type": "noul", "instructions": "Today?"}}}""";
        String id = api.post(base, decision).json().path("id").asText();
        api.post(base + "/preview", decision);
        String queued = api.post(base, decision.replace("{\"model\"", "{\"background\": true, \"model\"")).json()
                .path("id").asText();
        api.get(base + "/" + queued + "?wait=30");
        api.get(base + "/" + id);
        api.get(base + "/" + id + "?format=decide");
        api.get(base + "/" + id + "/input");
        api.get(base + "?limit=5");
        api.get(base + "/export?format=jsonl");
        api.get(base + "/export?format=csv");
        api.get(base + "/stats");
        api.patch(base + "/" + id, "{\"metadata\": {\"ticket\": \"T-1\"}, \"pinned\": true}");
        api.action(base + "/" + id + "/rerun");
        api.post(base + "/" + id + "/feedback", "{\"expected\": {\"team\": \"billing\"}, \"rating\": 1, "
                + "\"note\": \"ok\"}");
        JsonNode feedback = api.get(base + "/" + id + "/feedback").json();
        api.post(base + "/" + id + "/redact", "{\"fields\": [\"metadata\"]}");
        api.post("/v1/decide", decision);
        api.post("/v1/studio/models/compatibility", "{\"questions\": {\"ok\": {\"type\": \"noul\"}}}");
        api.get("/v1/studio/settings");
        api.patch("/v1/studio/settings", "{}");
        api.delete("/v1/studio/feedback/" + feedback.path("data").path(0).path("id").asText());
        api.action(base + "/" + queued + "/cancel");
        api.delete(base + "/" + id);
        api.post(base + "/redact", "{\"filter\": {\"model\": \"hash-decider\"}, \"fields\": [\"state\"]}");
        api.post(base + "/delete", "{\"filter\": {\"model\": \"hash-decider\"}}");
        api.get(base + "/dec_nope");
    }

    @Test
    void examplesAndComparisonsAnswerAsDocumented() {
        api.post("/v1/studio/templates", """
                {"id": "docs-ex", "model": "hash-decider", "state": "{{m}}", "variables": {"m": {"type": "string"}},
                 "questions": {"ok": {"type": "noul"}}}""");
        String base = "/v1/studio/templates/docs-ex/examples";
        String example = api.post(base, "{\"variables\": {\"m\": \"hi\"}, \"expected\": {\"ok\": \"yes\"}, "
                + "\"tags\": [\"a\"]}").json().path("id").asText();
        api.get(base);
        api.get(base + "/" + example);
        api.patch(base + "/" + example, "{\"tags\": [\"b\"]}");
        api.post(base + "/import", "{\"examples\": [{\"variables\": {\"m\": \"yo\"}, \"expected\": {\"ok\": \"no\"}}]}");
        api.get(base + "/export");
        api.delete(base + "/" + example);
        api.post("/v1/studio/decisions", "{\"template\": \"docs-ex\", \"variables\": {\"m\": \"x\"}}");
        api.get("/v1/studio/templates/docs-ex/stats");
        api.get("/v1/studio/templates/builtin/support/stats");
        api.get("/v1/studio/templates/docs-ex/compare?versions=1,1");
    }

    @Test
    void filesAndModelsAnswerAsDocumented() {
        HttpReply uploaded = server.http().sendBytes("POST", "/v1/studio/files",
                new Multipart().file("file", "shot.png", "image/png", PNG).bytes(), "Content-Type",
                Multipart.CONTENT_TYPE);
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
        api.post("/models", "{\"model_uri\": \"/nowhere\", \"model_name\": \"x\", \"model_source\": \"local\", "
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
        String run = api.post("/pipelines/" + pipeline + "/runs", "{\"params\": {\"env\": \"dev\"}}").json()
                .path("id").asText();
        api.get("/pipelines/" + pipeline + "/runs");
        api.get("/runs/" + run);
        api.get("/runs/" + run + "/events");
        api.action("/runs/" + run + "/cancel");
        api.action("/runs/" + run + "/retry");
        String schedule = api.post("/pipelines/" + pipeline + "/schedules", """
                {"cron": "30 2 * * *", "timezone": "Europe/Berlin", "params": {"env": "prod"}}""").json()
                .path("id").asText();
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
        String credential = api.post("/credentials", "{\"name\": \"docs.token\", \"value\": \"v\"}").json()
                .path("id").asText();
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
        String added = api.post("/connectors/registry", "{\"id\": \"docs-mcp\", \"name\": \"Docs MCP\", "
                + "\"url\": \"https://mcp.example.com/mcp\", \"auth_type\": \"none\"}").json().path("id").asText();
        api.delete("/connectors/registry/" + added);
        HttpReply custom = api.post("/connectors/custom", "{\"name\": \"Docs\", \"url\": "
                + "\"http://127.0.0.1:9/mcp\", \"auth_type\": \"none\"}");
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
