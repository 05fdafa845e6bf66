package dev.arbor.clusters;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static dev.arbor.platform.http.bodies.BodyField.Presence.REQUIRED;
import static java.util.Objects.requireNonNull;

import dev.arbor.access.Access;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.http.Deleted;
import dev.arbor.platform.http.ListReply;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodyReader;
import dev.arbor.platform.http.bodies.BodySpec;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.outbound.OutboundPolicy;
import dev.arbor.platform.secrets.SecretBox;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javalin.http.Context;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where deployments run: {@code local}, this machine, always there; and Kubernetes clusters an admin adds from a
 * kubeconfig, checked when added or changed (the API server reached, the credentials taken, nodes listable). Clusters
 * are platform-wide: admins add, change and delete them; any token may list them, read them and ask their health.
 */
public final class Clusters implements ClusterHealthChecks {
    public static final String LOCAL = "local";

    /** How long adding or changing a cluster waits for its API server, and the health route for an answer. */
    static final Duration CHECK_TIMEOUT = Duration.ofSeconds(10);

    private static final Pattern NAME_PATTERN = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");
    private static final String NAME_RULE =
            "must be letters, digits, '.', '_' and '-', starting with a letter or digit";
    /** A Kubernetes namespace: a DNS label. */
    private static final Pattern NAMESPACE_PATTERN = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

    private static final String NAMESPACE_RULE =
            "must be a Kubernetes namespace: lowercase letters, digits and '-', starting and ending with a letter or "
                    + "digit";
    private static final int KUBECONFIG_MAX = 262_144;

    private static final BodyField.Text NAME =
            BodyField.text(REQUIRED, "name", 100).matching(NAME_PATTERN, NAME_RULE);
    private static final BodyField.Text KUBECONFIG = BodyField.text(REQUIRED, Kubeconfig.FIELD, KUBECONFIG_MAX);
    private static final BodyField.Text CONTEXT = BodyField.text(OPTIONAL, Kubeconfig.CONTEXT_FIELD, 253);
    private static final BodyField.Text NAMESPACE =
            BodyField.text(OPTIONAL, "namespace", 63).matching(NAMESPACE_PATTERN, NAMESPACE_RULE);
    private static final BodyField.Text NEW_NAME =
            BodyField.text(OPTIONAL, "name", 100).matching(NAME_PATTERN, NAME_RULE);
    private static final BodyField.Text NEW_KUBECONFIG = BodyField.text(OPTIONAL, Kubeconfig.FIELD, KUBECONFIG_MAX);
    private static final BodySpec NEW_CLUSTER = BodySpec.of(NAME, KUBECONFIG, CONTEXT, NAMESPACE);
    private static final BodySpec CLUSTER_CHANGE = BodySpec.of(NEW_NAME, NEW_KUBECONFIG, CONTEXT, NAMESPACE);

    private final ClusterStore store;
    private final KubernetesApi kubernetes;
    private final LocalMachine local;
    private final DeploymentsOnCluster deployments;

    /**
     * @param outbound what the API servers' addresses must pass
     * @param deployments what keeps a cluster from being deleted
     * @param dataDir the data folder, whose disk counts in this machine's health
     */
    public Clusters(
            Database database,
            SecretBox secrets,
            OutboundPolicy outbound,
            DeploymentsOnCluster deployments,
            ClusterSettings settings,
            Path dataDir,
            Clock clock) {
        this.store = new ClusterStore(database, secrets, clock);
        this.kubernetes = new KubernetesApi(outbound);
        this.local = new LocalMachine(dataDir, settings);
        this.deployments = requireNonNull(deployments, "deployments");
    }

