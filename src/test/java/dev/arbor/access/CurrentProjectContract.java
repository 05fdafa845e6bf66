package dev.arbor.access;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.EverythingServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TestServer;
import dev.arbor.testing.TwoProjectsContract;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * DESIGN section 4's current project, one rule on every route that acts in a project: {@code X-Project-Id} names it,
 * the route's own {@code project_id} wins, a member names only its own projects, and each error says where the
 * project was named. Runs once per database (one server per class, a real MCP server behind its gateway).
 */
abstract class CurrentProjectContract extends TwoProjectsContract {
    private static final String ADMIN_SECRET = "arb_current_project_admin";
    private static final String HEADER = "X-Project-Id";
    /** Each case attaches a new agent, so that no case sees another's. */
    private static final AtomicInteger AGENTS = new AtomicInteger();

    private EverythingServer everything;
    private String gateway;
    private String echo;
    /** A gateway shared with {@link #mine} only. */
    private String mineOnly;

    CurrentProjectContract() {
        super(ADMIN_SECRET, Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1"));
    }

    @BeforeAll
    void start() throws IOException {
        everything = EverythingServer.start("streamableHttp");
        gateway = create(
                "/connectors/custom",
                "{\"name\": \"Everything\", \"url\": \"" + everything.url("/mcp")
                        + "\", \"auth_type\": \"none\", \"scope\": {\"global\": true}}");
        mineOnly = create(
                "/connectors/custom",
                "{\"name\": \"Mine only\", \"url\": \"" + everything.url("/mcp")
                        + "\", \"auth_type\": \"none\", \"scope\": {\"projects\": [\"" + mine + "\"]}}");
        assertThat(http.action("/connectors/" + gateway + "/fetch-tools", admin())
                        .status())
                .isEqualTo(200);
        http.get("/connectors/" + gateway + "/tools?limit=100", admin())
                .json()
                .path("data")
                .forEach(tool -> {
                    if (tool.path("name").asText().equals("echo")) {
                        echo = tool.path("id").asText();
                    }
                });
        assertThat(echo).isNotNull();
    }

    @AfterAll
    void stop() {
        everything.close();
    }

    enum Caller {
        ADMIN,
        MEMBER
    }

    /** Where a case names a project: the words stand for the fixture's projects. */
    enum Named {
        NONE,
        MINE,
        THEIRS,
        UNKNOWN
    }

    Stream<Arguments> refusals() {
        return Stream.of(
                Arguments.of(Caller.MEMBER, "attach", Named.THEIRS, Named.NONE, 403, "project_forbidden", HEADER),
                Arguments.of(Caller.MEMBER, "attach", Named.NONE, Named.THEIRS, 403, "project_forbidden", "project_id"),
                // the body wins over the header, refused or not
                Arguments.of(Caller.MEMBER, "attach", Named.MINE, Named.THEIRS, 403, "project_forbidden", "project_id"),
                // a member learns nothing of other projects, not even whether one exists
                Arguments.of(Caller.MEMBER, "attach", Named.UNKNOWN, Named.NONE, 403, "project_forbidden", HEADER),
                Arguments.of(Caller.ADMIN, "attach", Named.UNKNOWN, Named.NONE, 404, "project_not_found", HEADER),
                Arguments.of(Caller.ADMIN, "attach", Named.MINE, Named.UNKNOWN, 404, "project_not_found", "project_id"),
                Arguments.of(Caller.ADMIN, "attach", Named.NONE, Named.NONE, 400, "missing_field", "project_id"),
                Arguments.of(Caller.MEMBER, "attach", Named.NONE, Named.NONE, 400, "missing_field", "project_id"),
                Arguments.of(Caller.MEMBER, "available", Named.THEIRS, Named.NONE, 403, "project_forbidden", HEADER),
                Arguments.of(
                        Caller.MEMBER, "available", Named.NONE, Named.THEIRS, 403, "project_forbidden", "project_id"),
                Arguments.of(Caller.ADMIN, "available", Named.UNKNOWN, Named.NONE, 404, "project_not_found", HEADER),
                Arguments.of(
                        Caller.ADMIN, "available", Named.NONE, Named.UNKNOWN, 404, "project_not_found", "project_id"));
    }

    @ParameterizedTest(name = "{0} {1}, header {2}, project_id {3}: {4} {5} at {6}")
    @MethodSource("refusals")
    void namingAProjectTheCallerMayNotUseIsRefused(
            Caller caller, String route, Named header, Named field, int status, String code, String param) {
        String agent = "agent-" + AGENTS.incrementAndGet();
        reply(caller, route, agent, header, field).assertError(status, code, param);
        assertThat(http.get("/prompts/" + agent + "/connections", admin())
                        .json()
                        .path("data"))
                .as("nothing attached")
                .isEmpty();
    }

    /** Each row: who attaches an agent, the project the header names, the one the body names, and where it lands. */
    Stream<Arguments> attachments() {
        return Stream.of(
                // a member acts in its own project, named by the header alone
                Arguments.of(Caller.MEMBER, Named.MINE, Named.NONE, Named.MINE),
                // an admin acts in any project
                Arguments.of(Caller.ADMIN, Named.THEIRS, Named.NONE, Named.THEIRS),
                // the route's own project_id wins over the header
                Arguments.of(Caller.ADMIN, Named.MINE, Named.THEIRS, Named.THEIRS));
    }

    @ParameterizedTest(name = "{0}: header {1}, body {2}")
    @MethodSource("attachments")
    void anAgentIsAttachedInTheProjectTheCallNames(Caller caller, Named header, Named field, Named landsIn) {
        String agent = "agent-" + AGENTS.incrementAndGet();
        JsonNode attached = reply(caller, "attach", agent, header, field).json();
        assertThat(attached.path("project_id").asText()).as(attached.toString()).isEqualTo(id(landsIn));
        assertThat(http.get("/prompts/" + agent + "/connections", auth(caller))
                        .json()
                        .path("data")
                        .findValuesAsText("project_id"))
                .containsExactly(id(landsIn));
    }

    @Test
    void anAgentsProjectStaysItsOwn() {
        String agent = "agent-" + AGENTS.incrementAndGet();
        reply(Caller.ADMIN, "attach", agent, Named.MINE, Named.NONE);
        // left out afterwards, the project is the agent's; named otherwise, it is refused where it was named
        assertThat(reply(Caller.ADMIN, "attach", agent, Named.NONE, Named.NONE)
                        .json()
                        .path("project_id")
                        .asText())
                .isEqualTo(mine);
        JsonNode other = reply(Caller.ADMIN, "attach", agent, Named.THEIRS, Named.NONE)
                .assertError(400, "invalid_field", HEADER);
        assertThat(other.path("message").asText())
                .isEqualTo(
                        "`X-Project-Id` is " + theirs + ", but agent " + agent + " belongs to project " + mine + ".");
        reply(Caller.ADMIN, "attach", agent, Named.NONE, Named.THEIRS).assertError(400, "invalid_field", "project_id");
    }

    @Test
    void theHeaderFiltersTheAvailableGatewaysWhenNoQueryDoes() {
        assertThat(available(Caller.MEMBER, Named.MINE, Named.NONE)).containsExactlyInAnyOrder(gateway, mineOnly);
        assertThat(available(Caller.ADMIN, Named.THEIRS, Named.NONE)).containsExactly(gateway);
        assertThat(available(Caller.ADMIN, Named.THEIRS, Named.MINE)).containsExactlyInAnyOrder(gateway, mineOnly);
        // with no project named, only the gateways shared with every project
        assertThat(available(Caller.MEMBER, Named.NONE, Named.NONE)).containsExactly(gateway);
    }

    @Test
    void aMemberOutsideAnAgentsProjectCannotReachIt() {
        String agent = "agent-" + AGENTS.incrementAndGet();
        reply(Caller.ADMIN, "attach", agent, Named.THEIRS, Named.NONE);
        http.get("/prompts/" + agent + "/connections", member()).assertError(403, "project_forbidden", "prompt_id");
        http.delete("/prompts/" + agent + "/connections/" + gateway + "/detach", member())
                .assertError(403, "project_forbidden", "prompt_id");
        reply(Caller.MEMBER, "attach", agent, Named.MINE, Named.NONE)
                .assertError(403, "project_forbidden", "prompt_id");
    }

    @Test
    void theOpenApiDocumentShowsTheHeaderWhereARouteReadsIt() {
        JsonNode paths = http.get("/openapi.json").json().path("paths");
        for (String at : List.of(
                "/connectors/available/get", "/prompts/{prompt_id}/connections/{gateway_id}/attach-tools/post")) {
            JsonNode header = headerParameter(paths, at);
            assertThat(header.path("in").asText()).as(at).isEqualTo("header");
            assertThat(header.path("required").asBoolean()).as(at).isFalse();
        }
        assertThat(headerParameter(paths, "/pipelines/get").isMissingNode()).isTrue();
    }

    @Test
    void anIdempotencyKeyBelongsToTheProjectItWasSentWith() {
        String agent = "agent-" + AGENTS.incrementAndGet();
        String path = "/prompts/" + agent + "/connections/" + gateway + "/attach-tools";
        String body = "{\"tool_ids\": [\"" + echo + "\"]}";
        assertThat(http.post(path, body, auth(Caller.ADMIN, HEADER, mine, "Idempotency-Key", "k-" + agent))
                        .status())
                .isEqualTo(200);
        http.post(path, body, auth(Caller.ADMIN, HEADER, theirs, "Idempotency-Key", "k-" + agent))
                .assertError(409, "idempotency_key_reused", "Idempotency-Key");
    }

    private static JsonNode headerParameter(JsonNode paths, String at) {
        String[] parts = at.split("/(?=[a-z]+$)");
        for (JsonNode parameter : paths.path(parts[0]).path(parts[1]).path("parameters")) {
            if (parameter.path("name").asText().equals(HEADER)) {
                return parameter;
            }
        }
        return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
    }

    private List<String> available(Caller caller, Named header, Named query) {
        return reply(caller, "available", "none", header, query)
                .json()
                .path("data")
                .findValuesAsText("id");
    }

    /** Attaches the echo tool to {@code agent}, or lists the available gateways, naming projects as told. */
    private HttpReply reply(Caller caller, String route, String agent, Named header, Named field) {
        var headers = new ArrayList<String>();
        if (header != Named.NONE) {
            headers.add(HEADER);
            headers.add(id(header));
        }
        String[] sent = auth(caller, headers.toArray(String[]::new));
        if (route.equals("available")) {
            return http.get("/connectors/available" + (field == Named.NONE ? "" : "?project_id=" + id(field)), sent);
        }
        String project = field == Named.NONE ? "" : ", \"project_id\": \"" + id(field) + "\"";
        return http.post(
                "/prompts/" + agent + "/connections/" + gateway + "/attach-tools",
                "{\"tool_ids\": [\"" + echo + "\"]" + project + "}",
                sent);
    }

    private String id(Named named) {
        return switch (named) {
            case MINE -> mine;
            case THEIRS -> theirs;
            case UNKNOWN -> "prj_01UNKNOWN0000000000000000";
            case NONE -> throw new IllegalArgumentException("no project named");
        };
    }

    private String create(String path, String body) {
        JsonNode created = http.post(path, body, admin()).json();
        assertThat(created.has("id")).as(created.toString()).isTrue();
        return created.path("id").asText();
    }

    private String[] auth(Caller caller, String... more) {
        String secret = caller == Caller.ADMIN ? ADMIN_SECRET : memberSecret;
        return TestServer.with(new String[] {"Authorization", "Bearer " + secret}, more);
    }

    private String[] admin() {
        return auth(Caller.ADMIN);
    }

    private String[] member() {
        return auth(Caller.MEMBER);
    }
}
