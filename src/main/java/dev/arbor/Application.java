package dev.arbor;

import static java.util.Objects.requireNonNull;

import dev.arbor.access.Access;
import dev.arbor.clusters.Clusters;
import dev.arbor.clusters.KubernetesWorkloads;
import dev.arbor.clusters.Workloads;
import dev.arbor.connectors.Connectors;
import dev.arbor.console.Console;
import dev.arbor.credentials.Credentials;
import dev.arbor.deployments.Deployments;
import dev.arbor.events.EventConnections;
import dev.arbor.events.Events;
import dev.arbor.events.deliveries.Deliveries;
import dev.arbor.inference.DeploymentDecisions;
import dev.arbor.inference.EndpointDirectory;
import dev.arbor.inference.Routing;
import dev.arbor.inference.ServerHop;
import dev.arbor.inference.api.InferenceRoutes;
import dev.arbor.inference.steps.RouterRuntime;
import dev.arbor.models.Downloads;
import dev.arbor.models.ModelOperations;
import dev.arbor.models.ModelRoutes;
import dev.arbor.models.ModelSettings;
import dev.arbor.models.Models;
import dev.arbor.models.runtime.ModelRuntime;
import dev.arbor.notifications.Notifications;
import dev.arbor.pipelines.Pipelines;
import dev.arbor.pipelines.schedules.Schedules;
import dev.arbor.platform.actions.Expressions;
import dev.arbor.platform.config.OwnerOnly;
import dev.arbor.platform.config.StorageSettings;
import dev.arbor.platform.config.Version;
import dev.arbor.platform.db.ChangeCounters;
import dev.arbor.platform.db.DataFolderLock;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.http.EventStreams;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.idempotency.Idempotency;
import dev.arbor.platform.http.server.HttpServer;
import dev.arbor.platform.instances.ServerInstances;
import dev.arbor.platform.metrics.HttpMetrics;
import dev.arbor.platform.metrics.Metrics;
import dev.arbor.platform.outbound.OutboundClient;
import dev.arbor.platform.outbound.OutboundPolicy;
import dev.arbor.platform.ratelimits.RateLimiter;
import dev.arbor.platform.ratelimits.RateLimiters;
import dev.arbor.platform.references.Referrers;
import dev.arbor.platform.secrets.SecretBox;
import dev.arbor.routers.ActiveRouters;
import dev.arbor.routers.Routers;
import dev.arbor.studio.Studio;
import dev.arbor.triggers.Triggers;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/** Builds the whole server from its configuration: every part is made here, by hand, in dependency order. */
final class Application implements AutoCloseable {
    /** On SQLite, this server's claim on the data folder; PostgreSQL replicas may share a folder. */
    private final Optional<DataFolderLock> folderLock;

    private final Database database;
    private final ServerInstances instances;
    private final ChangeCounters changes;
    private final ModelRuntime runtime;
    private final OutboundClient outboundClient;
    private final Downloads downloads;
    private final Routing routing;
    private final Studio studio;
    private final Pipelines pipelines;
    private final Schedules schedules;
    private final Connectors connectors;
    private final Triggers triggers;
    private final Routers routers;
    private final Workloads workloads;
    private final Deployments deployments;
    private final Deliveries deliveries;
    private final EventStreams streams = new EventStreams();
    private final Metrics metrics;
    private final HttpServer server;

