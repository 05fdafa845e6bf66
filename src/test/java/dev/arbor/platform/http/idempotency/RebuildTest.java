package dev.arbor.platform.http.idempotency;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.ArborServer;
import dev.arbor.platform.http.Access;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Route;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * How each write that takes an Idempotency-Key is answered when its work committed but its server died before the
 * answer was kept, over the server's whole route table: every kind found there has its row among those
 * KillDuringKeyedWritesTest kills and retries (the rows below), so that a kind of write cannot be added untested.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RebuildTest {
    /** KillDuringKeyedWritesTest's writes, one of each kind: "METHOD path". */
    private static final Map<String, Class<? extends Rebuild>> KILLED = Map.of(
            "POST /credentials", Rebuild.Created.class,
            "POST /pipelines/{pipeline_id}/runs", Rebuild.Created.class,
            "PUT /credentials/{credential_id}", Rebuild.Read.class,
            "POST /runs/{run_id}/cancel", Rebuild.Read.class,
            "DELETE /credentials/{credential_id}", Rebuild.Deleted.class,
            "POST /auth/tokens", Rebuild.Lost.class);

    private static final String SECRET_ONCE = "its answer shows a secret once, which nothing stored shows again";
    private static final String MODEL_ANSWER = "its answer is a model's (or a tool's) answer, which no read shows";
    private static final String CHECK = "a check that stores nothing: a retry after a crash runs it again";
    private static final String OUTCOME = "its answer is what this one action did, which no read shows";
    private static final String NOT_YET = "not yet: no read shows this answer's shape (left for a later change)";

    /**
     * The keyed writes whose answer cannot be made again from what they stored, each with why: a retry after a crash
     * that cut one off once its work committed answers 409 idempotency_answer_lost. A write that newly falls here
     * fails {@link #everyWriteThatCannotBeAnsweredAgainIsListedWithWhy} until it is listed, or given a read.
     */
    private static final Map<String, String> LOST = Map.ofEntries(
            Map.entry("POST /auth/tokens", SECRET_ONCE),
            Map.entry("POST /keys", SECRET_ONCE + " (the inference key)"),
            Map.entry("PUT /prices/{endpoint}", NOT_YET),
            Map.entry("POST /pipelines/{pipeline_id}/webhook-secret", SECRET_ONCE),
            Map.entry("POST /triggers", SECRET_ONCE + " (a URL target's signing secret)"),
            Map.entry("PATCH /triggers/{trigger_id}", SECRET_ONCE + " (a new URL target's signing secret)"),
            Map.entry("POST /events/shared-connections", SECRET_ONCE + " (the webhook's signing secret)"),
            Map.entry(
                    "PATCH /events/shared-connections/{connection_id}",
                    SECRET_ONCE + " (a rotated signing secret), and the subscriptions it removed"),
            Map.entry("POST /v1/chat/completions", MODEL_ANSWER),
            Map.entry("POST /v1/completions", MODEL_ANSWER),
            Map.entry("POST /v1/embeddings", MODEL_ANSWER),
            Map.entry("POST /v1/decide", MODEL_ANSWER),
            Map.entry("POST /v1/studio/decisions", MODEL_ANSWER + " as the request asked to be shown"),
            Map.entry("POST /v1/studio/decisions/{decision_id}/rerun", MODEL_ANSWER + " as the request asked"),
            Map.entry("POST /mcp/prompts/{prompt_id}", MODEL_ANSWER),
            Map.entry("POST /pipelines/actions/validate", CHECK),
            Map.entry("POST /pipelines/validate", CHECK),
            Map.entry("POST /routers/actions/validate", CHECK),
            Map.entry("POST /routers/validate", CHECK),
            Map.entry("DELETE /routers/{router_id}/cache", OUTCOME + " (how many kept answers it dropped)"),
            Map.entry("POST /v1/studio/models/compatibility", CHECK),
            Map.entry("POST /v1/studio/decisions/preview", CHECK),
            Map.entry("POST /connectors/{gateway_id}/oauth/initiate", OUTCOME + " (an authorization URL, new state)"),
            Map.entry("POST /connectors/oauth/callback", OUTCOME),
            Map.entry("DELETE /connectors/{gateway_id}/oauth", OUTCOME),
            Map.entry("POST /connectors/{gateway_id}/fetch-tools", OUTCOME + " (tools added, changed, removed)"),
            Map.entry("PATCH /connectors/configured/{gateway_id}", OUTCOME + " (the agents it detached)"),
            Map.entry("DELETE /prompts/{prompt_id}/connections/{gateway_id}/detach", OUTCOME + " (tools removed)"),
            Map.entry("POST /notification-channels/{channel}/test", OUTCOME + " (a delivery's outcome)"),
            Map.entry("POST /models/{model_id}/download/cancel", OUTCOME),
            Map.entry("POST /models/{model_id}/eject", OUTCOME),
            Map.entry("POST /schedules/{schedule_id}/run", OUTCOME + " (the run it started, off its schedule)"),
            Map.entry("POST /v1/studio/decisions/delete", OUTCOME + " (counts)"),
            Map.entry("POST /v1/studio/decisions/redact", OUTCOME + " (counts)"),
            Map.entry("POST /v1/studio/templates/{template_id}/examples/import", OUTCOME + " (counts, failures)"),
            Map.entry("POST /v1/studio/evals/{eval_id}/apply", OUTCOME + " (what it made of the eval)"),
            Map.entry("PUT /v1/studio/templates/{template_id}/aliases/{alias}", OUTCOME + " (the previous version)"),
            Map.entry(
                    "PUT /v1/studio/templates/builtin/{builtin_name}/aliases/{alias}",
                    OUTCOME + " (the previous version)"),
            Map.entry("DELETE /auth/tokens/{token_id}", NOT_YET + " (one token)"),
            Map.entry("POST /prompts/{prompt_id}/connections/{gateway_id}/attach-tools", NOT_YET + " (one connection)"),
            Map.entry(
                    "POST /events/shared-connections/{connection_id}/deliveries/{delivery_id}/replay",
                    NOT_YET + " (a delivery's summary; its read shows the detail)"),
            Map.entry("PATCH /v1/studio/decisions/{decision_id}", NOT_YET + " (a decision; its read may render it)"),
            Map.entry("POST /v1/studio/decisions/{decision_id}/cancel", NOT_YET + " (a decision)"),
            Map.entry("POST /v1/studio/decisions/{decision_id}/redact", NOT_YET + " (a decision)"),
            Map.entry(
                    "POST /runs/{run_id}/steps/{step_id}/approval",
                    NOT_YET + " (an approval; the run's read shows it in its step)"));

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

    @Test
    void everyKindOfKeyedWriteInTheRouteTableIsKilledAndRetried() {
        Map<Class<?>, List<String>> kinds = routes.stream()
                .filter(route -> Requests.isWrite(route.method()) && route.access() != Access.PUBLIC)
                .collect(Collectors.groupingBy(
                        route -> Rebuild.of(route, routes).getClass(),
                        Collectors.mapping(route -> route.method() + " " + route.path(), Collectors.toList())));
        assertThat(Set.<Class<?>>copyOf(KILLED.values()))
                .as("a kind of write no row of KillDuringKeyedWritesTest covers: %s", kinds)
                .containsAll(kinds.keySet());
    }

    @Test
    void everyWriteThatCannotBeAnsweredAgainIsListedWithWhy() {
        List<String> lost = routes.stream()
                .filter(route -> Requests.isWrite(route.method()) && route.access() != Access.PUBLIC)
                .filter(route -> Rebuild.of(route, routes) instanceof Rebuild.Lost)
                .map(route -> route.method() + " " + route.path())
                .toList();
        assertThat(lost)
                .as("keyed writes a crash leaves unanswered: list each with why, or give it a read of its answer")
                .containsExactlyInAnyOrderElementsOf(LOST.keySet());
    }

    @ParameterizedTest(name = "{0} is {1}")
    @CsvSource({
        "POST /routers, Created",
        "PUT /routers/{router_id}, Read",
        "PATCH /routers/{router_id}, Read",
        "POST /connectors/custom, Created",
        "POST /connectors/gateways, Created",
        "PATCH /connectors/configured/{gateway_id}/toggle, Read",
        "POST /v1/studio/templates/{template_id}/examples, Created",
    })
    void aWriteOfAResourceIsAnsweredAgainByItsRead(String write, String kind) {
        // IdempotencyAfterACrashTest answers each of these again after a crash, as its read shows it
        assertThat(Rebuild.of(route(write), routes).getClass().getSimpleName()).isEqualTo(kind);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("killed")
    void eachKilledWriteIsOfItsKind(String write, Class<? extends Rebuild> kind) {
        assertThat(Rebuild.of(route(write), routes)).isInstanceOf(kind);
    }

    static Stream<Arguments> killed() {
        return KILLED.entrySet().stream().map(e -> Arguments.of(e.getKey(), e.getValue()));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource({
        "POST /credentials, 201",
        "POST /pipelines/{pipeline_id}/runs, 202",
        "PUT /credentials/{credential_id}, 200",
        "DELETE /credentials/{credential_id}, 200",
    })
    void anAnswerMadeAgainHasTheStatusItsRouteAnswers(String write, int status) {
        assertThat(Rebuild.of(route(write), routes)).hasFieldOrPropertyWithValue("status", status);
    }

    @ParameterizedTest(name = "{0} reads {1}")
    @CsvSource({
        "PUT /credentials/{credential_id}, /credentials/{credential_id}",
        "POST /runs/{run_id}/cancel, /runs/{run_id}",
        "POST /v1/studio/templates/{template_id}/versions/{version}/restore, /v1/studio/templates/{template_id}",
    })
    void anUpdateOrAnActionIsAnsweredByTheReadOfItsResource(String write, String read) {
        assertThat(Rebuild.of(route(write), routes))
                .isInstanceOfSatisfying(
                        Rebuild.Read.class,
                        found -> assertThat(found.read().path()).isEqualTo(read));
    }

    private Route route(String write) {
        return routes.stream()
                .filter(r -> (r.method() + " " + r.path()).equals(write))
                .findFirst()
                .orElseThrow();
    }
}
