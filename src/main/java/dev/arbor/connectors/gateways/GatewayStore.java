package dev.arbor.connectors.gateways;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.db.Paging;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.secrets.SecretBox;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.Update;

/** The SQL of gateways and their scopes; the sealed part of credentials is sealed and opened here. */
final class GatewayStore {
    private static final String COLUMNS = "id, name, connector_id, url, transport, auth_type, description, "
            + "settings, secret, enabled, global, clients, created_at, updated_at";

    private final Database database;
    private final SecretBox secrets;
    private final Clock clock;

    GatewayStore(Database database, SecretBox secrets, Clock clock) {
        this.database = requireNonNull(database, "database");
        this.secrets = requireNonNull(secrets, "secrets");
        this.clock = requireNonNull(clock, "clock");
    }

    void create(Gateway gateway) {
        database.update(handle -> {
            changeable(
                            handle.createUpdate("INSERT INTO connector_gateways (" + COLUMNS + ") VALUES (:id, :name, "
                                    + ":connector, :url, :transport, :auth, :description, :settings, :secret, :enabled, "
                                    + ":global, :clients, :now, :now)"),
                            gateway)
                    .bind("id", gateway.id())
                    .bind("name", gateway.name())
                    .bind("connector", gateway.connectorId().orElse(null))
                    .bind("url", gateway.url())
                    .bind("transport", gateway.transport().wire())
                    .bind("auth", gateway.authType().wire())
                    .bind("description", gateway.description())
                    .bind("now", gateway.createdAt())
                    .execute();
            projects(handle, gateway.id(), gateway.scope().projects());
            ConnectorChanges.record(handle);
        });
    }

    Optional<Gateway> find(String id) {
        return database.read(
                handle -> handle.createQuery("SELECT " + COLUMNS + " FROM connector_gateways " + "WHERE id = :id")
                        .bind("id", id)
                        .map((rs, ctx) -> row(rs, handle))
                        .findOne());
    }

    /** Gateways newest first; disabled ones only when asked. */
    Paging.Result<Gateway> list(Page page, boolean includeDisabled) {
        String from = "connector_gateways WHERE " + (includeDisabled ? "1 = 1" : "enabled = 1");
        return database.read(handle -> Paging.newestFirst(
                handle,
                COLUMNS,
                from,
                page,
                (rs, ctx) -> row(rs, handle),
                cursor -> handle.createQuery("SELECT count(*) FROM connector_gateways WHERE id = :id")
                                .bind("id", cursor)
                                .mapTo(Integer.class)
                                .one()
                        > 0,
                query -> {}));
    }

    /** Enabled gateways an agent of this project may use (global or shared with it), newest first. */
    List<Gateway> available(Optional<String> projectId) {
        return database.read(handle -> handle.createQuery("SELECT " + COLUMNS + " FROM connector_gateways g "
                        + "WHERE enabled = 1 AND (global = 1 OR EXISTS (SELECT 1 FROM connector_gateway_projects p "
                        + "WHERE p.gateway_id = g.id AND p.project_id = :project)) ORDER BY id DESC")
                .bind("project", projectId.orElse(null))
                .map((rs, ctx) -> row(rs, handle))
                .list());
    }

    /** Stores a gateway's new scope, clients and credentials. */
    void update(Gateway gateway) {
        database.update(handle -> {
            changeable(
                            handle.createUpdate("UPDATE connector_gateways SET enabled = :enabled, global = :global, "
                                    + "clients = :clients, settings = :settings, secret = :secret, updated_at = :now "
                                    + "WHERE id = :id"),
                            gateway)
                    .bind("now", clock.millis())
                    .bind("id", gateway.id())
                    .execute();
            handle.createUpdate("DELETE FROM connector_gateway_projects WHERE gateway_id = :id")
                    .bind("id", gateway.id())
                    .execute();
            projects(handle, gateway.id(), gateway.scope().projects());
            ConnectorChanges.record(handle);
        });
    }

    boolean delete(String id) {
        return database.write(handle -> {
            ConnectorChanges.record(handle);
            return handle.createUpdate("DELETE FROM connector_gateways WHERE id = :id")
                            .bind("id", id)
                            .execute()
                    == 1;
        });
    }

    private static void projects(Handle handle, String gatewayId, List<String> projects) {
        for (String project : projects) {
            handle.createUpdate("INSERT INTO connector_gateway_projects (gateway_id, project_id) VALUES (:g, :p)")
                    .bind("g", gatewayId)
                    .bind("p", project)
                    .execute();
        }
    }

    /** Binds the columns an update may change, as creating and updating both write them; the credentials sealed. */
    private Update changeable(Update statement, Gateway gateway) {
        return statement
                .bind("settings", Json.writeString(gateway.settings()))
                .bind(
                        "secret",
                        gateway.secret()
                                .map(s -> secrets.seal(Json.writeString(s), context(gateway.id())))
                                .orElse(null))
                .bind("enabled", gateway.scope().enabled() ? 1 : 0)
                .bind("global", gateway.scope().global() ? 1 : 0)
                .bind("clients", Json.writeString(gateway.clients()));
    }

    /** Binds a gateway's sealed credentials to it: copied to another row, they do not open. */
    private static String context(String gatewayId) {
        return "gateway:" + gatewayId + ":credentials";
    }

    private Gateway row(ResultSet rs, Handle handle) throws SQLException {
        String id = rs.getString("id");
        List<String> projects = handle.createQuery("SELECT project_id FROM connector_gateway_projects "
                        + "WHERE gateway_id = :id ORDER BY project_id")
                .bind("id", id)
                .mapTo(String.class)
                .list();
        var clients = new ArrayList<String>();
        Json.read(rs.getString("clients")).forEach(c -> clients.add(c.asText()));
        String sealed = rs.getString("secret");
        return new Gateway(
                id,
                rs.getString("name"),
                Optional.ofNullable(rs.getString("connector_id")),
                rs.getString("url"),
                Transport.of(rs.getString("transport")).orElseThrow(),
                AuthType.of(rs.getString("auth_type")).orElseThrow(),
                rs.getString("description"),
                (ObjectNode) Json.read(rs.getString("settings")),
                Optional.ofNullable(sealed).map(s -> (ObjectNode) Json.read(secrets.open(s, context(id)))),
                new Gateway.Scope(rs.getInt("enabled") == 1, rs.getInt("global") == 1, projects),
                clients,
                rs.getLong("created_at"),
                rs.getLong("updated_at"));
    }
}