    private Application(Config config, Consumer<Routes> extraRoutes, Clock clock) {
        HttpServer.checkCanListen(config.http());
        StorageSettings storage = config.storage();
        OwnerOnly.folder(storage.dataDir());
        this.folderLock = DataFolderLock.forSqlite(storage, "serve");
        try {
            this.database = Database.open(storage);
        } catch (RuntimeException e) {
            folderLock.ifPresent(DataFolderLock::close);
            throw e;
        }
        this.metrics = new Metrics();
        this.instances = new ServerInstances(database, storage.dataDir(), config.heartbeat());
        this.changes = new ChangeCounters(database);
        try {
            var meters = metrics.registry();
            database.recordMetrics(meters);
            // Opened at start so that a wrong ARBOR_SECRET_KEY stops the server now, not at the first secret.
            var secrets = SecretBox.forStorage(storage);
            var access = new Access(database, clock, config.adminToken());

            ModelSettings modelSettings = config.models();
            var models = new Models(modelSettings.testModels(), database, secrets, clock);
            ModelRuntime.Settings defaults = ModelRuntime.Settings.DEFAULT;
            this.runtime = new ModelRuntime(
                    models,
                    storage.dataDir(),
                    defaults.with(modelSettings.autoLoad(), modelSettings.loadTimeout(), modelSettings.timeout())
                            .withEjection(
                                    modelSettings.idle(),
                                    modelSettings.memoryMb().map(mb -> mb << 20).orElse(defaults.memoryBudget())),
                    meters);
            runtime.start();
            this.studio = new Studio(
                    database,
                    clock,
                    models,
                    runtime,
                    instances,
                    storage.dataDir(),
                    secrets.derive("studio-hmac"),
                    meters);

            var routes = new Routes();
            access.addRoutes(routes);
            var outbound = new OutboundPolicy(config.outboundAllow());
            this.outboundClient = new OutboundClient(outbound);
            this.downloads = new Downloads(
                    models, outboundClient, storage.dataDir(), modelSettings.hubUrl(), modelSettings.downloads());
            var clusters = new Clusters(
                    database,
                    secrets,
                    outbound,
                    Deployments.onCluster(database),
                    config.clusters(),
                    storage.dataDir(),
                    clock);
            this.workloads = new KubernetesWorkloads(clusters, config.clusters());
            this.deployments = new Deployments(
                    database,
                    clock,
                    access,
                    models,
                    clusters,
                    workloads,
                    runtime::replicas,
                    instances,
                    streams,
                    () -> publicUrl(config));
            var credentials = new Credentials(database, secrets, clock);
            // before the models' and credentials' routes: they ask the routers before deleting what one uses
            RateLimiter rateLimits = RateLimiters.forDatabase(database, clock);
            var hop = new ServerHop(secrets.derive("server-hop"), instances.id(), clock);
            this.routing = new Routing(
                    EndpointDirectory.of(models::remoteEndpoint, deployments),
                    outboundClient,
                    rateLimits,
                    database,
                    config.routing(),
                    hop,
                    clock,
                    meters);
            this.routers = new Routers(
                    database,
                    clock,
                    access,
                    models,
                    credentials,
                    clusters,
                    (inProject, ref) ->
                            deployments.find(inProject, ref).stream().anyMatch(d -> d.id().equals(ref)),
                    studio,
                    routing.telemetry());
            var modelOperations = new ModelOperations(
                    models, runtime, downloads, outbound, Referrers.all(List.of(routers, deployments)));
            new ModelRoutes(models, runtime, downloads, modelOperations, streams).addTo(routes);
            var routerRuntime = new RouterRuntime(
                    routing,
                    routers,
                    models::providerModel,
                    credentials::open,
                    deployments,
                    studio::decideForRouter,
                    new Expressions(),
                    rateLimits,
                    clock);
            new InferenceRoutes(routing, routers, deployments, access.currentProject(), routerRuntime).addTo(routes);
            studio.addRoutes(
                    routes,
                    new DeploymentDecisions(
                            deployments, rateLimits, hop, access, config.http().studioApiKey()));
            var notifications = new Notifications(database, secrets, outboundClient, outbound, clock, meters);
            notifications.addRoutes(routes);
            this.connectors = new Connectors(
                    database,
                    secrets,
                    access,
                    outbound,
                    outboundClient,
                    config.connectors(),
                    meters,
                    rateLimits,
                    clock);
            connectors.addRoutes(routes);
            credentials.addRoutes(routes, routers);
            routers.addRoutes(routes);
            clusters.addRoutes(routes);
            deployments.addRoutes(routes, routers);
            this.pipelines = new Pipelines(
                    database,
                    clock,
                    outboundClient,
                    notifications,
                    modelOperations,
                    credentials,
                    clusters,
                    deployments,
                    streams,
                    meters,
                    secrets,
                    () -> publicUrl(config));
            pipelines.addRoutes(routes);
            this.schedules = new Schedules(database, pipelines, clock);
            schedules.addRoutes(routes);
            var eventConnections = new EventConnections(database, secrets);
            this.triggers = new Triggers(
                    database,
                    secrets,
                    eventConnections,
                    pipelines,
                    access,
                    outbound,
                    outboundClient,
                    config.triggerRetryDelays(),
                    meters,
                    clock);
            triggers.addRoutes(routes);
            new Events(eventConnections, triggers, access, () -> publicUrl(config), clock).addRoutes(routes);
            this.deliveries = new Deliveries(
                    database,
                    eventConnections,
                    triggers,
                    access,
                    () -> publicUrl(config),
                    config.deliveries(),
                    rateLimits,
                    meters,
                    clock);
            deliveries.addRoutes(routes);
            // registered before the studio recovers: what this server makes is its own from the first decision
            instances.start();
            studio.start();
            pipelines.start();
            // after the pipelines: a schedule's firing, a missed one made up at once included, starts a run
            schedules.start();
            routing.start();
            // after the studio: its start forgets the servers that stopped, whose local deployments this one takes
            deployments.start();
            // the request path reads routers and deployments from memory: other servers' changes reach it here
            changes.watch(ChangeCounters.Table.DEPLOYMENTS, deployments::reload);
            changes.watch(ChangeCounters.Table.ROUTERS, routers::reload);
            changes.start();
            // after the pipelines: a delivery may start a run
            triggers.start();
            connectors.start();
            deliveries.start();
            new Console().addTo(routes);
            extraRoutes.accept(routes);

            var idempotency = new Idempotency(database, secrets, instances, routes.all(), clock);
            idempotency.start();
            this.server = new HttpServer(
                    config.http(),
                    routes,
                    List.of(access.authenticator()),
                    idempotency,
                    new HttpMetrics(metrics),
                    Version.current(),
                    storage.dataDir());
        } catch (RuntimeException e) {
            changes.close();
            instances.close();
            database.close();
            metrics.close();
            folderLock.ifPresent(DataFolderLock::close);
            throw e;
        }
    }

