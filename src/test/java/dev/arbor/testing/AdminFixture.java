package dev.arbor.testing;

import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.Map;

/**
 * One object of each admin feature, made through the API, for tests that call every route: what each path parameter
 * of the admin API names. The project is the caller's; the gateway is an MCP server of the test's own (such as an
 * {@link EverythingServer}) with its tools fetched and attached to a prompt of that project.
 */
public final class AdminFixture {
    private final TestServer http;
    private final String adminSecret;

    public AdminFixture(TestServer http, String adminSecret) {
        this.http = requireNonNull(http, "http");
        this.adminSecret = requireNonNull(adminSecret, "adminSecret");
    }

    /** The objects by the path parameter that names them, {@code project_id} among them. */
    public Map<String, String> objects(String projectId, String mcpUrl) {
        var objects = new HashMap<String, String>();
        objects.put("project_id", projectId);
        objects.put("token_id", memberToken(projectId).path("id").asText());
        objects.put("model_id", "hash-decider");
        objects.put("channel", "email");
        objects.put("key_id", create("/keys", "{\"project_id\": \"" + projectId + "\", \"name\": \"matrix\"}"));
        objects.put(
                "connector_id",
                create(
                        "/connectors/registry",
                        "{\"id\": \"matrix-mcp\", \"name\": \"Matrix MCP\", \"url\": \"https://mcp.example.com/mcp\", "
                                + "\"auth_type\": \"none\"}"));
        String gateway = create(
                "/connectors/custom",
                "{\"name\": \"Everything\", \"url\": \"" + mcpUrl + "\", \"auth_type\": \"none\", "
                        + "\"scope\": {\"projects\": [\"" + projectId + "\"]}}");
        objects.put("gateway_id", gateway);
        admin("POST", "/connectors/" + gateway + "/fetch-tools", null);
        String tool = admin("GET", "/connectors/" + gateway + "/tools", null)
                .path("data")
                .path(0)
                .path("id")
                .asText();
        objects.put("prompt_id", "matrix-agent");
        admin(
                "POST",
                "/prompts/matrix-agent/connections/" + gateway + "/attach-tools",
                "{\"project_id\": \"" + projectId + "\", \"tool_ids\": [\"" + tool + "\"]}");
        JsonNode connection = admin(
                "POST",
                "/events/shared-connections",
                "{\"provider\": \"github\", \"credentials\": {\"signing_secret\": \"s\"}, " + "\"project_ids\": [\""
                        + projectId + "\"]}");
        String connectionId = connection.path("id").asText();
        objects.put("connection_id", connectionId);
        // an unsigned delivery: refused, and recorded in the connection's delivery log
        String hook =
                java.net.URI.create(connection.path("webhook_url").asText()).getPath();
        assertThat(http.post(hook, "{}", "X-GitHub-Event", "push").status()).isEqualTo(401);
        objects.put(
                "delivery_id",
                admin("GET", "/events/shared-connections/" + connectionId + "/deliveries", null)
                        .path("data")
                        .path(0)
                        .path("id")
                        .asText());
        objects.put(
                "trigger_id",
                create(
                        "/triggers",
                        "{\"name\": \"matrix\", \"project_id\": \"" + projectId + "\", \"connection_id\": \""
                                + connectionId + "\", \"event_types\": [\"push\"], "
                                + "\"target\": {\"url\": \"http://127.0.0.1:9/hook\"}}"));
        objects.put("credential_id", create("/credentials", "{\"name\": \"matrix\", \"value\": \"s3cret\"}"));
        objects.put(
                "router_id",
                create(
                        "/routers",
                        "{\"name\": \"matrix\", \"project_id\": \"" + projectId + "\", \"dag_config\": "
                                + "{\"entry_step\": \"hi\", \"steps\": [{\"step_id\": \"hi\", "
                                + "\"action_type\": \"canned_response\", \"params\": {\"message\": \"hi\"}}]}}"));
        objects.put("cluster_id", "local"); // always there; it refuses changes, which still reach the route
        objects.put(
                "deployment_id",
                create(
                        "/deployments",
                        "{\"name\": \"matrix\", \"project_id\": \"" + projectId
                                + "\", \"model_id\": \"hash-decider\"}"));
        String pipeline = create(
                "/pipelines",
                "{\"name\": \"matrix\", \"steps\": [{\"id\": \"say\", \"action\": \"log\", "
                        + "\"params\": {\"message\": \"hi\"}}]}");
        objects.put("pipeline_id", pipeline);
        objects.put("run_id", create("/pipelines/" + pipeline + "/runs", "{}"));
        objects.put("step_id", "say");
        objects.put("version", "1");
        objects.put("schedule_id", create("/pipelines/" + pipeline + "/schedules", "{\"cron\": \"0 3 * * *\"}"));
        return objects;
    }

    /** A new member token of {@code projectId}: its {@code id} and {@code token}. */
    public JsonNode memberToken(String projectId) {
        return admin(
                "POST",
                "/auth/tokens",
                "{\"name\": \"m\", \"role\": \"member\", \"projects\": [\"" + projectId + "\"]}");
    }

    /** Creates an object as an admin; its id. */
    public String create(String path, String body) {
        JsonNode created = admin("POST", path, body);
        assertThat(created.has("id")).as("%s: %s", path, created).isTrue();
        return created.path("id").asText();
    }

    /** Calls as an admin and expects success; the answer's JSON. */
    public JsonNode admin(String method, String path, String body) {
        var reply = http.send(method, path, body, "Authorization", "Bearer " + adminSecret);
        assertThat(reply.status()).as("%s %s: %s", method, path, reply.body()).isBetween(200, 299);
        return reply.json();
    }
}
