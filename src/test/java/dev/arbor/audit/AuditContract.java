package dev.arbor.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.db.Database;
import dev.arbor.testing.AdminFixture;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.KubernetesApiMock;
import dev.arbor.testing.TwoProjectsContract;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The audit log of changes (issue 41) on a real server: a row for each kind of write to admin state, with who made
 * it, in the change's own transaction; read through {@code GET /audit} with filters, an admin seeing every row and a
 * member its own projects' only; never a secret; never writable. Runs once per database.
 */
abstract class AuditContract extends TwoProjectsContract {
    private static final String ADMIN_SECRET = "arb_audit_log_admin";
    private static final String CREDENTIAL_VALUE = "s3cr3t-credential-value-7731";
    private static final String MODEL_API_KEY = "sk-upstream-model-key-4410";
    private static final String SIGNING_SECRET = "github-signing-secret-9052";
    private static final AtomicInteger NAMES = new AtomicInteger();

    private AdminFixture admin;
    private KubernetesApiMock kubernetes;
    private String memberToken;
    private String memberTokenId;
    /** Secrets the writes below sent or were shown once: none may ever be in the audit log. */
    private final List<String> secrets =
            new ArrayList<>(List.of(CREDENTIAL_VALUE, MODEL_API_KEY, SIGNING_SECRET, KubernetesApiMock.TOKEN));