    /** Where providers reach this server: {@code ARBOR_PUBLIC_URL}, else the address it listens on. */
    private String publicUrl(Config config) {
        return config.publicUrl().orElseGet(() -> {
            String host = Set.of("0.0.0.0", "::", "").contains(config.http().host())
                    ? "localhost"
                    : config.http().host();
            return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port();
        });
    }

    /**
     * Where other servers of the database reach this one: the address it listens on, as the machine's own address
     * when it listens on every interface (a load balancer's {@code ARBOR_PUBLIC_URL} would send a request back to
     * any server).
     */
    private URI internalUrl(Config config) {
        String host = config.http().host();
        if (Set.of("0.0.0.0", "::", "").contains(host)) {
            try {
                host = InetAddress.getLocalHost().getHostAddress();
            } catch (UnknownHostException e) {
                host = "localhost";
            }
        }
        return URI.create("http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port());
    }

    /** Opens the database (migrating it) and starts serving. */
    public static Application start(Config config) {
        return start(config, routes -> {}, Clock.systemUTC());
    }

    /**
     * {@link #start(Config)} with routes added by the caller and a clock of its own, for tests of the platform and
     * of what time does (retention, expiry).
     */
    static Application start(Config config, Consumer<Routes> extraRoutes, Clock clock) {
        var application =
                new Application(requireNonNull(config, "config"), extraRoutes, requireNonNull(clock, "clock"));
        try {
            application.server.start();
            application.instances.advertise(application.internalUrl(config));
        } catch (RuntimeException e) {
            // the timers, workers and schedulers started above would keep the process alive
            application.close();
            throw e;
        }
        return application;
    }

    public int port() {
        return server.port();
    }

    HttpServer server() {
        return server;
    }

    /** Runs the history sweep now, as the hourly timer would. */
    void sweepHistory() {
        studio.sweep();
    }

    /** Refreshes the OAuth tokens about to expire now, as the minute's timer would. */
    void refreshOAuthTokens() {
        connectors.refreshOAuthTokens();
    }

    /** The active routers inference requests may name: what the routing runtime reads. */
    ActiveRouters activeRouters() {
        return routers;
    }

    /** A deployment's objects on the Kubernetes clusters of the registry. */
    Workloads workloads() {
        return workloads;
    }

    /** What verified events go to: the triggers (until the webhook ingest hands them events, tests do). */
    Triggers triggers() {
        return triggers;
    }

    /**
     * Ends event streams, drains requests in flight, stops pipeline runs (they go on after a restart), downloads,
     * background decisions and model workers, then the database.
     */
    @Override
    public void close() {
        streams.stop();
        server.stop();
        deliveries.close();
        triggers.close();
        schedules.close();
        pipelines.close();
        deployments.close();
        connectors.close();
        downloads.close();
        routing.close();
        outboundClient.close();
        studio.close();
        runtime.close();
        changes.close();
        instances.close();
        database.close();
        metrics.close();
        folderLock.ifPresent(DataFolderLock::close);
    }
}
