package dev.arbor;

import dev.arbor.clusters.Workloads;
import dev.arbor.events.EventSubscribers;
import dev.arbor.platform.http.Route;
import dev.arbor.platform.http.Routes;
import dev.arbor.routers.ActiveRouters;
import dev.arbor.testing.TempFolders;
import dev.arbor.testing.TestServer;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/** The real server on a free port with a temporary data folder, for tests. */
public final class ArborServer implements AutoCloseable {
    private final Application application;
    private final TestServer client;
    private final Path dataDir;

    private ArborServer(Application application, Path dataDir) {
        this.application = application;
        this.dataDir = dataDir;
        this.client = new TestServer(application.port());
    }

    public static ArborServer start(Map<String, String> env) {
        return start(env, routes -> {});
    }

    public static ArborServer start(Map<String, String> env, Consumer<Routes> extraRoutes) {
        return start(env, extraRoutes, Clock.systemUTC());
    }

    /** A server whose idea of the time is {@code clock}, for what time does: retention, expiry. */
    public static ArborServer start(Map<String, String> env, Clock clock) {
        return start(env, routes -> {}, clock);
    }

    private static ArborServer start(Map<String, String> env, Consumer<Routes> extraRoutes, Clock clock) {
        // removed when the test class ends rather than when the server closes: tests start a second server on the
        // first one's folder to see what survives a restart
        Path data = TempFolders.newFolder("arbor-test-");
        var all = new HashMap<String, String>();
        all.put("ARBOR_DATA", data.toString());
        all.put("ARBOR_PORT", "0");
        // a test server's request lines (INFO) would be nearly all of the suite's output; its other log lines stay,
        // and -Darbor.test.log-level=INFO brings the request lines back to read a failing test's requests
        all.put("ARBOR_LOG_LEVEL", System.getProperty("arbor.test.log-level", "WARN"));
        all.putAll(env);
        return new ArborServer(
                Application.start(Config.load(all, List.of()), extraRoutes, clock), Path.of(all.get("ARBOR_DATA")));
    }

    /** A deployment's objects on Kubernetes clusters, which no part of the server uses yet. */
    public Workloads workloads() {
        return application.workloads();
    }

    public TestServer http() {
        return client;
    }

    public Application application() {
        return application;
    }

    /** The server's route table, as it registers its routes and describes them. */
    public List<Route> routes() {
        return application.server().routes();
    }

    /** Deletes the audit log's rows past their retention now; how many. */
    public int pruneAuditLog() {
        return application.pruneAuditLog();
    }

    /** Runs the history sweep now. */
    public void sweep() {
        application.sweepHistory();
    }

    /** Refreshes the OAuth tokens about to expire now, as the minute's timer would. */
    public void refreshOAuthTokens() {
        application.refreshOAuthTokens();
    }

    /** What verified events go to: tests hand the triggers events through it. */
    public EventSubscribers subscribers() {
        return application.triggers();
    }

    /** The active routers, as the routing runtime reads them. */
    public ActiveRouters activeRouters() {
        return application.activeRouters();
    }

    public Path dataDir() {
        return dataDir;
    }

    /** Stops the server, then closes its client. */
    @Override
    public void close() {
        try {
            application.close();
        } finally {
            client.close();
        }
    }
}
