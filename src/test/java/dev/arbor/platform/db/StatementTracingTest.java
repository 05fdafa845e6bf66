package dev.arbor.platform.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.OtlpReceiver;
import dev.arbor.testing.OtlpReceiver.ReceivedSpan;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Database statements as spans of the traced request that made them, when {@code OTEL_INSTRUMENTATION_JDBC_ENABLED}
 * asks: each names its operation and table, never a value; without the setting, no statement is a span.
 */
class StatementTracingTest {
    private static final String ADMIN_SECRET = "arb_statement_tracing_admin";
    private static final String PROJECT = "statement-secret-name-5521";

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "SELECT id, name FROM projects WHERE id = :id | SELECT | projects",
                "  insert into audit_log (id) values (:id) | INSERT | audit_log",
                "UPDATE pipeline_runs SET status = :s WHERE id = :id | UPDATE | pipeline_runs",
                "DELETE FROM event_deliveries WHERE received_at < :t | DELETE | event_deliveries",
                "WITH recent AS (SELECT 1) SELECT * FROM recent JOIN tokens ON 1 = 1 | WITH | recent",
            })
    void aStatementIsNamedByItsOperationAndFirstTable(String sql, String operation, String table) {
        assertThat(StatementSpans.operation(sql)).isEqualTo(operation);
        assertThat(StatementSpans.table(sql)).contains(table);
    }

    @Test
    void aStatementWithoutATableIsNamedByItsOperationAlone() {
        assertThat(StatementSpans.operation("PRAGMA wal_checkpoint(PASSIVE)")).isEqualTo("PRAGMA");
        assertThat(StatementSpans.table("SELECT 1")).isEmpty();
    }

    @Test
    void withTheSettingEachStatementOfATracedRequestIsASpanWithoutItsValues() throws IOException {
        List<ReceivedSpan> trace = traceOfACreatedProject(Map.of("OTEL_INSTRUMENTATION_JDBC_ENABLED", "true"));

        ReceivedSpan request = OtlpReceiver.named(trace, "POST /projects");
        ReceivedSpan insert = OtlpReceiver.named(trace, "INSERT projects");
        assertThat(insert.kind()).isEqualTo("SPAN_KIND_CLIENT");
        assertThat(insert.attributes())
                .containsEntry("db.system.name", "sqlite")
                .containsEntry("db.operation.name", "INSERT")
                .containsEntry("db.collection.name", "projects");
        assertThat(trace)
                .filteredOn(span -> span.name().startsWith("INSERT "))
                .allSatisfy(span -> assertThat(span.parentSpanId()).isNotEmpty());
        assertThat(insert.traceId()).isEqualTo(request.traceId());
        for (ReceivedSpan span : trace) {
            assertThat(String.join("\n", span.attributes().values()))
                    .as(span.name())
                    .doesNotContain(PROJECT);
        }
    }

    @Test
    void withoutTheSettingNoStatementIsASpan() throws IOException {
        List<ReceivedSpan> trace = traceOfACreatedProject(Map.of());

        assertThat(trace).extracting(ReceivedSpan::name).noneMatch(name -> name.startsWith("INSERT "));
    }

    /** The spans of a {@code POST /projects} on a server with {@code settings}, once its server span is in. */
    private static List<ReceivedSpan> traceOfACreatedProject(Map<String, String> settings) throws IOException {
        try (var collector = new OtlpReceiver()) {
            var env = new HashMap<>(settings);
            env.put("ARBOR_ADMIN_TOKEN", ADMIN_SECRET);
            env.put("OTEL_EXPORTER_OTLP_ENDPOINT", collector.url());
            env.put("OTEL_BSP_SCHEDULE_DELAY", "50");
            HttpReply reply;
            try (var server = ArborServer.start(env)) {
                reply = server.http()
                        .post(
                                "/projects",
                                "{\"name\": \"" + PROJECT + "\"}",
                                "Authorization",
                                "Bearer " + ADMIN_SECRET);
                assertThat(reply.status()).as(reply.body()).isEqualTo(201);
            }
            // the server is closed: every span it made has been exported
            ReceivedSpan request = collector.awaitSpan(
                    span -> span.attribute("arbor.request_id").equals(Optional.of(reply.header("x-request-id"))));
            return collector.trace(request.traceId());
        }
    }
}
