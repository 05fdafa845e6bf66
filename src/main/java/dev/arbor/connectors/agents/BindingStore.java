package dev.arbor.connectors.agents;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.connectors.gateways.ConnectorChanges;
import dev.arbor.connectors.gateways.Gateway;
import dev.arbor.connectors.gateways.GatewayUsers.Agent;
import dev.arbor.connectors.search.ToolMode;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.json.Json;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/** The SQL of agents' tool bindings: which tools of which gateway a prompt uses, in its project. */
final class BindingStore {
    /** Whether an agent may call a tool attached to it. */
    enum Policy {
        ALLOW,
        DENY;

        String wire() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        static Optional<Policy> of(String wire) {
            for (Policy policy : values()) {
                if (policy.wire().equals(wire)) {
                    return Optional.of(policy);
                }
            }
            return Optional.empty();
        }
    }

    /** What an agent may do with one attached tool: call it or not, and at most how often. */
    record ToolPolicy(Policy policy, OptionalInt callsPerMinute) {
        static final ToolPolicy OPEN = new ToolPolicy(Policy.ALLOW, OptionalInt.empty());

        ToolPolicy {
            requireNonNull(policy, "policy");
            requireNonNull(callsPerMinute, "callsPerMinute");
        }
    }

    /** One tool bound to a prompt, with its policy. */
    record BoundTool(String id, String name, ToolPolicy policy) {}

    /** A prompt's connection to one gateway: the tools it uses there. */
    record Connection(String promptId, String projectId, String gatewayId, String gatewayName, List<BoundTool> tools) {
        Connection {
            tools = List.copyOf(tools);
        }
    }

    private final Database database;
    private final Clock clock;

    BindingStore(Database database, Clock clock) {
        this.database = requireNonNull(database, "database");
        this.clock = requireNonNull(clock, "clock");
    }

    /** The project a prompt's bindings are in, when it has any. */
    Optional<String> projectOf(String promptId) {
        return database.read(handle -> handle.createQuery(
                        "SELECT project_id FROM prompt_tool_bindings " + "WHERE prompt_id = :p LIMIT 1")
                .bind("p", promptId)
                .mapTo(String.class)
                .findOne());
    }

    /** How the prompt's endpoint offers its tools: {@link ToolMode#ALL} unless it was set. */
    ToolMode toolMode(String promptId) {
        return database.read(handle -> handle.createQuery(
                                "SELECT tool_mode FROM connector_agent_settings WHERE prompt_id = :p")
                        .bind("p", promptId)
                        .mapTo(String.class)
                        .findOne())
                .flatMap(ToolMode::of)
                .orElse(ToolMode.ALL);
    }

    /**
     * Makes these tools (by id, with their policies) the prompt's whole set for the gateway, and sets the prompt's
     * tool mode when {@code mode} has one.
     */
    void replace(
            String promptId,
            String projectId,
            String gatewayId,
            Map<String, ToolPolicy> toolIds,
            Optional<ToolMode> mode) {
        long now = clock.millis();
        database.update(handle -> {
            ConnectorChanges.record(handle);
            mode.ifPresent(chosen -> handle.createUpdate(
                            "INSERT INTO connector_agent_settings (prompt_id, project_id, tool_mode, updated_at) "
                                    + "VALUES (:p, :project, :mode, :now) ON CONFLICT (prompt_id) DO UPDATE SET "
                                    + "project_id = excluded.project_id, tool_mode = excluded.tool_mode, "
                                    + "updated_at = excluded.updated_at")
                    .bind("p", promptId)
                    .bind("project", projectId)
                    .bind("mode", chosen.wire())
                    .bind("now", now)
                    .execute());
            handle.createUpdate("DELETE FROM prompt_tool_bindings WHERE prompt_id = :p AND gateway_id = :g")
                    .bind("p", promptId)
                    .bind("g", gatewayId)
                    .execute();
            toolIds.forEach((tool, policy) -> handle.createUpdate(
                            "INSERT INTO prompt_tool_bindings (prompt_id, project_id, gateway_id, tool_id, "
                                    + "created_at, policy, calls_per_minute) VALUES (:p, :project, :g, :t, :now, "
                                    + ":policy, :perMinute)")
                    .bind("p", promptId)
                    .bind("project", projectId)
                    .bind("g", gatewayId)
                    .bind("t", tool)
                    .bind("now", now)
                    .bind("policy", policy.policy().wire())
                    .bind(
                            "perMinute",
                            policy.callsPerMinute().isPresent()
                                    ? policy.callsPerMinute().getAsInt()
                                    : null)
                    .execute());
        });
    }

    /** Removes the prompt's bindings to one gateway; how many tools it had there. */
    int detach(String promptId, String gatewayId) {
        return database.write(handle -> {
            ConnectorChanges.record(handle);
            return handle.createUpdate("DELETE FROM prompt_tool_bindings WHERE prompt_id = :p AND gateway_id = :g")
                    .bind("p", promptId)
                    .bind("g", gatewayId)
                    .execute();
        });
    }

