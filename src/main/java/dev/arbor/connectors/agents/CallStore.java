package dev.arbor.connectors.agents;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.db.Paging;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jdbi.v3.core.statement.Query;

/** The audit rows of tool calls through agents' endpoints ({@code connector_tool_calls}). */
final class CallStore {
    private static final String COLUMNS = "id, called_at, project_id, identity, prompt_id, gateway_id, tool, "
            + "arguments_sha256, duration_ms, outcome, error";

    /**
     * How a call ended: answered, answered with a tool error, the server could not be used, or the agent's policy
     * refused it (the tool denied, or called too often).
     */
    enum Outcome {
        OK,
        TOOL_ERROR,
        FAILED,
        DENIED,
        RATE_LIMITED;

        String wire() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        static Optional<Outcome> of(String wire) {
            for (Outcome outcome : values()) {
                if (outcome.wire().equals(wire)) {
                    return Optional.of(outcome);
                }
            }
            return Optional.empty();
        }
    }

    /** One tool call, as audited. */
    record Call(
            String id,
            long calledAt,
            String projectId,
            String identity,
            String promptId,
            String gatewayId,
            String tool,
            String argumentsSha256,
            long durationMs,
            Outcome outcome,
            Optional<String> error) {
        Call {
            requireNonNull(id, "id");
            requireNonNull(outcome, "outcome");
            requireNonNull(error, "error");
        }
    }

    /** Which calls a list shows; {@code projects} empty means every project (an admin's list). */
    record Filter(
            Optional<Set<String>> projects,
            Optional<String> promptId,
            Optional<String> gatewayId,
            Optional<String> tool,
            Optional<Outcome> outcome) {}

    private final Database database;

    CallStore(Database database) {
        this.database = requireNonNull(database, "database");
    }

    void record(Call call) {
        database.update(handle -> handle.createUpdate("INSERT INTO connector_tool_calls (" + COLUMNS
                        + ") VALUES (:id, :at, :project, :identity, :prompt, :gateway, :tool, :hash, :duration, "
                        + ":outcome, :error)")
                .bind("id", call.id())
                .bind("at", call.calledAt())
                .bind("project", call.projectId())
                .bind("identity", call.identity())
                .bind("prompt", call.promptId())
                .bind("gateway", call.gatewayId())
                .bind("tool", call.tool())
                .bind("hash", call.argumentsSha256())
                .bind("duration", call.durationMs())
                .bind("outcome", call.outcome().wire())
                .bind("error", call.error().orElse(null))
                .execute());
    }

    Paging.Result<Call> list(Page page, Filter filter) {
        if (filter.projects().filter(Set::isEmpty).isPresent()) {
            return new Paging.Result<>(List.of(), false);
        }
        String from = "connector_tool_calls WHERE "
                + (filter.projects().isPresent() ? "project_id IN (<projects>)" : "1 = 1")
                + filter.promptId().map(p -> " AND prompt_id = :prompt").orElse("")
                + filter.gatewayId().map(g -> " AND gateway_id = :gateway").orElse("")
                + filter.tool().map(t -> " AND tool = :tool").orElse("")
                + filter.outcome().map(o -> " AND outcome = :outcome").orElse("");
        return database.read(handle ->
                Paging.newestFirst(handle, COLUMNS, from, page, (rs, ctx) -> row(rs), query -> bind(query, filter)));
    }

    /** Deletes the rows of calls made before {@code millis}; how many. */
    int deleteBefore(long millis) {
        return database.write(handle -> handle.createUpdate("DELETE FROM connector_tool_calls WHERE called_at < :t")
                .bind("t", millis)
                .execute());
    }

    private static void bind(Query query, Filter filter) {
        filter.projects().ifPresent(p -> query.bindList("projects", List.copyOf(p)));
        filter.promptId().ifPresent(p -> query.bind("prompt", p));
        filter.gatewayId().ifPresent(g -> query.bind("gateway", g));
        filter.tool().ifPresent(t -> query.bind("tool", t));
        filter.outcome().ifPresent(o -> query.bind("outcome", o.wire()));
    }

    private static Call row(ResultSet rs) throws SQLException {
        return new Call(
                rs.getString("id"),
                rs.getLong("called_at"),
                rs.getString("project_id"),
                rs.getString("identity"),
                rs.getString("prompt_id"),
                rs.getString("gateway_id"),
                rs.getString("tool"),
                rs.getString("arguments_sha256"),
                rs.getLong("duration_ms"),
                Outcome.of(rs.getString("outcome")).orElseThrow(),
                Optional.ofNullable(rs.getString("error")));
    }
}