    public void addRoutes(Routes routes) {
        routes.group("clusters")
                .post(
                        "/clusters",
                        "Add a Kubernetes cluster from a kubeconfig (checked at once: reachable, credentials taken, "
                                + "nodes listable)",
                        this::create)
                .body(NEW_CLUSTER.schema())
                .created(ApiShapes.CLUSTER)
                .get("/clusters", "List clusters: local (this machine) first, then the others by name", this::list)
                .ok(Schema.list(ApiShapes.CLUSTER))
                .get("/clusters/{cluster_id}", "Get a cluster", this::get)
                .ok(ApiShapes.CLUSTER)
                .patch(
                        "/clusters/{cluster_id}",
                        "Change a cluster's name, kubeconfig, context or namespace (a new kubeconfig or context is "
                                + "checked again)",
                        this::change)
                .body(CLUSTER_CHANGE.schema())
                .ok(ApiShapes.CLUSTER)
                .delete("/clusters/{cluster_id}", "Delete a cluster no deployment runs on", this::delete)
                .ok(Schema.deleted("cluster"))
                .get(
                        "/clusters/{cluster_id}/health",
                        "A cluster's status, node count and the resources new work may use",
                        this::health)
                .ok(ApiShapes.HEALTH);
    }

    /** Whether a cluster of this id exists: {@code local}, or one that was added. */
    public boolean exists(String clusterId) {
        return clusterId.equals(LOCAL) || store.find(clusterId).isPresent();
    }

    @Override
    public ClusterHealth check(String clusterId, Duration timeout) {
        requireNonNull(clusterId, "clusterId");
        if (clusterId.equals(LOCAL)) {
            return local.check(timeout);
        }
        var problems = new Problems();
        Optional<Kubeconfig> kubeconfig = stored(find(clusterId), problems);
        if (kubeconfig.isEmpty()) {
            return ClusterHealth.unreachable(noLongerAccepted(problems));
        }
        return kubernetes.health(kubeconfig.get(), timeout);
    }

    /**
     * The kubeconfig of a Kubernetes cluster of the registry, as stored: {@code cluster_not_found} for an unknown id,
     * {@code cluster_unreachable} when it is no longer accepted.
     */
    Kubeconfig kubeconfig(String clusterId) {
        requireNonNull(clusterId, "clusterId");
        if (clusterId.equals(LOCAL)) {
            throw new IllegalArgumentException("the cluster 'local' is this machine, not a Kubernetes cluster");
        }
        var problems = new Problems();
        return stored(find(clusterId), problems)
                .orElseThrow(() -> ApiException.of(
                        ErrorCode.CLUSTER_UNREACHABLE,
                        "cluster_id",
                        KubernetesApi.sentence(noLongerAccepted(problems))));
    }

    /** A client of the cluster's API server for a deployment's objects (see {@link KubernetesApi#connect}). */
    KubernetesClient connect(Kubeconfig kubeconfig, Duration timeout) {
        return kubernetes.connect(kubeconfig, timeout);
    }

    private Optional<Kubeconfig> stored(ClusterStore.Stored stored, Problems problems) {
        return Kubeconfig.read(
                store.kubeconfig(stored.id()),
                Optional.of(stored.context()),
                Optional.of(stored.namespace()),
                problems);
    }

    /** Checked when stored: only a change of the kubeconfig rules since then gets here. */
    private static String noLongerAccepted(Problems problems) {
        return "the stored kubeconfig is no longer accepted: "
                + problems.list().getFirst().message();
    }

    private void create(Context ctx) {
        Access.requireAdmin(ctx);
        BodyReader body = NEW_CLUSTER.reader(Requests.jsonObject(ctx));
        Optional<String> name = NAME.read(body);
        Optional<String> text = KUBECONFIG.read(body);
        Optional<String> context = CONTEXT.read(body);
        Optional<String> namespace = NAMESPACE.read(body);
        Optional<Kubeconfig> kubeconfig = text.flatMap(t -> Kubeconfig.read(t, context, namespace, body.problems()));
        body.finish();
        ClusterStore.Stored stored = add(name.orElseThrow(), kubeconfig.orElseThrow());
        Responses.created(ctx, "/clusters/" + stored.id(), ClusterReply.of(stored));
    }

