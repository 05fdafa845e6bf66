package dev.arbor.clusters;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.db.Database;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.secrets.SecretBox;
import java.net.URI;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.StatementContext;
import org.jdbi.v3.core.statement.Update;

/** The Kubernetes clusters, their kubeconfigs sealed; opened only to connect. */
final class ClusterStore {
    private static final String COLUMNS = "id, name, server, context, namespace, created_at, updated_at";

    /** A stored cluster, without its kubeconfig. */
    record Stored(
            String id, String name, URI server, String context, String namespace, long createdAt, long updatedAt) {}

    private final Database database;
    private final SecretBox secrets;
    private final Clock clock;

    ClusterStore(Database database, SecretBox secrets, Clock clock) {
        this.database = requireNonNull(database, "database");
        this.secrets = requireNonNull(secrets, "secrets");
        this.clock = requireNonNull(clock, "clock");
    }

    /** Stores a cluster checked already; {@code cluster_exists} when its name is taken. */
    Stored insert(String id, String name, Kubeconfig kubeconfig) {
        long now = clock.millis();
        database.update(handle -> {
            requireNameFree(handle, name, id);
            withFields(
                            handle.createUpdate("INSERT INTO clusters (id, name, server, context, namespace, sealed, "
                                    + "created_at, updated_at) VALUES (:id, :name, :server, :context, :namespace, "
                                    + ":sealed, :now, :now)"),
                            id,
                            name,
                            kubeconfig)
                    .bind("now", now)
                    .execute();
        });
        return find(id).orElseThrow();
    }

    /** Binds what an insert and an update both write of a cluster: its name and its kubeconfig, sealed. */
    private Update withFields(Update update, String id, String name, Kubeconfig kubeconfig) {
        return update.bind("id", id)
                .bind("name", name)
                .bind("server", kubeconfig.server().toString())
                .bind("context", kubeconfig.context())
                .bind("namespace", kubeconfig.namespace())
                .bind("sealed", secrets.seal(kubeconfig.text(), sealContext(id)));
    }

    /** Replaces a cluster's name and kubeconfig (checked already); {@code cluster_exists} when the name is taken. */
    Stored update(String id, String name, Kubeconfig kubeconfig) {
        database.update(handle -> {
            requireNameFree(handle, name, id);
            withFields(
                            handle.createUpdate("UPDATE clusters SET name = :name, server = :server, "
                                    + "context = :context, namespace = :namespace, sealed = :sealed, "
                                    + "updated_at = :now WHERE id = :id"),
                            id,
                            name,
                            kubeconfig)
                    .bind("now", clock.millis())
                    .execute();
        });
        return find(id).orElseThrow(() -> notFound(id));
    }

    void delete(String id) {
        database.update(handle -> handle.createUpdate("DELETE FROM clusters WHERE id = :id")
                .bind("id", id)
                .execute());
    }

    Optional<Stored> find(String id) {
        return database.read(handle -> handle.createQuery("SELECT " + COLUMNS + " FROM clusters WHERE id = :id")
                .bind("id", id)
                .map(ClusterStore::row)
                .findOne());
    }

    List<Stored> all() {
        return database.read(handle -> handle.createQuery("SELECT " + COLUMNS + " FROM clusters ORDER BY name")
                .map(ClusterStore::row)
                .list());
    }

    /** The kubeconfig as it was given, opened from its seal. */
    String kubeconfig(String id) {
        return database.read(handle -> handle.createQuery("SELECT sealed FROM clusters WHERE id = :id")
                        .bind("id", id)
                        .mapTo(String.class)
                        .findOne())
                .map(box -> secrets.open(box, sealContext(id)))
                .orElseThrow(() -> notFound(id));
    }

    static ApiException notFound(String id) {
        return ApiException.of(ErrorCode.CLUSTER_NOT_FOUND, "cluster_id", "There is no cluster '" + id + "'.");
    }

    static ApiException nameTaken(String name) {
        return ApiException.of(
                ErrorCode.CLUSTER_EXISTS, "name", "A cluster is named '" + name + "' already; names are unique.");
    }

    private static void requireNameFree(Handle handle, String name, String id) {
        if (name.equals(Clusters.LOCAL)
                || handle.createQuery("SELECT count(*) FROM clusters WHERE name = :name AND id <> :id")
                                .bind("name", name)
                                .bind("id", id)
                                .mapTo(Integer.class)
                                .one()
                        > 0) {
            throw nameTaken(name);
        }
    }

    private static String sealContext(String id) {
        return "cluster " + id;
    }

    private static Stored row(ResultSet rs, StatementContext ctx) throws SQLException {
        return new Stored(
                rs.getString("id"),
                rs.getString("name"),
                URI.create(rs.getString("server")),
                rs.getString("context"),
                rs.getString("namespace"),
                rs.getLong("created_at"),
                rs.getLong("updated_at"));
    }
}
