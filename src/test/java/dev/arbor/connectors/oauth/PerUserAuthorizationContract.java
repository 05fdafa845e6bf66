package dev.arbor.connectors.oauth;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.AdminFixture;
import dev.arbor.testing.SecuredMcpServer;
import dev.arbor.testing.TwoProjectsContract;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Per-user OAuth of a gateway ({@code credentials.authorization: per_user}, issue 40) end to end: a real MCP server (the
 * Java SDK's) that takes only tokens of a real authorization server (mock-oauth2-server), whose user each test picks;
 * each caller identity authorizes for itself, an unauthorized one gets MCP's URL elicitation with the address to
 * authorize at, its calls carry its own token and nobody else's, and a revoked token's upstream tokens go. Runs once per
 * database.
 */
abstract class PerUserAuthorizationContract extends TwoProjectsContract {
    private static final String ADMIN_SECRET = "arb_per_user_admin";
    private static final String[] ADMIN = {"Authorization", "Bearer " + ADMIN_SECRET};
    private static final String AGENT = "agent-per-user";

    private SecuredMcpServer secured;
    private AdminFixture admin;
    private String gateway;

    PerUserAuthorizationContract() {
        super(
                ADMIN_SECRET,
                Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1,localhost", "ARBOR_OAUTH_RETURN_HOSTS", "localhost"));
    }

    @BeforeAll
    void attach() throws Exception {
        secured = SecuredMcpServer.start(3600);
        admin = new AdminFixture(http, ADMIN_SECRET);
        gateway = admin.create(
                "/connectors/custom",
                "{\"name\": \"Secured\", \"url\": \"" + secured.mcpUrl() + "\", \"auth_type\": \"oauth\", "
                        + "\"credentials\": {\"client_id\": \"arbor-console\", \"client_secret\": \"console-secret\", "
                        + "\"authorization\": \"per_user\"}, \"scope\": {\"projects\": [\"" + mine + "\"]}}");
        // the admin authorizes as itself, which fetches the tools an agent is given
        secured.signInAs("admin-user");
        JsonNode started = admin.admin(
                "POST",
                "/connectors/" + gateway + "/oauth/initiate",
                "{\"return_url\": \"http://localhost:5173/connections/oauth\"}");
        JsonNode done = finish(secured.consent(started.path("authorization_url").asText()), ADMIN_SECRET);
        assertThat(done.at("/tools/added").toString()).contains("whoami");
        String whoami = null;
        for (JsonNode tool : admin.admin("GET", "/connectors/" + gateway + "/tools?limit=100", "")
                .path("data")) {
            if (tool.path("name").asText().equals("whoami")) {
                whoami = tool.path("id").asText();
            }
        }
        admin.admin(
                "POST",
                "/prompts/" + AGENT + "/connections/" + gateway + "/attach-tools",
                "{\"project_id\": \"" + mine + "\", \"tool_ids\": [\"" + whoami + "\"]}");
    }

    @AfterAll
    void stopSecured() {
        secured.close();
    }

    @Test
    void aCallerWithoutItsOwnAuthorizationGetsTheUrlToAuthorizeAtAndAfterwardsCallsAsItself() throws Exception {
        String ann = admin.memberToken(mine).path("token").asText();

        JsonNode refused = rpc(ann, whoami());
        assertThat(refused.path("result").isMissingNode())
                .as(refused.toString())
                .isTrue();
        assertThat(refused.at("/error/code").asInt()).isEqualTo(-32042);
        JsonNode elicitation = refused.at("/error/data/elicitations/0");
        assertThat(elicitation.path("mode").asText()).isEqualTo("url");
        assertThat(elicitation.path("elicitationId").asText()).isNotBlank();
        String url = elicitation.path("url").asText();
        assertThat(url)
                .startsWith(secured.issuer())
                .contains("client_id=arbor-console", "code_challenge_method=S256", "console%2Foauth%2Freturn");
        assertThat(status(ann).path("status").asText()).isEqualTo("pending");

        secured.signInAs("ann");
        JsonNode done = finish(secured.consent(url), ann);
        assertThat(done.path("status").asText()).isEqualTo("authorized");
        assertThat(done.path("authorization").asText()).isEqualTo("per_user");

        assertThat(text(rpc(ann, whoami()))).isEqualTo("subject=ann");
    }

    @Test
    void anIdentitySeesOnlyItsOwnAuthorizationState() throws Exception {
        JsonNode bobToken = admin.memberToken(mine);
        String bob = bobToken.path("token").asText();
        String carol = admin.memberToken(mine).path("token").asText();
        authorize(bob, "bob");

        JsonNode bobs = status(bob);
        assertThat(bobs.path("status").asText()).isEqualTo("authorized");
        assertThat(bobs.path("authorized_by").asText())
                .isEqualTo(bobToken.path("id").asText());
        JsonNode carols = status(carol);
        assertThat(carols.path("status").asText()).isEqualTo("unauthorized");
        assertThat(carols.path("authorized_by").isNull()).isTrue();
        assertThat(carols.path("scopes")).isEmpty();
        assertThat(carols.toString()).doesNotContain(bobToken.path("id").asText());
        // the gateways' list shows no one's authorization, only that each user authorizes for itself
        assertThat(configured().path("authorization").asText()).isEqualTo("per_user");

        // bob's disconnect forgets bob's tokens, not the admin's
        JsonNode disconnected = http.delete("/connectors/" + gateway + "/oauth", "Authorization", "Bearer " + bob)
                .json();
        assertThat(disconnected.path("disconnected").asBoolean()).isTrue();
        assertThat(disconnected.path("status").asText()).isEqualTo("unauthorized");
        assertThat(rpc(bob, whoami()).at("/error/code").asInt()).isEqualTo(-32042);
        assertThat(status(ADMIN_SECRET).path("status").asText()).isEqualTo("authorized");
    }

    @Test
    void twoIdentitiesCallingConcurrentlyAThousandTimesEachCarryTheirOwnToken() throws Exception {
        String dora = admin.memberToken(mine).path("token").asText();
        String evan = admin.memberToken(mine).path("token").asText();
        authorize(dora, "dora");
        authorize(evan, "evan");

        var pool = Executors.newFixedThreadPool(16);
        try {
            var calls = new ArrayList<Future<String>>();
            var expected = new ArrayList<String>();
            for (int i = 0; i < 1000; i++) {
                boolean first = i % 2 == 0;
                String token = first ? dora : evan;
                expected.add(first ? "subject=dora" : "subject=evan");
                calls.add(pool.submit((Callable<String>) () -> text(rpc(token, whoami()))));
            }
            List<String> answers = new ArrayList<>();
            for (Future<String> call : calls) {
                answers.add(call.get());
            }
            assertThat(answers).containsExactlyElementsOf(expected);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void revokingATokenDeletesTheUpstreamTokensItGotForItself() throws Exception {
        JsonNode fay = admin.memberToken(mine);
        authorize(fay.path("token").asText(), "fay");
        assertThat(grantsOf(fay.path("id").asText())).isEqualTo(1);

        admin.admin("DELETE", "/auth/tokens/" + fay.path("id").asText(), "");

        assertThat(grantsOf(fay.path("id").asText())).isZero();
        assertThat(status(ADMIN_SECRET).path("status").asText()).isEqualTo("authorized");
    }

    @Test
    void anAuthorizationModeOtherThanSharedOrPerUserIsRefused() {
        http.post(
                        "/connectors/custom",
                        "{\"name\": \"Odd\", \"url\": \"" + secured.mcpUrl() + "\", \"auth_type\": \"oauth\", "
                                + "\"credentials\": {\"client_id\": \"c\", \"authorization\": \"per_agent\"}, "
                                + "\"scope\": {\"global\": true}}",
                        ADMIN)
                .assertError(400, "invalid_field", "credentials.authorization");
    }

    /** Authorizes the gateway as the token's user, signed in at the authorization server as {@code user}. */
    private void authorize(String token, String user) throws Exception {
        String url = rpc(token, whoami()).at("/error/data/elicitations/0/url").asText();
        secured.signInAs(user);
        assertThat(finish(secured.consent(url), token).path("status").asText()).isEqualTo("authorized");
    }

    private JsonNode finish(Map<String, String> back, String token) {
        var reply = http.post(
                "/connectors/oauth/callback",
                "{\"code\": \"" + back.get("code") + "\", \"state\": \"" + back.get("state") + "\"}",
                "Authorization",
                "Bearer " + token);
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        return reply.json();
    }

    private JsonNode status(String token) {
        var reply = http.get("/connectors/" + gateway + "/oauth/status", "Authorization", "Bearer " + token);
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        return reply.json();
    }

    private JsonNode configured() {
        for (JsonNode row :
                http.get("/connectors/configured?limit=100", ADMIN).json().path("data")) {
            if (row.path("id").asText().equals(gateway)) {
                return row;
            }
        }
        throw new AssertionError("gateway " + gateway + " is not listed");
    }

    private int grantsOf(String identity) {
        try (var database = openDatabase()) {
            return database.read(handle -> handle.createQuery(
                            "SELECT count(*) FROM connector_oauth_grants WHERE identity = :identity")
                    .bind("identity", identity)
                    .mapTo(Integer.class)
                    .one());
        }
    }

    private static String whoami() {
        return "{\"jsonrpc\": \"2.0\", \"id\": 7, \"method\": \"tools/call\", \"params\": {\"name\": "
                + "\"secured__whoami\", \"arguments\": {}}}";
    }

    private JsonNode rpc(String token, String body) {
        var reply = http.post("/mcp/prompts/" + AGENT, body, "Authorization", "Bearer " + token);
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        return reply.json();
    }

    private static String text(JsonNode answer) {
        assertThat(answer.path("result").isObject()).as(answer.toString()).isTrue();
        return answer.at("/result/content/0/text").asText();
    }
}
