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
