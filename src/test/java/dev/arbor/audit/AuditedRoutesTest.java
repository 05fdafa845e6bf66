package dev.arbor.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.ArborServer;
import dev.arbor.platform.http.Access;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Route;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What the audit log makes of each write of the server's whole route table: every write that is not public and does
 * not serve traffic is audited, under a type of resource this table knows, with the contract's row that shows it (or
 * the row of the same kind of write that does), so that a new kind of write cannot be added without a row of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AuditedRoutesTest {
    private static final String SAME_PLAN =
            "audited as the contract's rows of the same kind (create, update, " + "delete, action, unread) show";

    /** Each type of resource an audited write names, and the AuditContract test that shows its row. */
    private static final Map<String, String> TYPES = Map.ofEntries(
            Map.entry("project", "eachKindOfCreateIsARowWithTheAdminWhoMadeIt[project]"),
            Map.entry(
                    "token",
                    "eachKindOfCreateIsARowWithTheAdminWhoMadeIt[token], aWriteNoReadShowsIsARowWithoutStates"),
            Map.entry("key", "eachKindOfCreateIsARowWithTheAdminWhoMadeIt[key]"),
            Map.entry("gateway", "eachKindOfCreateIsARowWithTheAdminWhoMadeIt[gateway]"),
            Map.entry("connector", "eachKindOfCreateIsARowWithTheAdminWhoMadeIt[connector]"),
            Map.entry("connection", "eachKindOfCreateIsARowWithTheAdminWhoMadeIt[connection]"),
            Map.entry("trigger", "eachKindOfCreateIsARowWithTheAdminWhoMadeIt[trigger]"),
            Map.entry("router", "eachKindOfCreateIsARowWithTheAdminWhoMadeIt[router], anUpdateShows..."),
            Map.entry("pipeline", "eachKindOfCreateIsARowWithTheAdminWhoMadeIt[pipeline], anActionOnAResource..."),
            Map.entry("schedule", "eachKindOfCreateIsARowWithTheAdminWhoMadeIt[schedule]"),
            Map.entry("deployment", "eachKindOfCreateIsARowWithTheAdminWhoMadeIt[deployment]"),
            Map.entry("cluster", "eachKindOfCreateIsARowWithTheAdminWhoMadeIt[cluster]"),
            Map.entry("model", "eachKindOfCreateIsARowWithTheAdminWhoMadeIt[model]"),
            Map.entry("template", "eachKindOfCreateIsARowWithTheAdminWhoMadeIt[template]"),
            Map.entry("credential", "eachKindOfCreateIsARowWithTheAdminWhoMadeIt[credential], aDeleteKeeps..."),
            Map.entry("settings", "theStudiosSettingsAreARowWithTheTokenThatChangedThem"),
            Map.entry("budget", "eachKindOfCreateIsARowWithTheAdminWhoMadeIt[budget]"),
            Map.entry("prices", SAME_PLAN),
            Map.entry("run", SAME_PLAN),
            Map.entry("decision", SAME_PLAN),
            Map.entry("feedback", SAME_PLAN),
            Map.entry("eval", SAME_PLAN),
            Map.entry("fit", SAME_PLAN),
            Map.entry("example", SAME_PLAN),
            Map.entry("version", SAME_PLAN),
            Map.entry("file", SAME_PLAN),
            Map.entry("channel", SAME_PLAN),
            Map.entry("webhook-secret", SAME_PLAN),
            Map.entry("delivery", SAME_PLAN),
            Map.entry("callback", SAME_PLAN));

    private ArborServer server;
    private List<Route> routes;

    @BeforeAll
    void start() {
        server = ArborServer.start(Map.of());
        routes = server.routes();
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private List<AuditedWrite> audited() {
        return routes.stream()
                .flatMap(route -> AuditLog.audited(route).stream())
                .map(route -> AuditedWrite.of(route, routes))
                .toList();
    }

    @Test
    void everyTypeOfResourceAWriteChangesHasItsRow() {
        Map<String, List<String>> types = audited().stream()
                .collect(Collectors.groupingBy(
                        AuditedWrite::resourceType, Collectors.mapping(AuditedWrite::routeName, Collectors.toList())));
        assertThat(TYPES.keySet())
                .as("a type of resource no row of AuditContract shows: %s", types)
                .containsAll(types.keySet());
    }

    @Test
    void everyWriteThatIsNotPublicIsAuditedOrListedWithWhyNot() {
        Set<String> writes = routes.stream()
                .filter(route -> Requests.isWrite(route.method()) && route.access() != Access.PUBLIC)
                .map(route -> route.method() + " " + route.path())
                .collect(Collectors.toSet());
        Set<String> audited = audited().stream().map(AuditedWrite::routeName).collect(Collectors.toSet());
        assertThat(writes).containsAll(AuditLog.NOT_AUDITED.keySet());
        assertThat(audited).doesNotContainAnyElementsOf(AuditLog.NOT_AUDITED.keySet());
        assertThat(audited).hasSize(writes.size() - AuditLog.NOT_AUDITED.size());
    }

    @Test
    void eachKindOfAuditedWriteHasARowInTheContract() {
        // AuditContract: the creates of each kind; anUpdate..., aDelete..., anAction..., aWriteNoReadShows...
        Set<String> kinds = audited().stream().map(AuditedRoutesTest::kind).collect(Collectors.toSet());
        assertThat(kinds).containsExactlyInAnyOrder("create", "update", "delete", "action", "unread");
    }

    private static String kind(AuditedWrite write) {
        return switch (write.resource()) {
            case AuditedWrite.Resource.Created created -> "create";
            case AuditedWrite.Resource.Unread unread -> "unread";
            case AuditedWrite.Resource.Existing existing when existing.deletes() -> "delete";
            case AuditedWrite.Resource.Existing existing when write.action().equals("update") -> "update";
            case AuditedWrite.Resource.Existing existing -> "action";
        };
    }

    @ParameterizedTest(name = "{0}: {1} {2}, read at {3}")
    @CsvSource({
        "POST /credentials, credential, create, GET /credentials/{credential_id}",
        "PUT /credentials/{credential_id}, credential, update, GET /credentials/{credential_id}",
        "DELETE /credentials/{credential_id}, credential, delete, GET /credentials/{credential_id}",
        "POST /runs/{run_id}/cancel, run, cancel, GET /runs/{run_id}",
        "POST /pipelines/{pipeline_id}/runs, run, create, GET /runs/{run_id}",
        "POST /pipelines/{pipeline_id}/schedules, schedule, create, GET /schedules/{schedule_id}",
        "POST /models/{model_id}/download/cancel, model, download.cancel, GET /models/{model_id}",
        "PATCH /v1/studio/settings, settings, update, GET /v1/studio/settings",
        "PUT /v1/studio/templates/builtin/{builtin_name}, template, update, GET /v1/studio/templates/builtin/{builtin_name}",
    })
    void aWriteIsAuditedAsTheResourceItsReadShows(String write, String type, String action, String read) {
        AuditedWrite audited = AuditedWrite.of(route(write), routes);
        assertThat(audited.resourceType()).isEqualTo(type);
        assertThat(audited.action()).isEqualTo(action);
        String readAt = switch (audited.resource()) {
            case AuditedWrite.Resource.Created created ->
                created.read().method() + " " + created.read().path();
            case AuditedWrite.Resource.Existing existing ->
                existing.read().method() + " " + existing.read().path();
            case AuditedWrite.Resource.Unread unread -> "none";
        };
        assertThat(readAt).isEqualTo(read);
    }

    @ParameterizedTest(name = "{0}: {1} {2}")
    @CsvSource({
        "POST /auth/tokens, token, create",
        "DELETE /auth/tokens/{token_id}, token, delete",
        "POST /v1/studio/decisions/delete, decision, delete",
    })
    void aWriteNoReadShowsIsNamedByItsPath(String write, String type, String action) {
        AuditedWrite audited = AuditedWrite.of(route(write), routes);
        assertThat(audited.resource()).isInstanceOf(AuditedWrite.Resource.Unread.class);
        assertThat(audited.resourceType()).isEqualTo(type);
        assertThat(audited.action()).isEqualTo(action);
    }

    private Route route(String write) {
        return routes.stream()
                .filter(r -> (r.method() + " " + r.path()).equals(write))
                .findFirst()
                .orElseThrow();
    }
}