    /** Stores a cluster once its API server answered: nothing is stored when it did not. */
    ClusterStore.Stored add(String name, Kubeconfig kubeconfig) {
        requireNameFree(name, "");
        kubernetes.verify(kubeconfig, CHECK_TIMEOUT);
        return store.insert(Ids.next("clu"), name, kubeconfig);
    }

    private void list(Context ctx) {
        var data = new ArrayList<ClusterReply>();
        data.add(ClusterReply.LOCAL);
        store.all().forEach(stored -> data.add(ClusterReply.of(stored)));
        Responses.ok(ctx, ListReply.of(data, data.stream().map(ClusterReply::id).toList(), false));
    }

    private void get(Context ctx) {
        String id = ctx.pathParam("cluster_id");
        Responses.ok(ctx, id.equals(LOCAL) ? ClusterReply.LOCAL : ClusterReply.of(find(id)));
    }

    private void change(Context ctx) {
        Access.requireAdmin(ctx);
        ClusterStore.Stored stored = findChangeable(ctx.pathParam("cluster_id"));
        BodyReader body = CLUSTER_CHANGE.reader(Requests.jsonObject(ctx));
        Optional<String> name = NEW_NAME.read(body);
        Optional<String> text = NEW_KUBECONFIG.read(body);
        Optional<String> context = CONTEXT.read(body);
        Optional<String> namespace = NAMESPACE.read(body);
        Optional<Kubeconfig> kubeconfig = Kubeconfig.read(
                text.orElseGet(() -> store.kubeconfig(stored.id())),
                context.or(() -> Optional.of(stored.context())),
                namespace.or(() -> Optional.of(stored.namespace())),
                body.problems());
        body.finish();
        String newName = name.orElse(stored.name());
        requireNameFree(newName, stored.id());
        if (text.isPresent() || context.isPresent()) {
            kubernetes.verify(kubeconfig.orElseThrow(), CHECK_TIMEOUT);
        }
        Responses.ok(ctx, ClusterReply.of(store.update(stored.id(), newName, kubeconfig.orElseThrow())));
    }

    private void delete(Context ctx) {
        Access.requireAdmin(ctx);
        String id = remove(ctx.pathParam("cluster_id"));
        Responses.ok(ctx, Deleted.of(id, "cluster"));
    }

    /** Deletes a cluster no deployment runs on; its id. */
    String remove(String clusterId) {
        ClusterStore.Stored stored = findChangeable(clusterId);
        List<String> running = deployments.running(stored.id());
        if (!running.isEmpty()) {
            throw ApiException.of(
                    ErrorCode.CLUSTER_IN_USE,
                    "cluster_id",
                    "Deployments run on the cluster '" + stored.name() + "': " + String.join(", ", running)
                            + ". Delete them first.");
        }
        store.delete(stored.id());
        return stored.id();
    }

    private void health(Context ctx) {
        String id = ctx.pathParam("cluster_id");
        ClusterHealth health = check(id, CHECK_TIMEOUT);
        var json = new LinkedHashMap<String, Object>();
        json.put("object", "cluster.health");
        json.put("cluster_id", id);
        json.putAll(health.json());
        Responses.ok(ctx, json);
    }

    private ClusterStore.Stored find(String id) {
        return store.find(id).orElseThrow(() -> ClusterStore.notFound(id));
    }

    private ClusterStore.Stored findChangeable(String id) {
        if (id.equals(LOCAL)) {
            throw ApiException.of(
                    ErrorCode.CLUSTER_BUILT_IN,
                    "cluster_id",
                    "The cluster 'local' is this machine: it is always there and cannot be changed or deleted.");
        }
        return find(id);
    }

    /** Refused before any connection is tried; the store checks again as it writes. */
    private void requireNameFree(String name, String id) {
        if (name.equals(LOCAL) || store.all().stream().anyMatch(c -> c.name().equals(name) && !c.id().equals(id))) {
            throw ClusterStore.nameTaken(name);
        }
    }
}
