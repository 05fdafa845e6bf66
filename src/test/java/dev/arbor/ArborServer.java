package dev.arbor;

import dev.arbor.platform.config.Config;
import dev.arbor.platform.http.Routes;
import dev.arbor.testing.TestServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
        try {
            Path data = Files.createTempDirectory("arbor-test-");
            var all = new HashMap<String, String>();
            all.put("ARBOR_DATA", data.toString());
            all.put("ARBOR_PORT", "0");
            all.putAll(env);
            return new ArborServer(Application.start(Config.load(all, List.of()), extraRoutes), data);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public TestServer http() {
        return client;
    }

    public Application application() {
        return application;
    }

    public Path dataDir() {
        return dataDir;
    }

    @Override
    public void close() {
        application.close();
    }
}