    AuditContract() {
        super(ADMIN_SECRET, Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1", "ARBOR_TEST_MODELS", "1"));
    }

    @BeforeAll
    void fixtures() {
        admin = new AdminFixture(http, ADMIN_SECRET);
        kubernetes = new KubernetesApiMock();
        JsonNode token = admin.admin(
                "POST",
                "/auth/tokens",
                "{\"name\": \"auditing member\", \"role\": \"member\", \"projects\": [\"" + mine + "\"]}");
        memberToken = token.path("token").asText();
        memberTokenId = token.path("id").asText();
        secrets.add(memberToken);
        secrets.add(memberSecret);
    }

    @AfterAll
    void stopKubernetes() {
        kubernetes.close();
    }

    /** A write of one kind of admin state: the type its row names, and the write, which answers the resource's id. */
    record Write(String type, Function<AuditContract, String> make) {
        @Override
        public String toString() {
            return type;
        }
    }

    static Stream<Arguments> kinds() {
        return Stream.of(
                        new Write("project", t -> t.created("/projects", "{\"name\": \"" + t.unique("p") + "\"}")),
                        new Write("token", AuditContract::newToken),
                        new Write(
                                "key",
                                t -> t.created(
                                        "/keys",
                                        "{\"project_id\": \"" + t.mine + "\", \"name\": \"" + t.unique("k") + "\"}")),
                        new Write(
                                "gateway",
                                t -> t.created(
                                        "/connectors/custom",
                                        "{\"name\": \"" + t.unique("Gateway") + "\", \"url\": "
                                                + "\"http://127.0.0.1:9/mcp\", \"auth_type\": \"none\", "
                                                + "\"scope\": {\"projects\": [\"" + t.mine + "\"]}}")),
                        new Write(
                                "connector",
                                t -> t.created(
                                        "/connectors/registry",
                                        "{\"id\": \"" + t.unique("mcp") + "\", \"name\": \"An MCP\", \"url\": "
                                                + "\"https://mcp.example.com/mcp\", \"auth_type\": \"none\"}")),
                        new Write("connection", AuditContract::newConnection),
                        new Write(
                                "trigger",
                                t -> t.created(
                                        "/triggers",
                                        "{\"name\": \"" + t.unique("t") + "\", \"project_id\": \"" + t.mine
                                                + "\", \"connection_id\": \"" + t.newConnection()
                                                + "\", \"event_types\": [\"push\"], "
                                                + "\"target\": {\"url\": \"http://127.0.0.1:9/hook\"}}")),
                        new Write("router", t -> t.newRouter(t.mine)),
                        new Write("pipeline", AuditContract::newPipeline),
                        new Write(
                                "schedule",
                                t -> t.created(
                                        "/pipelines/" + t.newPipeline() + "/schedules", "{\"cron\": \"0 3 * * *\"}")),
                        new Write(
                                "deployment",
                                t -> t.created(
                                        "/deployments",
                                        "{\"name\": \"" + t.unique("d") + "\", \"project_id\": \"" + t.mine
                                                + "\", \"model_id\": \"hash-decider\"}")),
                        new Write(
                                "cluster",
                                t -> t.created(
                                        "/clusters",
                                        "{\"name\": \"" + t.unique("c") + "\", \"kubeconfig\": "
                                                + dev.arbor.platform.json.Json.writeString(t.kubernetes.kubeconfig())
                                                + "}")),
                        new Write(
                                "model",
                                t -> t.created(
                                        "/models",
                                        "{\"model_uri\": \"http://127.0.0.1:9/v1\", \"model_name\": \""
                                                + t.unique("Remote") + "\", \"model_source\": \"cloud\", "
                                                + "\"engine\": \"remote\", \"remote_model\": \"llama\", "
                                                + "\"api_key\": \"" + MODEL_API_KEY + "\"}")),
                        new Write(
                                "template",
                                t -> t.created(
                                        "/v1/studio/templates",
                                        "{\"id\": \"" + t.unique("tpl") + "\", \"questions\": "
                                                + "{\"ok\": {\"type\": \"noul\"}}}")),
                        new Write("credential", AuditContract::newCredential),
                        new Write(
                                "budget",
                                t -> t.created(
                                        "/budgets",
                                        "{\"project_id\": \"" + t.mine + "\", \"scope\": \"project\", "
                                                + "\"tokens\": 1000000, \"period\": \"total\"}")))
                .map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void eachKindOfCreateIsARowWithTheAdminWhoMadeIt(Write write) {
        String id = write.make().apply(this);
        JsonNode row = onlyRow("/audit?resource_type=" + write.type() + "&resource_id=" + id, ADMIN_SECRET);
        assertThat(row.path("action").asText()).isEqualTo("create");
        assertThat(row.path("actor").path("id").asText()).isEqualTo("env");
        assertThat(row.path("actor").path("name").asText()).isEqualTo("ARBOR_ADMIN_TOKEN");
        assertThat(row.path("status").asInt()).isBetween(200, 299);
        assertThat(row.path("diff").asText()).isIn("complete", "unreadable");
        assertThat(row.path("request_id").asText()).startsWith("req_");
    }

    @Test
    void aCreateShowsEveryFieldOfTheNewResourceAsAdded() {
        String router = newRouter(mine);
        JsonNode row = onlyRow("/audit?resource_id=" + router, ADMIN_SECRET);
        assertThat(row.path("diff").asText()).isEqualTo("complete");
        assertThat(row.path("project_id").asText()).isEqualTo(mine);
        assertThat(change(row, "/id").path("after").asText()).isEqualTo(router);
        assertThat(change(row, "/id").has("before")).isFalse();
    }

    @Test
    void anUpdateShowsTheFieldsThatChangedWithTheirValuesBeforeAndAfter() {
        String router = newRouter(mine);
        admin.admin("PATCH", "/routers/" + router, "{\"description\": \"now described\"}");
        JsonNode row = onlyRow("/audit?resource_id=" + router + "&action=update", ADMIN_SECRET);
        assertThat(row.path("route").asText()).isEqualTo("PATCH /routers/{router_id}");
        assertThat(change(row, "/description").path("after").asText()).isEqualTo("now described");
        assertThat(row.path("request_fields")).extracting(JsonNode::asText).containsExactly("description");
        assertThat(row.path("changes")).extracting(c -> c.path("path").asText()).doesNotContain("/id", "/name");
    }

    @Test
    void aDeleteKeepsTheResourceAsItWasBefore() {
        String credential = newCredential();
        admin.admin("DELETE", "/credentials/" + credential, null);
        JsonNode row = onlyRow("/audit?resource_id=" + credential + "&action=delete", ADMIN_SECRET);
        assertThat(change(row, "/id").path("before").asText()).isEqualTo(credential);
        assertThat(change(row, "/id").has("after")).isFalse();
    }

    @Test
    void anActionOnAResourceIsNamedAndShowsWhatItChanged() {
        String pipeline = newPipeline();
        admin.admin("POST", "/pipelines/" + pipeline + "/pause", null);
        JsonNode row = onlyRow("/audit?resource_id=" + pipeline + "&action=pause", ADMIN_SECRET);
        assertThat(row.path("resource_type").asText()).isEqualTo("pipeline");
        assertThat(row.path("diff").asText()).isEqualTo("complete");
        assertThat(row.path("changes")).isNotEmpty();
    }

    @Test
    void aWriteNoReadShowsIsARowWithoutStates() {
        String token = newToken(this);
        admin.admin("DELETE", "/auth/tokens/" + token, null);
        JsonNode row = onlyRow("/audit?resource_type=token&resource_id=" + token + "&action=delete", ADMIN_SECRET);
        assertThat(row.path("diff").asText()).isEqualTo("unreadable");
        assertThat(row.path("changes")).isEmpty();
    }

    @Test
    void theStudiosSettingsAreARowWithTheTokenThatChangedThem() {
        HttpReply reply = http.patch(
                "/v1/studio/settings",
                "{\"history\": {\"retention_days\": 45}}",
                "Authorization",
                "Bearer " + ADMIN_SECRET);
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        JsonNode row = onlyRow("/audit?request_id=" + reply.header("x-request-id"), ADMIN_SECRET);
        assertThat(row.path("resource_type").asText()).isEqualTo("settings");
        assertThat(row.path("actor").path("id").asText()).isEqualTo("env");
        assertThat(change(row, "/history/retention_days").path("after").asInt()).isEqualTo(45);
    }

    @Test
    void aMembersWriteIsARowWithItsTokensIdAndName() {
        HttpReply reply = http.post("/routers", routerBody(mine), "Authorization", "Bearer " + memberToken);
        assertThat(reply.status()).as(reply.body()).isEqualTo(201);
        JsonNode row = onlyRow("/audit?request_id=" + reply.header("x-request-id"), memberToken);
        assertThat(row.path("actor").path("id").asText()).isEqualTo(memberTokenId);
        assertThat(row.path("actor").path("name").asText()).isEqualTo("auditing member");
        assertThat(onlyRow(
                                "/audit?actor=" + memberTokenId + "&resource_id="
                                        + reply.json().path("id").asText(),
                                ADMIN_SECRET)
                        .path("id"))
                .isEqualTo(row.path("id"));
    }

    @Test
    void aMemberSeesOnlyItsOwnProjectsRows() {
        String theirsRouter = newRouter(theirs);
        String mineRouter = newRouter(mine);
        newToken(this); // a row of no project: an admin's only
        List<String> seen = allRows("/audit?limit=100", memberToken).stream()
                .map(row -> row.path("project_id").asText(null))
                .distinct()
                .toList();
        assertThat(seen).containsExactly(mine);
        assertThat(allRows("/audit?resource_id=" + mineRouter, memberToken)).hasSize(1);
        assertThat(allRows("/audit?resource_id=" + theirsRouter, memberToken)).isEmpty();
    }

    @Test
    void aMemberNamingAnotherProjectIsRefused() {
        http.get("/audit?project_id=" + theirs, "Authorization", "Bearer " + memberToken)
                .assertError(403, "project_forbidden", "project_id");
    }

    @Test
    void aMemberReadingAnotherProjectsRowFindsNone() {
        String theirsRouter = newRouter(theirs);
        String id = onlyRow("/audit?resource_id=" + theirsRouter, ADMIN_SECRET)
                .path("id")
                .asText();
        http.get("/audit/" + id, "Authorization", "Bearer " + memberToken)
                .assertError(404, "audit_entry_not_found", "audit_id");
        assertThat(http.get("/audit/" + id, "Authorization", "Bearer " + ADMIN_SECRET)
                        .json()
                        .path("resource_id")
                        .asText())
                .isEqualTo(theirsRouter);
    }

    @Test
    void anUnknownRowIsNotFound() {
        http.get("/audit/aud_nothing", "Authorization", "Bearer " + ADMIN_SECRET)
                .assertError(404, "audit_entry_not_found", "audit_id");
    }

    @Test
    void aTimeThatIsNotUnixSecondsIsRefused() {
        http.get("/audit?since=yesterday", "Authorization", "Bearer " + ADMIN_SECRET)
                .assertError(400, "invalid_parameter", "since");
    }

    @Test
    void rowsAreListedNewestFirstInPagesWithCursors() {
        String first = newRouter(mine);
        String second = newRouter(mine);
        JsonNode page = http.get("/audit?resource_type=router&limit=1", "Authorization", "Bearer " + ADMIN_SECRET)
                .json();
        assertThat(page.path("data").path(0).path("resource_id").asText()).isEqualTo(second);
        assertThat(page.path("has_more").asBoolean()).isTrue();
        JsonNode next = http.get(
                        "/audit?resource_type=router&limit=1&after="
                                + page.path("last_id").asText(),
                        "Authorization",
                        "Bearer " + ADMIN_SECRET)
                .json();
        assertThat(next.path("data").path(0).path("resource_id").asText()).isEqualTo(first);
    }

    @Test
    void theAuditLogCannotBeWrittenOrDeletedThroughTheApi() {
        String row = onlyRow("/audit?resource_id=" + newRouter(mine), ADMIN_SECRET)
                .path("id")
                .asText();
        String[] asAdmin = {"Authorization", "Bearer " + ADMIN_SECRET};
        assertThat(http.post("/audit", "{}", asAdmin).status()).isEqualTo(405);
        assertThat(http.delete("/audit/" + row, asAdmin).status()).isEqualTo(405);
        assertThat(http.patch("/audit/" + row, "{}", asAdmin).status()).isEqualTo(405);
        assertThat(http.put("/audit/" + row, "{}", asAdmin).status()).isEqualTo(405);
        assertThat(http.get("/audit/" + row, asAdmin).status()).isEqualTo(200);
    }

    @Test
    void aWriteRefusedAsInvalidLeavesNoRow() {
        HttpReply refused = http.post("/routers", "{\"name\": 7}", "Authorization", "Bearer " + ADMIN_SECRET);
        assertThat(refused.status()).isEqualTo(400);
        assertThat(allRows("/audit?request_id=" + refused.header("x-request-id"), ADMIN_SECRET))
                .isEmpty();
    }

    @Test
    void aWriteWhoseTransactionRollsBackLeavesNoRow() {
        String name = unique("taken");
        created("/credentials", "{\"name\": \"" + name + "\", \"value\": \"v\"}");
        // the name is found taken inside the create's transaction, which rolls back
        HttpReply refused = http.post(
                "/credentials",
                "{\"name\": \"" + name + "\", \"value\": \"v\"}",
                "Authorization",
                "Bearer " + ADMIN_SECRET);
        refused.assertError(409, "credential_exists", "name");
        assertThat(allRows("/audit?request_id=" + refused.header("x-request-id"), ADMIN_SECRET))
                .isEmpty();
    }

    @Test
    void aChangeWhoseRowCannotBeWrittenDoesNotHappen() {
        String name = unique("unaudited");
        try (Database database = openDatabase()) {
            database.update(handle -> handle.execute("ALTER TABLE audit_log RENAME TO audit_log_away"));
            try {
                HttpReply failed = http.post(
                        "/projects", "{\"name\": \"" + name + "\"}", "Authorization", "Bearer " + ADMIN_SECRET);
                assertThat(failed.status()).isEqualTo(500);
            } finally {
                database.update(handle -> handle.execute("ALTER TABLE audit_log_away RENAME TO audit_log"));
            }
        }
        assertThat(admin.admin("GET", "/projects?limit=100", null).path("data"))
                .extracting(p -> p.path("name").asText())
                .doesNotContain(name);
    }

    @Test
    void noSecretSentOrShownOnceIsEverInTheAuditLog() {
        List<String> made =
                kinds().map(kind -> ((Write) kind.get()[0]).make().apply(this)).toList();
        assertThat(made).doesNotContainNull();
        String credential = newCredential();
        admin.admin("PUT", "/credentials/" + credential, "{\"value\": \"" + CREDENTIAL_VALUE + "-rotated\"}");
        String listed = allRows("/audit?limit=100", ADMIN_SECRET).toString();
        String stored;
        try (Database database = openDatabase()) {
            stored = database.read(handle -> handle.createQuery("SELECT * FROM audit_log")
                    .mapToMap()
                    .list()
                    .toString());
        }
        for (String secret : secrets) {
            assertThat(listed).as("the API's rows").doesNotContain(secret);
            assertThat(stored).as("the table's rows").doesNotContain(secret);
        }
        assertThat(stored).contains("\"value\""); // the rotation's row names the field it sent, not its value
    }

    // ---- the writes

    private String created(String path, String body) {
        return admin.create(path, body);
    }

    private String unique(String prefix) {
        return prefix + "-" + NAMES.incrementAndGet();
    }

    private static String newToken(AuditContract t) {
        JsonNode token =
                t.admin.admin("POST", "/auth/tokens", "{\"name\": \"" + t.unique("tok") + "\", \"role\": \"admin\"}");
        t.secrets.add(token.path("token").asText());
        return token.path("id").asText();
    }

    private String newConnection() {
        JsonNode connection = admin.admin(
                "POST",
                "/events/shared-connections",
                "{\"provider\": \"github\", \"credentials\": {\"signing_secret\": \"" + SIGNING_SECRET + "\"}, "
                        + "\"project_ids\": [\"" + mine + "\"]}");
        String hook = connection.path("webhook_url").asText();
        secrets.add(hook.substring(hook.lastIndexOf('/') + 1));
        return connection.path("id").asText();
    }

    private String newRouter(String project) {
        return created("/routers", routerBody(project));
    }

    private String routerBody(String project) {
        return "{\"name\": \"" + unique("r") + "\", \"project_id\": \"" + project + "\", \"dag_config\": "
                + "{\"entry_step\": \"hi\", \"steps\": [{\"step_id\": \"hi\", "
                + "\"action_type\": \"canned_response\", \"params\": {\"message\": \"hi\"}}]}}";
    }

    private String newPipeline() {
        return created(
                "/pipelines",
                "{\"name\": \"" + unique("pl") + "\", \"steps\": [{\"id\": \"say\", \"action\": \"log\", "
                        + "\"params\": {\"message\": \"hi\"}}]}");
    }

    private String newCredential() {
        return created(
                "/credentials", "{\"name\": \"" + unique("cred") + "\", \"value\": \"" + CREDENTIAL_VALUE + "\"}");
    }

    // ---- reading the log

    private JsonNode onlyRow(String query, String secret) {
        List<JsonNode> rows = allRows(query, secret);
        assertThat(rows).as("rows of %s", query).hasSize(1);
        return rows.getFirst();
    }

    private List<JsonNode> allRows(String query, String secret) {
        var rows = new ArrayList<JsonNode>();
        String page = query;
        while (true) {
            HttpReply reply = http.get(page, "Authorization", "Bearer " + secret);
            assertThat(reply.status()).as(reply.body()).isEqualTo(200);
            reply.json().path("data").forEach(rows::add);
            if (!reply.json().path("has_more").asBoolean()) {
                return rows;
            }
            page = query + (query.contains("?") ? "&" : "?") + "after="
                    + reply.json().path("last_id").asText();
        }
    }

    private static JsonNode change(JsonNode row, String path) {
        for (JsonNode change : row.path("changes")) {
            if (change.path("path").asText().equals(path)) {
                return change;
            }
        }
        throw new AssertionError("no change of " + path + " in " + row.path("changes"));
    }
}
