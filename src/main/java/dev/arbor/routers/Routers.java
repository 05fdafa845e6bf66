package dev.arbor.routers;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.access.Access;
import dev.arbor.clusters.Clusters;
import dev.arbor.credentials.Credentials;
import dev.arbor.models.Models;
import dev.arbor.platform.actions.ActionCatalog;
import dev.arbor.platform.actions.Expressions;
import dev.arbor.platform.actions.ParamSpec;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.references.Referrers;
import dev.arbor.studio.Studio;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Routers: a project's graphs of steps that pick, per inference request, the endpoint that answers it. This part
 * owns what a router is (the action catalog, the checks of a graph, storage and versions); the routing runtime reads
 * active routers through {@link ActiveRouters}. Models and credentials ask it, as {@link Referrers}, which active
 * routers use one of theirs before they delete it.
 */
public final class Routers implements ActiveRouters, Referrers, StepCounter {
    private final RouterStore store;
    private final RouterCatalog catalog;
    private final RouterRoutes routes;
    private final StepCounts counts;

    public Routers(
            Database database,
            Clock clock,
            Access access,
            Models models,
            Credentials credentials,
            Clusters clusters,
            Endpoints deployments,
            Studio studio,
            RouterTelemetry telemetry,
            RouterCaches caches,
            MeterRegistry meters) {
        this.store = new RouterStore(requireNonNull(database, "database"), requireNonNull(clock, "clock"));
        var lookups = new Lookups(models, credentials, access, studio, clusters, deployments);
        this.catalog = new RouterCatalog(lookups);
        var expressions = new Expressions();
        this.counts = new StepCounts(database, clock, meters);
        this.routes = new RouterRoutes(
                store,
                catalog,
                new RouterChecks(store, catalog, new DagCheck(catalog, expressions), lookups, expressions),
                requireNonNull(access, "access"),
                requireNonNull(telemetry, "telemetry"),
                new RouterRoutes.Steps(requireNonNull(caches, "caches"), counts));
    }

    @Override
    public void count(String routerId, String stepId, String name, long amount) {
        counts.count(routerId, stepId, name, amount);
    }

    /** Writes the step counts still in memory: the server stops. */
    public void close() {
        counts.flush();
    }

    public void addRoutes(Routes routes) {
        this.routes.addTo(routes);
    }

    /** Reads the active routers again for the request path: another server changed the routers. */
    public void reload() {
        store.reloadActive();
    }

    @Override
    public List<RouterSnapshot> find(Predicate<String> inProject, String nameOrId) {
        requireNonNull(inProject, "inProject");
        requireNonNull(nameOrId, "nameOrId");
        return store.findActive(inProject, nameOrId).stream()
                .map(router -> new RouterSnapshot(
                        router.id(), router.projectId(), router.name(), router.modifiedAt(), router.dagConfig()))
                .toList();
    }

    @Override
    public List<Referrer> inUse(Kind kind, Set<String> names) {
        return store.activeReferring(requireNonNull(kind, "kind"), Set.copyOf(names)).stream()
                .map(Routers::referrer)
                .toList();
    }

    @Override
    public List<Referrer> release(Kind kind, Set<String> names) {
        return store.deactivateReferring(requireNonNull(kind, "kind"), Set.copyOf(names)).stream()
                .map(Routers::referrer)
                .toList();
    }

    private static Referrer referrer(Router router) {
        return new Referrer("router", router.id(), router.name(), router.projectId());
    }

    /** What a graph refers to outside itself, by its params' types: models (endpoints too) and credentials. */
    static Set<RouterStore.Reference> references(JsonNode dag, RouterCatalog catalog) {
        var found = new LinkedHashSet<RouterStore.Reference>();
        for (JsonNode step : dag.path("steps")) {
            Optional<ActionCatalog.Action> action =
                    catalog.find(step.path("action_type").asText());
            if (action.isEmpty()) {
                continue;
            }
            for (ParamSpec spec : action.get().params()) {
                JsonNode value = step.path("params").path(spec.name());
                switch (spec.type()) {
                    case ENDPOINT_REF, CLOUD_MODEL_REF, MODEL_REF -> add(found, Kind.MODEL, value);
                    case CREDENTIAL_REF -> add(found, Kind.CREDENTIAL, value);
                    case ENDPOINT_REF_LIST -> value.forEach(item -> add(found, Kind.MODEL, item));
                    case ENDPOINT_WEIGHTED_LIST, ENDPOINT_ORDERED_LIST ->
                        value.forEach(item -> add(found, Kind.MODEL, item.path("endpoint")));
                    default -> {}
                }
            }
        }
        return found;
    }

    private static void add(Set<RouterStore.Reference> found, Kind kind, JsonNode value) {
        if (value.isTextual() && !value.textValue().isBlank()) {
            found.add(new RouterStore.Reference(kind, value.textValue()));
        }
    }

    /** 404 {@code router_not_found}: no such router, or not one the caller may see in the current project. */
    static ApiException notFound(String id, boolean inProject) {
        return ApiException.of(
                ErrorCode.ROUTER_NOT_FOUND,
                RouterRoutes.ROUTER_ID,
                "There is no router '" + id + "'" + (inProject ? " in this project." : "."));
    }
}