    List<Connection> connections(String promptId) {
        record Row(String projectId, String gatewayId, String gatewayName, BoundTool tool) {}
        List<Row> rows = database.read(handle -> handle.createQuery("SELECT b.project_id, b.gateway_id, "
                        + "g.name AS gateway_name, t.id AS tool_id, t.name AS tool_name, b.policy, b.calls_per_minute "
                        + "FROM prompt_tool_bindings b "
                        + "JOIN connector_gateways g ON g.id = b.gateway_id JOIN connector_tools t ON t.id = b.tool_id "
                        + "WHERE b.prompt_id = :p ORDER BY b.gateway_id, t.name")
                .bind("p", promptId)
                .map((rs, ctx) -> new Row(
                        rs.getString("project_id"),
                        rs.getString("gateway_id"),
                        rs.getString("gateway_name"),
                        new BoundTool(rs.getString("tool_id"), rs.getString("tool_name"), policy(rs))))
                .list());
        var byGateway = new LinkedHashMap<String, List<Row>>();
        rows.forEach(row -> byGateway
                .computeIfAbsent(row.gatewayId(), g -> new ArrayList<>())
                .add(row));
        return byGateway.values().stream()
                .map(group -> new Connection(
                        promptId,
                        group.getFirst().projectId(),
                        group.getFirst().gatewayId(),
                        group.getFirst().gatewayName(),
                        group.stream().map(Row::tool).toList()))
                .toList();
    }

    /** A tool an agent's MCP endpoint offers: one bound to it, of an enabled gateway. */
    record ServedTool(
            String gatewayId,
            String gatewayName,
            String name,
            Optional<String> title,
            String description,
            JsonNode inputSchema,
            Optional<JsonNode> annotations,
            ToolPolicy policy) {}

    /** The tools an agent's endpoint offers, by gateway and name. */
    List<ServedTool> served(String promptId) {
        return database.read(handle -> handle.createQuery("SELECT g.id AS gateway_id, g.name AS gateway_name, t.name, "
                        + "t.title, t.description, t.input_schema, t.annotations, b.policy, b.calls_per_minute "
                        + "FROM prompt_tool_bindings b "
                        + "JOIN connector_gateways g ON g.id = b.gateway_id JOIN connector_tools t ON t.id = b.tool_id "
                        + "WHERE b.prompt_id = :p AND g.enabled = 1 ORDER BY g.id, t.name")
                .bind("p", promptId)
                .map((rs, ctx) -> new ServedTool(
                        rs.getString("gateway_id"),
                        rs.getString("gateway_name"),
                        rs.getString("name"),
                        Optional.ofNullable(rs.getString("title")),
                        rs.getString("description"),
                        Json.read(rs.getString("input_schema")),
                        Optional.ofNullable(rs.getString("annotations")).map(Json::read),
                        policy(rs)))
                .list());
    }

    private static ToolPolicy policy(ResultSet rs) throws SQLException {
        int perMinute = rs.getInt("calls_per_minute");
        OptionalInt limit = rs.wasNull() ? OptionalInt.empty() : OptionalInt.of(perMinute);
        return new ToolPolicy(Policy.of(rs.getString("policy")).orElseThrow(), limit);
    }

    /** Detaches a gateway from the agents of projects its scope no longer covers; returns those agents. */
    List<Agent> detachOutside(String gatewayId, Gateway.Scope scope) {
        if (scope.global()) {
            return List.of();
        }
        return database.write(handle -> {
            ConnectorChanges.record(handle);
            List<Agent> outside = handle
                    .createQuery("SELECT DISTINCT prompt_id, project_id FROM "
                            + "prompt_tool_bindings WHERE gateway_id = :g ORDER BY prompt_id")
                    .bind("g", gatewayId)
                    .map((rs, ctx) -> new Agent(rs.getString("prompt_id"), rs.getString("project_id")))
                    .list()
                    .stream()
                    .filter(agent -> !scope.projects().contains(agent.projectId()))
                    .toList();
            for (Agent agent : outside) {
                handle.createUpdate("DELETE FROM prompt_tool_bindings WHERE gateway_id = :g AND prompt_id = :p")
                        .bind("g", gatewayId)
                        .bind("p", agent.promptId())
                        .execute();
            }
            return outside;
        });
    }

    /** How many prompts use a gateway. */
    int promptsUsing(String gatewayId) {
        return database.read(handle -> handle.createQuery(
                        "SELECT count(DISTINCT prompt_id) FROM " + "prompt_tool_bindings WHERE gateway_id = :g")
                .bind("g", gatewayId)
                .mapTo(Integer.class)
                .one());
    }
}
