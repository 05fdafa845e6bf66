package dev.arbor.connectors.agents;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.connectors.gateways.ConnectorChanges;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.db.Paging;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.json.Json;
import io.modelcontextprotocol.spec.McpSchema;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jdbi.v3.core.statement.StatementContext;
import org.jdbi.v3.core.statement.Update;

/** The SQL of the tools fetched from gateways. */
final class ToolStore {
    private static final String COLUMNS =
            "id, gateway_id, name, title, description, input_schema, annotations, " + "created_at, updated_at";

    record Tool(
            String id,
            String gatewayId,
            String name,
            Optional<String> title,
            String description,
            JsonNode inputSchema,
            Optional<JsonNode> annotations,
            long createdAt,
            long updatedAt) {}

    /** What a fetch changed, by tool name. */
    record Changes(List<String> added, List<String> changed, List<String> removed, int unchanged) {}

    private final Database database;
    private final Clock clock;

    ToolStore(Database database, Clock clock) {
        this.database = requireNonNull(database, "database");
        this.clock = requireNonNull(clock, "clock");
    }

    /** Makes the stored tools of a gateway those fetched: new ones added, changed ones updated, gone ones removed. */
    Changes replace(String gatewayId, List<McpSchema.Tool> fetched) {
        return database.write(handle -> {
            ConnectorChanges.record(handle);
            Map<String, Tool> stored = new HashMap<>();
            handle.createQuery("SELECT " + COLUMNS + " FROM connector_tools WHERE gateway_id = :g")
                    .bind("g", gatewayId)
                    .map(ToolStore::row)
                    .forEach(t -> stored.put(t.name(), t));
            var added = new ArrayList<String>();
            var changed = new ArrayList<String>();
            int unchanged = 0;
            long now = clock.millis();
            for (McpSchema.Tool tool : fetched) {
                JsonNode schema = Json.mapper().valueToTree(tool.inputSchema() == null ? Map.of() : tool.inputSchema());
                Optional<JsonNode> annotations = Optional.ofNullable(tool.annotations())
                        .map(a -> Json.mapper().valueToTree(a));
                String description = tool.description() == null ? "" : tool.description();
                Tool before = stored.remove(tool.name());
                if (before == null) {
                    fetched(
                                    handle.createUpdate("INSERT INTO connector_tools (" + COLUMNS + ") VALUES (:id, "
                                            + ":g, :name, :title, :description, :schema, :annotations, :now, :now)"),
                                    tool,
                                    description,
                                    schema,
                                    annotations,
                                    now)
                            .bind("id", Ids.next("tool"))
                            .bind("g", gatewayId)
                            .bind("name", tool.name())
                            .execute();
                    added.add(tool.name());
                } else if (!before.description().equals(description)
                        || !before.inputSchema().equals(schema)
                        || !before.title().equals(Optional.ofNullable(tool.title()))
                        || !before.annotations().equals(annotations)) {
                    fetched(
                                    handle.createUpdate("UPDATE connector_tools SET title = :title, description = "
                                            + ":description, input_schema = :schema, annotations = :annotations, "
                                            + "updated_at = :now WHERE id = :id"),
                                    tool,
                                    description,
                                    schema,
                                    annotations,
                                    now)
                            .bind("id", before.id())
                            .execute();
                    changed.add(tool.name());
                } else {
                    unchanged++;
                }
            }
            for (Tool gone : stored.values()) {
                handle.createUpdate("DELETE FROM connector_tools WHERE id = :id")
                        .bind("id", gone.id())
                        .execute();
            }
            return new Changes(added, changed, stored.keySet().stream().sorted().toList(), unchanged);
        });
    }

    Paging.Result<Tool> list(String gatewayId, Page page) {
        return database.read(handle -> Paging.newestFirst(
                handle,
                COLUMNS,
                "connector_tools WHERE gateway_id = :g",
                page,
                ToolStore::row,
                cursor -> handle.createQuery(
                                        "SELECT count(*) FROM connector_tools " + "WHERE id = :id AND gateway_id = :g")
                                .bind("id", cursor)
                                .bind("g", gatewayId)
                                .mapTo(Integer.class)
                                .one()
                        > 0,
                query -> query.bind("g", gatewayId)));
    }

    /** The ids of a gateway's tools. */
    java.util.Set<String> ids(String gatewayId) {
        return java.util.Set.copyOf(
                database.read(handle -> handle.createQuery("SELECT id FROM connector_tools " + "WHERE gateway_id = :g")
                        .bind("g", gatewayId)
                        .mapTo(String.class)
                        .list()));
    }

    int count(String gatewayId) {
        return database.read(handle -> handle.createQuery("SELECT count(*) FROM connector_tools WHERE gateway_id = :g")
                .bind("g", gatewayId)
                .mapTo(Integer.class)
                .one());
    }

    private static Tool row(ResultSet rs, StatementContext ctx) throws SQLException {
        String annotations = rs.getString("annotations");
        return new Tool(
                rs.getString("id"),
                rs.getString("gateway_id"),
                rs.getString("name"),
                Optional.ofNullable(rs.getString("title")),
                rs.getString("description"),
                Json.read(rs.getString("input_schema")),
                Optional.ofNullable(annotations).map(Json::read),
                rs.getLong("created_at"),
                rs.getLong("updated_at"));
    }

    /** Binds what a fetch says of a tool, as adding and updating it both write it. */
    private static Update fetched(
            Update statement,
            McpSchema.Tool tool,
            String description,
            JsonNode schema,
            Optional<JsonNode> annotations,
            long now) {
        return statement
                .bind("title", tool.title())
                .bind("description", description)
                .bind("schema", Json.writeString(schema))
                .bind("annotations", annotations.map(Json::writeString).orElse(null))
                .bind("now", now);
    }
}
