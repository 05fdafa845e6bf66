package dev.arbor.access;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.ArborServer;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.http.Responses;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * {@link CurrentProject#required}, as a feature with no {@code project_id} of its own calls it: the header's project,
 * or 400 {@code missing_field} at {@code project_id}. The probe route reads the server's own database.
 */
class CurrentProjectRequiredTest {
    @Test
    void aRouteThatNeedsAProjectTakesTheHeadersOrSaysItIsMissing() {
        var rule = new AtomicReference<CurrentProject>();
        try (var server = ArborServer.start(
                        Map.of(),
                        routes -> routes.group("probe")
                                .get(
                                        "/probe/current-project",
                                        "probe: the required current project",
                                        ctx -> Responses.ok(
                                                ctx,
                                                Map.of(
                                                        "project",
                                                        rule.get().required(ctx).value())))
                                .ok(dev.arbor.platform.http.Schema.object()));
                var database = Database.openSqlite(server.dataDir().resolve("arbor.db"))) {
            rule.set(new Access(database, Clock.systemUTC(), Optional.empty()).currentProject());
            String project = server.http()
                    .post("/projects", "{\"name\": \"p\"}")
                    .json()
                    .path("id")
                    .asText();

            server.http().get("/probe/current-project").assertError(400, "missing_field", "project_id");
            server.http()
                    .get("/probe/current-project", "X-Project-Id", "prj_nope")
                    .assertError(404, "project_not_found", "X-Project-Id");
            assertThat(server.http()
                            .get("/probe/current-project", "X-Project-Id", " " + project + " ")
                            .json()
                            .path("project")
                            .asText())
                    .isEqualTo(project);
        }
    }
}
