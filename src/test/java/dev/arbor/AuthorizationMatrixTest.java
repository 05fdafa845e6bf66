package dev.arbor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.arbor.platform.http.Access;
import dev.arbor.platform.http.Route;
import dev.arbor.testing.AdminFixture;
import dev.arbor.testing.EverythingServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 25's proof: every admin route of the server's route table (the declarations the OpenAPI document is built
 * from), called by an admin, a member of the object's project, a member of another project, no token and a revoked
 * token, answers as the manual says (docs/operations/security.md). Each route has a row below saying what members may do there; a route without a
 * row, or a row without a route, fails the test. The rows run in order, the deletes last, on one server with one
 * object of each feature.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AuthorizationMatrixTest {
    private static final String ADMIN_SECRET = "arb_matrix_admin";
    private static final Pattern PATH_PARAM = Pattern.compile("\\{([^}]+)}");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    /** What members may do on a route; admins may do everything, and no or a revoked token nothing. */
    enum Members {
        /** Admins only: every member is 403 {@code admin_required}. */
        NONE,
        /** Any token, whatever its projects (what it sees is its own). */
        ANY,
        /** Members of the object's project, or of the current project: others are 403 {@code project_forbidden}. */
        OWN_PROJECT
    }

    enum Caller {
        NO_TOKEN,
        REVOKED,
        OTHER_MEMBER,
        OWN_MEMBER,
        ADMIN
    }

    /**
     * One route's row.
     *
     * @param body the JSON body sent where the route takes one; an empty object unless the row says otherwise
     */
    record Row(String method, String path, Members members, String body) {
        String key() {
            return method + " " + path;
        }

        @Override
        public String toString() {
            return key() + " (" + members + ")";
        }
    }

    private static final List<Row> ROWS = List.of(
            row("GET /auth/me", Members.ANY),
            row("GET /metrics", Members.NONE),
            row("POST /auth/tokens", Members.NONE),
            row("GET /auth/tokens", Members.NONE),
            row("POST /projects", Members.NONE),
            row("GET /projects", Members.ANY),
            row("GET /projects/{project_id}", Members.OWN_PROJECT),
            row("PATCH /projects/{project_id}", Members.NONE),
            row("GET /models", Members.ANY),
            row("GET /models/{model_id}", Members.ANY),
            row("POST /models", Members.NONE),
            row("POST /models/{model_id}/download", Members.NONE),
            row("POST /models/{model_id}/download/cancel", Members.NONE),
            row("POST /models/{model_id}/load", Members.NONE),
            row("POST /models/{model_id}/eject", Members.NONE),
            row("GET /models/{model_id}/logs", Members.NONE),
            row("GET /models/{model_id}/events", Members.NONE),
            row("POST /v1/chat/completions", Members.ANY),
            row("POST /v1/completions", Members.ANY),
            row("POST /v1/embeddings", Members.ANY),
            row("GET /routing/endpoints/health", Members.NONE),
            row("GET /notification-channels", Members.NONE),
            row("GET /notification-channels/{channel}", Members.NONE),
            row("PUT /notification-channels/{channel}", Members.NONE),
            row("POST /notification-channels/{channel}/test", Members.NONE),
            row("GET /connectors/registry", Members.NONE),
            row("GET /connectors/registry/{connector_id}", Members.NONE),
            row("POST /connectors/registry", Members.NONE),
            row("POST /connectors/gateways", Members.NONE),
            row("POST /connectors/custom", Members.NONE),
            row("GET /connectors/custom/credential-schemas", Members.NONE),
            row("GET /connectors/configured", Members.NONE),
            row("GET /connectors/configured/{gateway_id}", Members.NONE),
            new Row("PATCH", "/connectors/configured/{gateway_id}/toggle", Members.NONE, "{\"enabled\": true}"),
            row("PATCH /connectors/configured/{gateway_id}", Members.NONE),
            row("GET /connectors/available", Members.OWN_PROJECT),
            row("POST /connectors/{gateway_id}/fetch-tools", Members.OWN_PROJECT),
            row("GET /connectors/{gateway_id}/tools", Members.OWN_PROJECT),
            row("POST /connectors/{gateway_id}/oauth/initiate", Members.OWN_PROJECT),
            row("GET /connectors/{gateway_id}/oauth/status", Members.OWN_PROJECT),
            row("POST /connectors/oauth/callback", Members.ANY),
            row("POST /prompts/{prompt_id}/connections/{gateway_id}/attach-tools", Members.OWN_PROJECT),
            row("GET /prompts/{prompt_id}/connections", Members.OWN_PROJECT),
            row("POST /mcp/prompts/{prompt_id}", Members.OWN_PROJECT),
            row("GET /connectors/calls", Members.OWN_PROJECT),
            row("GET /audit", Members.OWN_PROJECT),
            row("GET /audit/{audit_id}", Members.OWN_PROJECT),
            row("POST /credentials", Members.NONE),
            row("GET /credentials", Members.NONE),
            row("GET /credentials/{credential_id}", Members.NONE),
            row("PUT /credentials/{credential_id}", Members.NONE),
            row("GET /clusters", Members.ANY),
            row("GET /clusters/{cluster_id}", Members.ANY),
            row("GET /clusters/{cluster_id}/health", Members.ANY),
            row("POST /clusters", Members.NONE),
            // local: 409 cluster_built_in for an admin, which still shows the route was reached
            row("PATCH /clusters/{cluster_id}", Members.NONE),
            row("GET /events/descriptors", Members.ANY),
            new Row(
                    "POST",
                    "/events/shared-connections",
                    Members.OWN_PROJECT,
                    "{\"provider\": \"github\", \"credentials\": {\"signing_secret\": \"s\"}, \"project_ids\": []}"),
            row("GET /events/shared-connections", Members.OWN_PROJECT),
            row("GET /events/shared-connections/{connection_id}", Members.OWN_PROJECT),
            row("GET /events/shared-connections/{connection_id}/deliveries", Members.OWN_PROJECT),
            row("GET /events/shared-connections/{connection_id}/deliveries/{delivery_id}", Members.OWN_PROJECT),
            row("POST /events/shared-connections/{connection_id}/deliveries/{delivery_id}/replay", Members.OWN_PROJECT),
            new Row(
                    "PATCH",
                    "/events/shared-connections/{connection_id}",
                    Members.OWN_PROJECT,
                    "{\"name\": \"renamed\"}"),
            row("POST /triggers", Members.OWN_PROJECT),
            row("GET /triggers", Members.OWN_PROJECT),
            row("GET /triggers/{trigger_id}", Members.OWN_PROJECT),
            new Row("PATCH", "/triggers/{trigger_id}", Members.OWN_PROJECT, "{\"name\": \"renamed\"}"),
            row("GET /triggers/{trigger_id}/firings", Members.OWN_PROJECT),
            row("GET /pipelines/actions", Members.NONE),
            row("POST /pipelines/actions/validate", Members.NONE),
            row("POST /pipelines/validate", Members.NONE),
            row("POST /pipelines", Members.NONE),
            row("GET /pipelines", Members.NONE),
            row("GET /pipelines/{pipeline_id}", Members.NONE),
            row("PUT /pipelines/{pipeline_id}", Members.NONE),
            row("POST /pipelines/{pipeline_id}/runs", Members.NONE),
            row("GET /pipelines/{pipeline_id}/runs", Members.NONE),
            row("GET /runs/{run_id}", Members.NONE),
            row("GET /runs/{run_id}/events", Members.NONE),
            row("POST /runs/{run_id}/cancel", Members.NONE),
            row("POST /runs/{run_id}/retry", Members.NONE),
            row("POST /runs/{run_id}/pause", Members.NONE),
            row("POST /runs/{run_id}/resume", Members.NONE),
            row("POST /pipelines/{pipeline_id}/pause", Members.NONE),
            row("POST /pipelines/{pipeline_id}/resume", Members.NONE),
            row("POST /runs/{run_id}/replay", Members.NONE),
            row("POST /pipelines/{pipeline_id}/runs/replay", Members.NONE),
            row("GET /pipelines/{pipeline_id}/versions", Members.NONE),
            row("GET /pipelines/{pipeline_id}/versions/{version}/diff", Members.NONE),
            // an empty answer is refused for its content (400), whoever sends it
            row("POST /runs/{run_id}/steps/{step_id}/approval", Members.ANY),
            row("GET /approvals", Members.ANY),
            row("POST /pipelines/{pipeline_id}/schedules", Members.NONE),
            row("GET /pipelines/{pipeline_id}/schedules", Members.NONE),
            row("GET /schedules/{schedule_id}", Members.NONE),
            row("PATCH /schedules/{schedule_id}", Members.NONE),
            row("POST /schedules/{schedule_id}/pause", Members.NONE),
            row("POST /schedules/{schedule_id}/resume", Members.NONE),
            row("POST /schedules/{schedule_id}/run", Members.NONE),
            row("POST /pipelines/{pipeline_id}/webhook-secret", Members.NONE),
            row("GET /pipelines/{pipeline_id}/webhook-secret", Members.NONE),
            row("GET /routers/actions", Members.ANY),
            new Row(
                    "POST",
                    "/routers/actions/validate",
                    Members.ANY,
                    "{\"action_type\": \"canned_response\", \"params\": {\"message\": \"hi\"}}"),
            new Row("POST", "/routers/validate", Members.OWN_PROJECT, "{\"dag_config\": {}}"),
            row("POST /routers", Members.OWN_PROJECT),
            row("GET /routers", Members.OWN_PROJECT),
            row("GET /routers/{router_id}", Members.OWN_PROJECT),
            new Row("PATCH", "/routers/{router_id}", Members.OWN_PROJECT, "{\"description\": \"changed\"}"),
            row("PUT /routers/{router_id}", Members.OWN_PROJECT),
            row("GET /routers/{router_id}/versions", Members.OWN_PROJECT),
            row("GET /routers/{router_id}/health", Members.OWN_PROJECT),
            row("GET /routers/{router_id}/stats", Members.OWN_PROJECT),
            row("POST /deployments", Members.OWN_PROJECT),
            row("GET /deployments", Members.OWN_PROJECT),
            row("GET /deployments/{deployment_id}", Members.OWN_PROJECT),
            row("GET /deployments/{deployment_id}/events", Members.OWN_PROJECT),
            new Row("PATCH", "/deployments/{deployment_id}", Members.OWN_PROJECT, "{\"rate_limit\": null}"),
            new Row("POST", "/keys", Members.OWN_PROJECT, "{\"name\": \"matrix\"}"),
            row("GET /keys", Members.OWN_PROJECT),
            row("GET /keys/{key_id}", Members.OWN_PROJECT),
            new Row("PATCH", "/keys/{key_id}", Members.OWN_PROJECT, "{\"name\": \"renamed\"}"),
            row("GET /spend", Members.OWN_PROJECT),
            row("GET /prices", Members.NONE),
            // a price refused for its content (400) before its endpoint is looked for
            new Row("PUT", "/prices/{endpoint}", Members.NONE, "{\"input\": -1}"),
            row("DELETE /prices/{endpoint}", Members.NONE),
            new Row(
                    "POST",
                    "/budgets",
                    Members.OWN_PROJECT,
                    "{\"scope\": \"project\", \"tokens\": 1000000000000, \"period\": \"day\"}"),
            row("GET /budgets", Members.OWN_PROJECT),
            row("GET /budgets/{budget_id}", Members.OWN_PROJECT),
            // deletes last, each after every row that needs its object
            row("DELETE /routers/{router_id}/cache", Members.OWN_PROJECT),
            row("DELETE /routers/{router_id}", Members.OWN_PROJECT),
            row("DELETE /keys/{key_id}", Members.OWN_PROJECT),
            row("DELETE /budgets/{budget_id}", Members.OWN_PROJECT),
            row("DELETE /deployments/{deployment_id}", Members.OWN_PROJECT),
            row("DELETE /triggers/{trigger_id}", Members.OWN_PROJECT),
            row("DELETE /events/shared-connections/{connection_id}", Members.OWN_PROJECT),
            row("DELETE /prompts/{prompt_id}/connections/{gateway_id}/detach", Members.OWN_PROJECT),
            row("DELETE /connectors/{gateway_id}/oauth", Members.OWN_PROJECT),
            row("DELETE /connectors/gateways/{gateway_id}", Members.NONE),
            row("DELETE /connectors/registry/{connector_id}", Members.NONE),
            row("DELETE /notification-channels/{channel}", Members.NONE),
            row("DELETE /credentials/{credential_id}", Members.NONE),
            row("DELETE /clusters/{cluster_id}", Members.NONE),
            row("DELETE /schedules/{schedule_id}", Members.NONE),
            row("DELETE /pipelines/{pipeline_id}/webhook-secret", Members.NONE),
            row("DELETE /pipelines/{pipeline_id}", Members.NONE),
            row("DELETE /models/{model_id}", Members.NONE),
            row("DELETE /auth/tokens/{token_id}", Members.NONE),
            row("DELETE /projects/{project_id}", Members.NONE));

    private EverythingServer everything;
    private ArborServer server;
    private AdminFixture fixture;
    private final Map<Caller, String> secrets = new HashMap<>();
    /** The fixture's object for each path parameter. */
    private final Map<String, String> objects = new HashMap<>();

    private static Row row(String route, Members members) {
        String[] parts = route.split(" ", 2);
        return new Row(parts[0], parts[1], members, "{}");
    }

    @BeforeAll
    void start() throws IOException {
        everything = EverythingServer.start("streamableHttp");
        server = ArborServer.start(Map.of(
                "ARBOR_ADMIN_TOKEN", ADMIN_SECRET,
                "ARBOR_TEST_MODELS", "1",
                "ARBOR_OUTBOUND_ALLOW", "127.0.0.1",
                "ARBOR_NO_DOWNLOADS", "1"));
        secrets.put(Caller.ADMIN, ADMIN_SECRET);
        fixture = new AdminFixture(server.http(), ADMIN_SECRET);
        String project = fixture.create("/projects", "{\"name\": \"ours\"}");
        String other = fixture.create("/projects", "{\"name\": \"theirs\"}");
        secrets.put(
                Caller.OWN_MEMBER, fixture.memberToken(project).path("token").asText());
        secrets.put(
                Caller.OTHER_MEMBER, fixture.memberToken(other).path("token").asText());
        JsonNode revoked = fixture.memberToken(project);
        secrets.put(Caller.REVOKED, revoked.path("token").asText());
        fixture.admin("DELETE", "/auth/tokens/" + revoked.path("id").asText(), null);
        objects.putAll(fixture.objects(project, everything.url("/mcp")));
        objects.put("endpoint", "matrix-endpoint");
        objects.put(
                "budget_id",
                fixture.create(
                        "/budgets",
                        "{\"project_id\": \"" + project + "\", \"scope\": \"project\", \"tokens\": "
                                + "1000000000000, \"period\": \"total\"}"));
        objects.put(
                "audit_id",
                fixture.admin("GET", "/audit?limit=1&project_id=" + project, null)
                        .path("last_id")
                        .asText());
    }

    @AfterAll
    void stop() {
        server.close();
        everything.close();
    }

    @Test
    void everyAdminRouteHasARowAndEveryRowARoute() {
        Set<String> routes = adminRoutes().keySet();
        Set<String> rows = ROWS.stream().map(Row::key).collect(Collectors.toSet());
        assertThat(rows)
                .as("each admin route needs a row in ROWS saying what members may do there (and a fixture object "
                        + "for each of its path parameters)")
                .containsAll(routes);
        assertThat(routes).as("a row for a route the server no longer has").containsAll(rows);
        assertThat(ROWS).as("one row per route").hasSameSizeAs(rows);
    }

    @Test
    void routesThatActInTheCurrentProjectDeclareItsHeader() {
        // a route that takes the current project from the header says so in the OpenAPI document
        assertThat(adminRoutes().values().stream()
                        .filter(route -> !route.headers().isEmpty())
                        .map(route -> route.method() + " " + route.path()))
                .containsExactlyInAnyOrder(
                        "GET /connectors/available",
                        "POST /prompts/{prompt_id}/connections/{gateway_id}/attach-tools",
                        "GET /connectors/calls",
                        "GET /audit",
                        "GET /audit/{audit_id}",
                        "POST /events/shared-connections",
                        "GET /events/shared-connections",
                        "GET /events/shared-connections/{connection_id}",
                        "PATCH /events/shared-connections/{connection_id}",
                        "DELETE /events/shared-connections/{connection_id}",
                        "GET /events/shared-connections/{connection_id}/deliveries",
                        "GET /events/shared-connections/{connection_id}/deliveries/{delivery_id}",
                        "POST /events/shared-connections/{connection_id}/deliveries/{delivery_id}/replay",
                        "POST /triggers",
                        "GET /triggers",
                        "GET /triggers/{trigger_id}",
                        "PATCH /triggers/{trigger_id}",
                        "GET /triggers/{trigger_id}/firings",
                        "DELETE /triggers/{trigger_id}",
                        "POST /routers/validate",
                        "POST /routers",
                        "GET /routers",
                        "GET /routers/{router_id}",
                        "PUT /routers/{router_id}",
                        "PATCH /routers/{router_id}",
                        "GET /routers/{router_id}/versions",
                        "GET /routers/{router_id}/health",
                        "GET /routers/{router_id}/stats",
                        "DELETE /routers/{router_id}/cache",
                        "DELETE /routers/{router_id}",
                        "POST /deployments",
                        "GET /deployments",
                        "GET /deployments/{deployment_id}",
                        "PATCH /deployments/{deployment_id}",
                        "DELETE /deployments/{deployment_id}",
                        "GET /deployments/{deployment_id}/events",
                        "POST /keys",
                        "GET /keys",
                        "GET /keys/{key_id}",
                        "PATCH /keys/{key_id}",
                        "DELETE /keys/{key_id}",
                        "GET /spend",
                        "POST /budgets",
                        "GET /budgets",
                        "GET /budgets/{budget_id}",
                        "DELETE /budgets/{budget_id}");
    }

    Stream<Row> rows() {
        return ROWS.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void eachCallerGetsTheDocumentedAnswer(Row row) {
        Route route = adminRoutes().get(row.key());
        assertThat(route).as("a route for %s", row.key()).isNotNull();
        String path = concrete(row.path());
        String body = route.body() instanceof Route.Body.Json ? row.body() : null;
        boolean deleted = false;
        for (Caller caller : Caller.values()) {
            Answer answer = call(caller, row.method(), path, body);
            String what = caller + " " + row.method() + " " + path + " -> " + answer;
            switch (expected(caller, row.members())) {
                case Refused refused -> {
                    assertThat(answer.status()).as(what).isEqualTo(refused.status());
                    assertThat(answer.code()).as(what).isEqualTo(refused.code());
                    if (refused.code().equals("project_forbidden")) {
                        // it says where the project came from: the current project, or the object in the path
                        assertThat(answer.param())
                                .as(what)
                                .isIn("X-Project-Id", "project_id", "gateway_id", "prompt_id", "connection_id");
                    }
                }
                case Allowed allowed -> {
                    // the request reached the route's own work or checks: done, or refused for its content
                    boolean gone = deleted && answer.status() == 404;
                    assertThat(answer.status() / 100 == 2
                                    || Set.of(400, 409, 412).contains(answer.status())
                                    || gone)
                            .as(what)
                            .isTrue();
                    deleted |= row.method().equals("DELETE") && answer.status() / 100 == 2;
                }
            }
        }
    }

    sealed interface Expected {}

    record Refused(int status, String code) implements Expected {}

    record Allowed() implements Expected {}

    private static Expected expected(Caller caller, Members members) {
        return switch (caller) {
            case NO_TOKEN -> new Refused(401, "missing_api_key");
            case REVOKED -> new Refused(401, "invalid_api_key");
            case ADMIN -> new Allowed();
            case OWN_MEMBER -> members == Members.NONE ? new Refused(403, "admin_required") : new Allowed();
            case OTHER_MEMBER ->
                switch (members) {
                    case NONE -> new Refused(403, "admin_required");
                    case ANY -> new Allowed();
                    case OWN_PROJECT -> new Refused(403, "project_forbidden");
                };
        };
    }

    private Map<String, Route> adminRoutes() {
        var routes = new LinkedHashMap<String, Route>();
        for (Route route : server.application().server().routes()) {
            if (route.access() == Access.ADMIN) {
                routes.put(route.method() + " " + route.path(), route);
            }
        }
        return routes;
    }

    private String concrete(String template) {
        Matcher matcher = PATH_PARAM.matcher(template);
        var path = new StringBuilder();
        while (matcher.find()) {
            String object = objects.get(matcher.group(1));
            assertThat(object).as("a fixture object for {%s}", matcher.group(1)).isNotNull();
            matcher.appendReplacement(path, Matcher.quoteReplacement(object));
        }
        matcher.appendTail(path);
        return path.toString();
    }

    /** A status and, for an error, its code and param. */
    record Answer(int status, String code, String param) {}

    /**
     * Calls as {@code caller}, naming the fixture's project as the current one. A successful answer's body is not
     * read: some are streams that stay open.
     */
    private Answer call(Caller caller, String method, String path, String body) {
        var headers = new ArrayList<>(List.of("X-Project-Id", objects.get("project_id")));
        if (secrets.containsKey(caller)) {
            headers.addAll(List.of("Authorization", "Bearer " + secrets.get(caller)));
        }
        var request = HttpRequest.newBuilder(server.http().uri(path))
                .timeout(Duration.ofSeconds(30))
                .headers(headers.toArray(String[]::new))
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        try {
            HttpResponse<InputStream> response =
                    CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream in = response.body()) {
                if (response.statusCode() < 400) {
                    return new Answer(response.statusCode(), "", "");
                }
                JsonNode error = JSON.readTree(in.readAllBytes()).path("error");
                return new Answer(
                        response.statusCode(),
                        error.path("code").asText(),
                        error.path("param").asText());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
