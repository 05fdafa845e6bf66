package dev.arbor;

import dev.arbor.access.Access;
import dev.arbor.audit.AuditLog;
import dev.arbor.clusters.Clusters;
import dev.arbor.clusters.KubernetesWorkloads;
import dev.arbor.clusters.Workloads;
import dev.arbor.connectors.Connectors;
import dev.arbor.credentials.Credentials;
import dev.arbor.deployments.Deployments;
import dev.arbor.events.EventConnections;
import dev.arbor.events.deliveries.Deliveries;
import dev.arbor.inference.EndpointDirectory;
import dev.arbor.inference.Routing;
import dev.arbor.inference.ServerHop;
import dev.arbor.inference.cache.AnswerCache;
import dev.arbor.inference.spend.KeySpendReport;
import dev.arbor.keys.Keys;
import dev.arbor.models.Downloads;
import dev.arbor.models.ModelOperations;
import dev.arbor.models.ModelSettings;
import dev.arbor.models.Models;
import dev.arbor.models.runtime.ModelRuntime;
import dev.arbor.notifications.Notifications;
import dev.arbor.pipelines.Pipelines;
import dev.arbor.pipelines.schedules.Schedules;
import dev.arbor.platform.config.ConfigException;
import dev.arbor.platform.config.OwnerOnly;
import dev.arbor.platform.config.StorageSettings;
import dev.arbor.platform.db.ChangeCounters;
import dev.arbor.platform.db.DataFolderLock;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.http.EventStreams;
import dev.arbor.platform.instances.ServerInstances;
import dev.arbor.platform.metrics.Metrics;
import dev.arbor.platform.outbound.OutboundClient;
import dev.arbor.platform.outbound.OutboundPolicy;
import dev.arbor.platform.ratelimits.RateLimiter;
import dev.arbor.platform.ratelimits.RateLimiters;
import dev.arbor.platform.references.Referrers;
import dev.arbor.platform.secrets.SecretBox;
import dev.arbor.platform.tracing.Tracing;
import dev.arbor.routers.Routers;
import dev.arbor.studio.Studio;
import dev.arbor.triggers.Triggers;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Every part of the server, grouped by feature, each group made by hand from the groups before it (constructors, no
 * injection, no reflection). Making a part starts nothing: {@link Application} registers the routes, then starts the
 * parts that work in the background, in the order they depend on each other.
 */
