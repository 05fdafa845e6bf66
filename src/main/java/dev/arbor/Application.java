package dev.arbor;

import static java.util.Objects.requireNonNull;

import dev.arbor.clusters.Workloads;
import dev.arbor.console.Console;
import dev.arbor.events.Events;
import dev.arbor.inference.DeploymentDecisions;
import dev.arbor.inference.api.InferenceRoutes;
import dev.arbor.inference.spend.BudgetRoutes;
import dev.arbor.inference.spend.SpendRoutes;
import dev.arbor.inference.steps.RouterRuntime;
import dev.arbor.models.ModelRoutes;
import dev.arbor.platform.actions.Expressions;
import dev.arbor.platform.config.Version;
import dev.arbor.platform.db.ChangeCounters;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.idempotency.Idempotency;
import dev.arbor.platform.http.server.HttpServer;
import dev.arbor.platform.metrics.HttpMetrics;
import dev.arbor.routers.ActiveRouters;
import dev.arbor.triggers.Triggers;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The whole server, made from its configuration in three phases, each a method below: {@link Parts#build} makes
 * every part by hand in dependency order, {@link #registerRoutes} hands each feature the route table, and {@link
 * #startParts} starts the background work in the order it depends on, then serves. {@link #close} stops in reverse.
 */
final class Application implements AutoCloseable {
    private final Config config;
    private final Parts.Foundation foundation;
    private final Parts parts;
    private final Idempotency idempotency;
    private final HttpServer server;

    private Application(Config config, Consumer<Routes> extraRoutes, Clock clock) {
        HttpServer.checkCanListen(config.http());
        this.config = config;
        this.foundation = Parts.Foundation.open(config);
        try {
            this.parts = Parts.build(config, foundation, clock, this::publicUrl);
            Routes routes = registerRoutes(extraRoutes);
            this.idempotency = new Idempotency(
                    foundation.database(), parts.shared().secrets(), foundation.instances(), routes.all(), clock);
            this.server = new HttpServer(
                    config.http(),
                    routes,
                    List.of(parts.access().authenticator()),
                    idempotency,
                    new HttpMetrics(foundation.metrics()),
                    foundation.tracing(),
                    Version.current(),
                    config.storage().dataDir());
        } catch (RuntimeException e) {
            foundation.close();
            throw e;
        }
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
            application.startParts();
        } catch (RuntimeException e) {
            // the timers, workers and schedulers started before the failure would keep the process alive
            application.close();
            throw e;
        }
        return application;
    }

    /**
     * Phase two: every feature's routes, in this order (the OpenAPI document lists them so), then the console's and
     * the caller's.
     */
    private Routes registerRoutes(Consumer<Routes> extraRoutes) {
        var routes = new Routes();
        var shared = parts.shared();
        var models = parts.models();
        var inference = parts.inference();
        var deployments = parts.deploying().deployments();
        var access = parts.access();
        access.addRoutes(routes);
        parts.keys().addRoutes(routes);
        new ModelRoutes(
                        models.models(),
                        models.runtime(),
                        models.downloads(),
                        inference.modelOperations(),
                        shared.streams())
                .addTo(routes);
        new InferenceRoutes(
                        inference.routing(), inference.routers(), deployments, access.currentProject(), routerRuntime())
                .addTo(routes);
        new SpendRoutes(
                        foundation.database(),
                        inference.routing().prices(),
                        access,
                        endpoint -> inference.routing().knows(endpoint)
                                || deployments.find(project -> true, endpoint).stream()
                                        .anyMatch(d -> d.id().equals(endpoint))
                                || deployments.starting(project -> true, endpoint).stream()
                                        .anyMatch(d -> d.id().equals(endpoint)),
                        shared.clock())
                .addTo(routes);
        new BudgetRoutes(
                        inference.routing().budgets(),
                        access,
                        parts.keys()::inProject,
                        (router, project) -> inference.routers().find(project::equals, router).stream()
                                .anyMatch(found -> found.id().equals(router)))
                .addTo(routes);
        parts.studio()
                .addRoutes(
                        routes,
                        new DeploymentDecisions(
                                deployments,
                                shared.rateLimits(),
                                inference.hop(),
                                access,
                                config.http().studioApiKey()));
        parts.automation().notifications().addRoutes(routes);
        parts.automation().connectors().addRoutes(routes);
        // the credentials' and deployments' deletes ask the routers first whether one uses them
        inference.credentials().addRoutes(routes, inference.routers());
        inference.routers().addRoutes(routes);
        parts.deploying().clusters().addRoutes(routes);
        deployments.addRoutes(routes, inference.routers());
        parts.automation().pipelines().addRoutes(routes);
        parts.automation().schedules().addRoutes(routes);
        parts.events().triggers().addRoutes(routes);
        new Events(parts.events().connections(), parts.events().triggers(), access, this::publicUrl, shared.clock())
                .addRoutes(routes);
        parts.events().deliveries().addRoutes(routes);
        parts.audit().addRoutes(routes);
        new Console().addTo(routes);
        extraRoutes.accept(routes);
        // last: every write of every feature, the caller's included, is audited
        parts.audit().auditWrites(routes);
        return routes;
    }

    /** What a router's steps run on: the routing, the routers' plans, credentials, deployments and studio decisions. */
    private RouterRuntime routerRuntime() {
        var inference = parts.inference();
        return new RouterRuntime(
                inference.routing(),
                inference.routers(),
                parts.models().models()::providerModel,
                inference.credentials()::open,
                parts.deploying().deployments(),
                parts.studio()::decideForRouter,
                new Expressions(),
                parts.shared().rateLimits(),
                parts.shared().clock(),
                new RouterRuntime.Steps(inference.answerCache(), inference.routers()));
    }

    /** Phase three: the background work, each part after those it needs, then the idempotency keys, then serving. */
    private void startParts() {
        var automation = parts.automation();
        var events = parts.events();
        var deployments = parts.deploying().deployments();
        parts.models().runtime().start();
        // registered before the studio recovers: what this server makes is its own from the first decision
        foundation.instances().start();
        parts.studio().start();
        automation.pipelines().start();
        // after the pipelines: a schedule's firing, a missed one made up at once included, starts a run
        automation.schedules().start();
        parts.inference().routing().start();
        // after the studio: its start forgets the servers that stopped, whose local deployments this one takes
        deployments.start();
        // the request path reads routers and deployments from memory: other servers' changes reach it here
        foundation.changes().watch(ChangeCounters.Table.DEPLOYMENTS, deployments::reload);
        foundation
                .changes()
                .watch(ChangeCounters.Table.ROUTERS, parts.inference().routers()::reload);
        // cloud models and prices too: a model or price set on one server is used by every other one
        foundation.changes().watch(ChangeCounters.Table.MODELS, parts.models().models()::reload);
        foundation
                .changes()
                .watch(
                        ChangeCounters.Table.MODEL_PRICES,
                        parts.inference().routing().prices()::reload);
        foundation.changes().start();
        // after the pipelines: a delivery may start a run
        events.triggers().start();
        automation.connectors().start();
        events.deliveries().start();
        parts.audit().start();
        idempotency.start();
        server.start();
        foundation.instances().advertise(internalUrl());
    }

    /** Where providers reach this server: {@code ARBOR_PUBLIC_URL}, else the address it listens on. */
    private String publicUrl() {
        return config.publicUrl().orElseGet(() -> {
            String host = Set.of("0.0.0.0", "::", "").contains(config.http().host())
                    ? "localhost"
                    : config.http().host();
            // the configured port is known before the server listens (work resumed at start-up may need the
            // address); only "any free port" (0) waits for the listening server to say which
            int port = config.http().port() != 0 ? config.http().port() : port();
            return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        });
    }

    /**
     * Where other servers of the database reach this one: the address it listens on, as the machine's own address
     * when it listens on every interface (a load balancer's {@code ARBOR_PUBLIC_URL} would send a request back to
     * any server).
     */
    private URI internalUrl() {
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

    public int port() {
        return server.port();
    }

    HttpServer server() {
        return server;
    }

    /** Runs the history sweep now, as the hourly timer would. */
    void sweepHistory() {
        parts.studio().sweep();
    }

    /** Deletes the audit log's rows past their retention now, as the hour's timer would; how many. */
    int pruneAuditLog() {
        return parts.audit().prune();
    }

    /** Refreshes the OAuth tokens about to expire now, as the minute's timer would. */
    void refreshOAuthTokens() {
        parts.automation().connectors().refreshOAuthTokens();
    }

    /** The active routers inference requests may name: what the routing runtime reads. */
    ActiveRouters activeRouters() {
        return parts.inference().routers();
    }

    /** A deployment's objects on the Kubernetes clusters of the registry. */
    Workloads workloads() {
        return parts.deploying().workloads();
    }

    /** What verified events go to: the triggers (until the webhook ingest hands them events, tests do). */
    Triggers triggers() {
        return parts.events().triggers();
    }

    /**
     * Ends event streams, drains requests in flight, stops pipeline runs (they go on after a restart), downloads,
     * background decisions and model workers, then the database.
     */
    @Override
    public void close() {
        parts.shared().streams().stop();
        server.stop();
        parts.events().deliveries().close();
        parts.events().triggers().close();
        parts.automation().schedules().close();
        parts.automation().pipelines().close();
        parts.deploying().deployments().close();
        parts.automation().connectors().close();
        parts.models().downloads().close();
        parts.inference().routing().close();
        parts.inference().routers().close();
        parts.shared().outboundClient().close();
        parts.studio().close();
        parts.models().runtime().close();
        parts.audit().close();
        foundation.close();
    }
}
