package dev.arbor;

import dev.arbor.clusters.Workloads;
import dev.arbor.events.EventSubscribers;
import dev.arbor.platform.http.Route;
import dev.arbor.platform.http.Routes;
import dev.arbor.routers.ActiveRouters;
import dev.arbor.testing.TempFolders;
import dev.arbor.testing.TestServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/** The real server on a free port with a temporary data folder, for tests. */
public final class ArborServer implements AutoCloseable {
    private final Application application;
    private final TestServer client;
    /**
     * The data folders made for test servers, removed when the test run ends rather than when a server closes: tests
     * start a second server on the first one's folder to see what survives a restart.
     */
    private static final Set<Path> MADE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> MADE.forEach(TempFolders::deleteQuietly)));
    }

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
        try {
            Path data = Files.createTempDirectory("arbor-test-");
            MADE.add(data);
            var all = new HashMap<String, String>();
            all.put("ARBOR_DATA", data.toString());
            all.put("ARBOR_PORT", "0");
            all.putAll(env);
            return new ArborServer(
                    Application.start(Config.load(all, List.of()), extraRoutes, clock), Path.of(all.get("ARBOR_DATA")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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
