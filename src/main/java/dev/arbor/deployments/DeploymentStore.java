package dev.arbor.deployments;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.models.engines.ReplicaSet;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.ratelimits.RateLimiter;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.Update;
import org.jspecify.annotations.Nullable;

/** The SQL of deployments. */
final class DeploymentStore {
    private static final String COLUMNS = "id, project_id, name, model_id, cluster_id, replicas, ready_replicas, "
            + "auto_scaling, rate_limit, resources, status, error, endpoint_url, server_instance, created_at, updated_at";

    private final Database database;
    private final Clock clock;

    DeploymentStore(Database database, Clock clock) {
        this.database = requireNonNull(database, "database");
        this.clock = requireNonNull(clock, "clock");
    }

    Instant now() {
        return Instant.ofEpochMilli(clock.millis());
    }

    /**
     * Stores a new deployment; {@code deployment_exists} when its project (or, for one in no project, another in none)
     * has one of that name.
     */
    void insert(Deployment deployment) {
        database.write(handle -> {
            if (findByName(handle, deployment.projectId(), deployment.name()).isPresent()) {
                throw nameTaken(deployment.name(), deployment.projectId());
            }
            bindChangeable(
                            handle.createUpdate("INSERT INTO deployments (" + COLUMNS + ") VALUES (:id, :project, "
                                    + ":name, :model, :cluster, :replicas, :ready, :scaling, :limit, :resources, "
                                    + ":status, :error, :url, :server, :created, :updated)"),
                            deployment)
                    .bind("id", deployment.id())
                    .bind("project", deployment.projectId().orElse(null))
                    .bind("name", deployment.name())
                    .bind("model", deployment.modelId())
                    .bind("cluster", deployment.clusterId())
                    .bind("created", deployment.createdAt().toEpochMilli())
                    .execute();
            return null;
        });
    }

    /** Writes what may change of a deployment (its name, model, cluster and project never do); false when gone. */
    boolean update(Deployment deployment) {
        return database.write(handle -> bindChangeable(
                                handle.createUpdate("UPDATE deployments SET replicas = :replicas, "
                                        + "ready_replicas = :ready, auto_scaling = :scaling, rate_limit = :limit, "
                                        + "resources = :resources, status = :status, error = :error, "
                                        + "endpoint_url = :url, server_instance = :server, updated_at = :updated "
                                        + "WHERE id = :id"),
                                deployment)
                        .bind("id", deployment.id())
                        .execute())
                > 0;
    }

    /** Binds what may change of a deployment, by the names both writes use: its spec, its state, its last change. */
    private static Update bindChangeable(Update update, Deployment deployment) {
        return update.bind("replicas", deployment.spec().replicas())
                .bind("ready", deployment.state().readyReplicas())
                .bind(
                        "scaling",
                        deployment
                                .spec()
                                .autoScaling()
                                .map(DeploymentStore::json)
                                .orElse(null))
                .bind(
                        "limit",
                        deployment.spec().rateLimit().map(DeploymentStore::json).orElse(null))
                .bind("resources", resources(deployment))
                .bind("status", deployment.state().status().wire())
                .bind("error", deployment.state().error().orElse(null))
                .bind("url", deployment.state().endpointUrl().orElse(null))
                .bind("server", deployment.state().serverInstance().orElse(null))
                .bind("updated", deployment.updatedAt().toEpochMilli());
    }

    void delete(String id) {
        database.update(handle -> handle.createUpdate("DELETE FROM deployments WHERE id = :id")
                .bind("id", id)
                .execute());
    }

    Optional<Deployment> find(String id) {
        return database.read(handle -> handle.createQuery("SELECT " + COLUMNS + " FROM deployments WHERE id = :id")
                .bind("id", id)
                .map((rs, ctx) -> row(rs))
                .findOne());
    }

    Optional<Deployment> findByName(Optional<String> projectId, String name) {
        return database.read(handle -> findByName(handle, projectId, name));
    }

    /** Every deployment, or those of these projects, newest first. */
    List<Deployment> list(Optional<Set<String>> projects) {
        if (projects.isPresent() && projects.get().isEmpty()) {
            return List.of();
        }
        return database.read(handle -> {
            var query = handle.createQuery("SELECT " + COLUMNS + " FROM deployments"
                    + projects.map(p -> " WHERE project_id IN (<projects>)").orElse("")
                    + " ORDER BY created_at DESC, id DESC");
            projects.ifPresent(p -> query.bindList("projects", List.copyOf(p)));
            return query.map((rs, ctx) -> row(rs)).list();
        });
    }

    /** The deployments called {@code nameOrId} or with that id. */
    List<Deployment> named(String nameOrId) {
        return database.read(handle -> handle.createQuery(
                        "SELECT " + COLUMNS + " FROM deployments WHERE name = :name OR id = :name ORDER BY id")
                .bind("name", nameOrId)
                .map((rs, ctx) -> row(rs))
                .list());
    }

    List<Deployment> onCluster(String clusterId) {
        return database.read(handle -> handle.createQuery(
                        "SELECT " + COLUMNS + " FROM deployments WHERE cluster_id = :cluster ORDER BY name")
                .bind("cluster", clusterId)
                .map((rs, ctx) -> row(rs))
                .list());
    }

    List<Deployment> ofModels(Set<String> modelIds) {
        if (modelIds.isEmpty()) {
            return List.of();
        }
        return database.read(handle -> handle.createQuery(
                        "SELECT " + COLUMNS + " FROM deployments WHERE model_id IN (<models>) ORDER BY name")
                .bindList("models", List.copyOf(modelIds))
                .map((rs, ctx) -> row(rs))
                .list());
    }

