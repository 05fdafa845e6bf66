package dev.arbor.inference;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.AdminFixture;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.StatusWaits;
import dev.arbor.testing.TestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The inference routes and {@code POST /v1/decide} keep to projects, in the style of the authorization matrix: three
 * projects, each with an active router and a running deployment, and a member token of each. Every member reaches its
 * own project's router and deployment, by name and by id, on every route; the members of the other two get 404
 * {@code model_not_found}, as for a model that does not exist, so that nothing tells them what is elsewhere. A studio
 * caller without a token reaches no deployment (the studio's own models still decide), and a decision refused so takes
 * nothing from the deployment's rate limit.
 */
class InferenceProjectsTest {
    private static final String ADMIN = "arb_projects_admin";
    private static final int PROJECTS = 3;
    private static final String DECISION_BODY = "\"state\": \"My invoice shows a double charge.\", \"questions\": "
            + "{\"team\": {\"type\": \"choice\", \"criteria\": {\"billing\": \"charges\", \"tech\": \"errors\"}}}";

    private static ArborServer server;
    private static TestServer http;
    private static AdminFixture admin;
    private static final List<Project> projects = new ArrayList<>();

    /** A project with its member's token, its router and its deployment. */
    record Project(int index, String id, String member, String routerId, String deploymentId) {
        String routerName() {
            return "router-" + index;
        }

        String deploymentName() {
            return "dep-" + index;
        }

        @Override
        public String toString() {
            return "project " + index;
        }
    }

    enum Route {
        CHAT("/v1/chat/completions", "\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]"),
        COMPLETIONS("/v1/completions", "\"prompt\": \"hi\""),
        EMBEDDINGS("/v1/embeddings", "\"input\": \"hi\""),
        DECIDE("/v1/decide", DECISION_BODY);

        final String path;
        final String rest;

        Route(String path, String rest) {
            this.path = path;
            this.rest = rest;
        }
    }

    enum Target {
        ROUTER,
        DEPLOYMENT
    }

    enum Naming {
        NAME,
        ID
    }

    @BeforeAll
    static void start() {
        server = ArborServer.start(Map.of(
                "ARBOR_ADMIN_TOKEN", ADMIN,
                "ARBOR_TEST_MODELS", "1",
                "ARBOR_NO_DOWNLOADS", "1",
                "ARBOR_TRUSTED_PROXIES", "127.0.0.1"));
        http = server.http();
        admin = new AdminFixture(http, ADMIN);
        for (int i = 1; i <= PROJECTS; i++) {
            String project = admin.create("/projects", "{\"name\": \"project-" + i + "\"}");
            String member = admin.memberToken(project).path("token").asText();
            String router = admin.create(
                    "/routers",
                    "{\"name\": \"router-" + i + "\", \"project_id\": \"" + project + "\", \"dag_config\": "
                            + "{\"entry_step\": \"hi\", \"steps\": [{\"step_id\": \"hi\", "
                            + "\"action_type\": \"canned_response\", \"params\": {\"message\": \"hi\"}}]}}");
            String deployment = runningDecider(project, "dep-" + i, "");
            projects.add(new Project(i, project, member, router, deployment));
        }
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /** A running deployment of the test models' hash decider on this server; its id. */
    private static String runningDecider(String project, String name, String rateLimit) {
        String id = admin.create(
                "/deployments",
                "{\"project_id\": \"" + project + "\", \"name\": \"" + name + "\", \"model_id\": \"hash-decider\""
                        + rateLimit + "}");
        StatusWaits.until(
                http,
                "/deployments/" + id + "?wait=5",
                "running",
                Duration.ofSeconds(120),
                "Authorization",
                "Bearer " + ADMIN);
        return id;
    }

    record Case(Route route, Target target, Naming naming, Project owner, Project caller) {
        @Override
        public String toString() {
            return route + " " + target + " of " + owner + " by " + naming + ", as the member of " + caller;
        }
    }

    static Stream<Case> cases() {
        var cases = new ArrayList<Case>();
        for (Route route : Route.values()) {
            for (Target target : Target.values()) {
                if (route == Route.DECIDE && target == Target.ROUTER) {
                    continue; // a decision names a model or a deployment, never a router
                }
                for (Naming naming : Naming.values()) {
                    for (int owner = 0; owner < PROJECTS; owner++) {
                        for (int caller = 0; caller < PROJECTS; caller++) {
                            cases.add(new Case(route, target, naming, projects.get(owner), projects.get(caller)));
                        }
                    }
                }
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void aMemberReachesOnlyItsOwnProjectsRoutersAndDeployments(Case c) {
        String model = switch (c.target()) {
            case ROUTER ->
                c.naming() == Naming.NAME ? c.owner().routerName() : c.owner().routerId();
            case DEPLOYMENT ->
                c.naming() == Naming.NAME
                        ? c.owner().deploymentName()
                        : c.owner().deploymentId();
        };
        HttpReply reply =
                call(c.route(), model, "Authorization", "Bearer " + c.caller().member());
        if (c.owner() != c.caller()) {
            reply.assertError(404, "model_not_found", "model");
            assertThat(reply.header("x-router-id")).as(reply.body()).isNull();
            assertThat(reply.header("x-router-endpoint")).as(reply.body()).isNull();
            return;
        }
        switch (c.target()) {
            case ROUTER -> {
                // the canned answer is text: an embeddings request gets its refusal, from the router all the same
                assertThat(reply.header("x-router-id"))
                        .as(reply.body())
                        .isEqualTo(c.owner().routerId());
                if (c.route() == Route.EMBEDDINGS) {
                    reply.assertError(400, "model_capability_unsupported", "model");
                } else {
                    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
                }
            }
            case DEPLOYMENT -> {
                if (c.route() == Route.DECIDE) {
                    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
                    assertThat(reply.json()
                                    .path("answers")
                                    .path("team")
                                    .path("choice")
                                    .asText())
                            .isIn("billing", "tech");
                } else {
                    // the hash decider only decides: the deployment's own refusal shows the request reached it
                    reply.assertError(400, "model_capability_unsupported", "model");
                    assertThat(reply.header("x-router-endpoint"))
                            .isEqualTo(c.owner().deploymentId());
                }
            }
        }
    }

    @Test
    void aStudioCallerWithoutATokenDecidesWithNoDeployment() {
        Project owner = projects.getFirst();
        for (String model : List.of(owner.deploymentName(), owner.deploymentId())) {
            call(Route.DECIDE, model, "X-Forwarded-For", "203.0.113.7").assertError(404, "model_not_found", "model");
            call(Route.DECIDE, model).assertError(404, "model_not_found", "model");
        }
    }

    @Test
    void aStudioCallerWithoutATokenStillDecidesWithTheStudiosOwnModels() {
        HttpReply reply = call(Route.DECIDE, "hash-decider", "X-Forwarded-For", "203.0.113.7");

        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.json().path("model").asText()).isEqualTo("hash-decider");
    }

    @Test
    void aDecisionRefusedElsewhereTakesNothingFromTheDeploymentsRateLimit() {
        Project owner = projects.get(1);
        String limited = runningDecider(
                owner.id(),
                "dep-limited",
                ", \"rate_limit\": {\"algorithm\": \"fixed_window\", \"rate_limit\": 1, \"time_window\": \"hour\"}");
        for (Project other : List.of(projects.get(0), projects.get(2))) {
            call(Route.DECIDE, limited, "Authorization", "Bearer " + other.member())
                    .assertError(404, "model_not_found", "model");
        }
        call(Route.DECIDE, limited, "X-Forwarded-For", "203.0.113.7").assertError(404, "model_not_found", "model");

        HttpReply own = call(Route.DECIDE, limited, "Authorization", "Bearer " + owner.member());

        assertThat(own.status()).as(own.body()).isEqualTo(200);
        assertThat(own.header("x-ratelimit-remaining")).isEqualTo("0");
    }

    @Test
    void aMemberNamingAnotherProjectInTheHeaderIsRefusedOnDecide() {
        Project owner = projects.getFirst();
        Project other = projects.get(1);

        HttpReply reply = call(
                Route.DECIDE,
                owner.deploymentId(),
                "Authorization",
                "Bearer " + owner.member(),
                "X-Project-Id",
                other.id());

        reply.assertError(404, "model_not_found", "model");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("inferenceRoutes")
    void aCallWithoutATokenIsToldThatAMembersTokenServesToo(Route route) {
        HttpReply reply = call(route, projects.getFirst().routerId());

        JsonNode error = reply.assertError(401, "missing_api_key", null);
        assertThat(error.path("message").asText())
                .contains("an admin's or a member's")
                .contains("Authorization: Bearer <token>")
                .doesNotContain("Send an admin API token");
    }

    static Stream<Route> inferenceRoutes() {
        return Stream.of(Route.CHAT, Route.COMPLETIONS, Route.EMBEDDINGS);
    }

    private static HttpReply call(Route route, String model, String... headers) {
        return http.post(route.path, "{\"model\": \"" + model + "\", " + route.rest + "}", headers);
    }
}