record Parts(
        Shared shared,
        Access access,
        Keys keys,
        ModelParts models,
        Studio studio,
        DeploymentParts deploying,
        InferenceParts inference,
        PipelineParts automation,
        EventParts events,
        AuditLog audit) {

    /** Phase one of {@link Application}: builds every part on the foundation, in dependency order. */
    static Parts build(Config config, Foundation foundation, Clock clock, Supplier<String> publicUrl) {
        var shared = Shared.build(config, foundation, clock, publicUrl);
        var access = new Access(foundation.database(), clock, config.adminToken());
        var keys = new Keys(foundation.database(), clock, access);
        access.acceptInferenceKeys(keys);
        var models = ModelParts.build(config, foundation, shared);
        var studio = new Studio(
                foundation.database(),
                clock,
                models.models(),
                models.runtime(),
                foundation.instances(),
                config.storage().dataDir(),
                shared.secrets().derive("studio-hmac"),
                shared.meters());
        var deploying = DeploymentParts.build(config, foundation, shared, access, models);
        var inference = InferenceParts.build(config, foundation, shared, access, models, studio, deploying);
        keys.acceptSpending(
                new KeySpendReport(foundation.database(), inference.routing().budgets(), clock));
        var automation = PipelineParts.build(config, foundation, shared, access, inference, deploying);
        var events = EventParts.build(config, foundation, shared, access, automation);
        var audit = new AuditLog(foundation.database(), access, clock, config.auditRetention());
        return new Parts(shared, access, keys, models, studio, deploying, inference, automation, events, audit);
    }

    /**
     * What the rest stands on, opened before any part and closed after them all: on SQLite this server's claim on
     * the data folder (PostgreSQL replicas may share a folder), the database, metrics, tracing, this server's registration
     * and the counters through which other servers' changes reach this one.
     */
    record Foundation(
            Optional<DataFolderLock> folderLock,
            Database database,
            Metrics metrics,
            Tracing tracing,
            ServerInstances instances,
            ChangeCounters changes) {

        static Foundation open(Config config) {
            StorageSettings storage = config.storage();
            OwnerOnly.folder(storage.dataDir());
            var folderLock = DataFolderLock.forSqlite(storage, "serve");
            Database database;
            try {
                database = Database.open(storage);
            } catch (RuntimeException e) {
                folderLock.ifPresent(DataFolderLock::close);
                throw e;
            }
            var metrics = new Metrics();
            Tracing tracing;
            try {
                tracing = Tracing.start(config.tracing(), metrics.registry());
            } catch (IllegalArgumentException e) {
                database.close();
                folderLock.ifPresent(DataFolderLock::close);
                throw new ConfigException("tracing: " + e.getMessage());
            }
            if (tracing.enabled() && config.tracing().statementSpans()) {
                database.traceStatements();
            }
            var instances = new ServerInstances(database, storage.dataDir(), config.heartbeat());
            return new Foundation(folderLock, database, metrics, tracing, instances, new ChangeCounters(database));
        }

        void close() {
            // first: the spans of the requests and work that just ended leave before anything else stops
            tracing.close();
            changes.close();
            instances.close();
            database.close();
            metrics.close();
            folderLock.ifPresent(DataFolderLock::close);
        }
    }

    /**
     * What the features share: the secrets, the outbound policy and its client, rate limits, the event streams, the
     * meters, the clock, and where providers reach this server.
     */
    record Shared(
            SecretBox secrets,
            OutboundPolicy outbound,
            OutboundClient outboundClient,
            RateLimiter rateLimits,
            EventStreams streams,
            MeterRegistry meters,
            Clock clock,
            Supplier<String> publicUrl) {

        static Shared build(Config config, Foundation foundation, Clock clock, Supplier<String> publicUrl) {
            var meters = foundation.metrics().registry();
            foundation.database().recordMetrics(meters);
            // opened now so that a wrong ARBOR_SECRET_KEY stops the server at start, not at the first secret
            var secrets = SecretBox.forStorage(config.storage());
            var outbound = new OutboundPolicy(config.outboundAllow());
            return new Shared(
                    secrets,
                    outbound,
                    new OutboundClient(outbound),
                    RateLimiters.forDatabase(foundation.database(), clock),
                    new EventStreams(),
                    meters,
                    clock,
                    publicUrl);
        }
    }

    /** The model registry, the workers that run local models, and the downloads that fill the registry. */
    record ModelParts(Models models, ModelRuntime runtime, Downloads downloads) {

        static ModelParts build(Config config, Foundation foundation, Shared shared) {
            ModelSettings settings = config.models();
            var models = new Models(settings.testModels(), foundation.database(), shared.secrets(), shared.clock());
            ModelRuntime.Settings defaults = ModelRuntime.Settings.DEFAULT;
            var runtime = new ModelRuntime(
                    models,
                    config.storage().dataDir(),
                    defaults.with(settings.autoLoad(), settings.loadTimeout(), settings.timeout())
                            .withEjection(
                                    settings.idle(),
                                    settings.memoryMb().map(mb -> mb << 20).orElse(defaults.memoryBudget())),
                    shared.meters());
            var downloads = new Downloads(
                    models,
                    shared.outboundClient(),
                    config.storage().dataDir(),
                    settings.hubUrl(),
                    settings.downloads());
            return new ModelParts(models, runtime, downloads);
        }
    }

    /** The clusters, what runs on Kubernetes ones, and the deployments of models on them. */
    record DeploymentParts(Clusters clusters, Workloads workloads, Deployments deployments) {

        static DeploymentParts build(
                Config config, Foundation foundation, Shared shared, Access access, ModelParts models) {
            var database = foundation.database();
            var clusters = new Clusters(
                    database,
                    shared.secrets(),
                    shared.outbound(),
                    Deployments.onCluster(database),
                    config.clusters(),
                    config.storage().dataDir(),
                    shared.clock());
            var workloads = new KubernetesWorkloads(clusters, config.clusters());
            var deployments = new Deployments(
                    database,
                    shared.clock(),
                    access,
                    models.models(),
                    clusters,
                    workloads,
                    models.runtime()::replicas,
                    foundation.instances(),
                    shared.streams(),
                    shared.publicUrl());
            return new DeploymentParts(clusters, workloads, deployments);
        }
    }

    /**
     * The request path: credentials for cloud models, routing to endpoints, the routers, and the model operations
     * that ask the routers and deployments before deleting a model one of them uses.
     */
    record InferenceParts(
            Credentials credentials,
            ServerHop hop,
            Routing routing,
            Routers routers,
            ModelOperations modelOperations,
            AnswerCache answerCache) {

        static InferenceParts build(
                Config config,
                Foundation foundation,
                Shared shared,
                Access access,
                ModelParts models,
                Studio studio,
                DeploymentParts deploying) {
            var database = foundation.database();
            var clock = shared.clock();
            var deployments = deploying.deployments();
            var credentials = new Credentials(database, shared.secrets(), clock);
            var hop = new ServerHop(
                    shared.secrets().derive("server-hop"),
                    foundation.instances().id(),
                    clock);
            var routing = new Routing(
                    EndpointDirectory.of(models.models()::remoteEndpoint, deployments),
                    shared.outboundClient(),
                    shared.rateLimits(),
                    database,
                    config.routing(),
                    hop,
                    clock,
                    shared.meters());
            // a semantic cache step embeds the request's last message with a bundled embedding model
            var answerCache = new AnswerCache(
                    database,
                    (model, text) -> models.runtime()
                            .embed(model, List.of(text))
                            .vectors()
                            .getFirst(),
                    clock);
            var routers = new Routers(
                    database,
                    clock,
                    access,
                    models.models(),
                    credentials,
                    deploying.clusters(),
                    (inProject, ref) ->
                            deployments.find(inProject, ref).stream().anyMatch(d -> d.id().equals(ref)),
                    studio,
                    routing.telemetry(),
                    answerCache,
                    shared.meters());
            var modelOperations = new ModelOperations(
                    models.models(),
                    models.runtime(),
                    models.downloads(),
                    shared.outbound(),
                    Referrers.all(List.of(routers, deployments)));
            return new InferenceParts(credentials, hop, routing, routers, modelOperations, answerCache);
        }
    }

    /** Notifications, connector gateways, pipelines and their schedules. */
    record PipelineParts(Notifications notifications, Connectors connectors, Pipelines pipelines, Schedules schedules) {

        static PipelineParts build(
                Config config,
                Foundation foundation,
                Shared shared,
                Access access,
                InferenceParts inference,
                DeploymentParts deploying) {
            var database = foundation.database();
            var clock = shared.clock();
            var secrets = shared.secrets();
            var notifications = new Notifications(
                    database, secrets, shared.outboundClient(), shared.outbound(), clock, shared.meters());
            var connectors = new Connectors(
                    database,
                    secrets,
                    access,
                    shared.outbound(),
                    shared.outboundClient(),
                    config.connectors(),
                    shared.meters(),
                    shared.rateLimits(),
                    shared.publicUrl(),
                    clock);
            var pipelines = new Pipelines(
                    database,
                    clock,
                    shared.outboundClient(),
                    notifications,
                    inference.modelOperations(),
                    inference.credentials(),
                    deploying.clusters(),
                    deploying.deployments(),
                    shared.streams(),
                    shared.meters(),
                    secrets,
                    shared.publicUrl(),
                    foundation.tracing());
            var schedules = new Schedules(database, pipelines, clock);
            return new PipelineParts(notifications, connectors, pipelines, schedules);
        }
    }

    /** Providers' event connections, the triggers their events fire, and the webhook deliveries that carry them. */
    record EventParts(EventConnections connections, Triggers triggers, Deliveries deliveries) {

        static EventParts build(
                Config config, Foundation foundation, Shared shared, Access access, PipelineParts automation) {
            var database = foundation.database();
            var connections = new EventConnections(database, shared.secrets());
            var triggers = new Triggers(
                    database,
                    shared.secrets(),
                    connections,
                    automation.pipelines(),
                    access,
                    shared.outbound(),
                    shared.outboundClient(),
                    config.triggerRetryDelays(),
                    shared.meters(),
                    shared.clock());
            var deliveries = new Deliveries(
                    database,
                    connections,
                    triggers,
                    access,
                    shared.publicUrl(),
                    config.deliveries(),
                    shared.rateLimits(),
                    shared.meters(),
                    shared.clock(),
                    foundation.tracing());
            return new EventParts(connections, triggers, deliveries);
        }
    }
}