    /**
     * Takes over the local deployments whose server is gone (on a shared database, no longer registered; on SQLite,
     * any other server, since one server holds the data folder): they become this server's, to start again.
     */
    List<Deployment> claimOrphans(String serverInstance, boolean shared) {
        String gone = shared
                ? "(server_instance IS NULL OR (server_instance <> :server "
                        + "AND server_instance NOT IN (SELECT id FROM server_instances)))"
                : "(server_instance IS NULL OR server_instance <> :server)";
        return database.write(handle -> {
            List<String> ids = handle.createQuery("SELECT id FROM deployments WHERE cluster_id = 'local' AND "
                            + "status <> 'failed' AND " + gone)
                    .bind("server", serverInstance)
                    .mapTo(String.class)
                    .list();
            if (ids.isEmpty()) {
                return List.of();
            }
            handle.createUpdate("UPDATE deployments SET server_instance = :server WHERE id IN (<ids>)")
                    .bind("server", serverInstance)
                    .bindList("ids", ids)
                    .execute();
            return handle.createQuery("SELECT " + COLUMNS + " FROM deployments WHERE id IN (<ids>) ORDER BY id")
                    .bindList("ids", ids)
                    .map((rs, ctx) -> row(rs))
                    .list();
        });
    }

    /** Whether a server is registered on this database now. */
    boolean serverRuns(String serverInstance) {
        return database.read(handle -> handle.createQuery("SELECT count(*) FROM server_instances WHERE id = :id")
                        .bind("id", serverInstance)
                        .mapTo(Integer.class)
                        .one())
                > 0;
    }

    static ApiException notFound(String id, boolean inProject) {
        return ApiException.of(
                ErrorCode.DEPLOYMENT_NOT_FOUND,
                DeploymentRoutes.DEPLOYMENT_ID,
                "There is no deployment '" + id + "'" + (inProject ? " in this project." : "."));
    }

    static ApiException nameTaken(String name, Optional<String> projectId) {
        return ApiException.of(
                ErrorCode.DEPLOYMENT_EXISTS,
                "name",
                projectId.isPresent()
                        ? "A deployment of this project is named '" + name + "' already; names are unique in a project."
                        : "A deployment in no project is named '" + name + "' already; names are unique among "
                                + "the deployments in no project.");
    }

    private static Optional<Deployment> findByName(Handle handle, Optional<String> projectId, String name) {
        var query = handle.createQuery("SELECT " + COLUMNS + " FROM deployments WHERE "
                        + projectId.map(p -> "project_id = :project").orElse("project_id IS NULL")
                        + " AND name = :name")
                .bind("name", name);
        projectId.ifPresent(project -> query.bind("project", project));
        return query.map((rs, ctx) -> row(rs)).findOne();
    }

    private static @Nullable String resources(Deployment deployment) {
        return deployment
                .spec()
                .resources()
                .map(r -> Json.writeString(DeploymentReply.Reserved.of(r)))
                .orElse(null);
    }

    private static String json(ReplicaSet.Autoscaling scaling) {
        return Json.writeString(DeploymentReply.Scaling.of(scaling));
    }

    private static String json(RateLimiter.Limit limit) {
        return Json.writeString(DeploymentReply.Limit.of(limit));
    }

    private static Deployment row(ResultSet rs) throws SQLException {
        return new Deployment(
                rs.getString("id"),
                Optional.ofNullable(rs.getString("project_id")),
                rs.getString("name"),
                rs.getString("model_id"),
                rs.getString("cluster_id"),
                new Deployment.Spec(
                        rs.getInt("replicas"),
                        Optional.ofNullable(rs.getString("auto_scaling")).map(text -> {
                            JsonNode node = Json.read(text);
                            return new ReplicaSet.Autoscaling(
                                    node.path("min_replicas").asInt(),
                                    node.path("max_replicas").asInt(),
                                    node.path("target_in_flight").asInt());
                        }),
                        Optional.ofNullable(rs.getString("rate_limit")).map(text -> {
                            JsonNode node = Json.read(text);
                            return new RateLimiter.Limit(
                                    RateLimiter.Algorithm.of(
                                                    node.path("algorithm").asText())
                                            .orElseThrow(),
                                    node.path("rate_limit").asLong(),
                                    RateLimiter.Window.of(
                                                    node.path("time_window").asText())
                                            .orElseThrow());
                        }),
                        Optional.ofNullable(rs.getString("resources")).map(text -> {
                            JsonNode node = Json.read(text);
                            return new Resources(
                                    node.path("cpu").isNumber()
                                            ? Optional.of(node.path("cpu").asDouble())
                                            : Optional.empty(),
                                    node.path("memory_bytes").isNumber()
                                            ? Optional.of(
                                                    node.path("memory_bytes").asLong())
                                            : Optional.empty(),
                                    node.path("gpus").asInt(),
                                    node.path("gpu_type").isTextual()
                                            ? Optional.of(node.path("gpu_type").asText())
                                            : Optional.empty());
                        })),
                new Deployment.State(
                        DeploymentStatus.of(rs.getString("status")).orElseThrow(),
                        rs.getInt("ready_replicas"),
                        Optional.ofNullable(rs.getString("error")),
                        Optional.ofNullable(rs.getString("endpoint_url")),
                        Optional.ofNullable(rs.getString("server_instance"))),
                Instant.ofEpochMilli(rs.getLong("created_at")),
                Instant.ofEpochMilli(rs.getLong("updated_at")));
    }
}
