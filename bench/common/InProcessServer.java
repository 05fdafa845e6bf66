package common;

import dev.arbor.Application;
import dev.arbor.Config;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An Arbor server in the bench's own process: a fresh data folder, SQLite there or the PostgreSQL named, warnings
 * only in the log. {@code jdbc} is its database, for the raw commit rate measured beside it; {@code data} its folder.
 */
public record InProcessServer(Application app, Path data, String base, String jdbc) implements AutoCloseable {
    /**
     * Starts one for the bench {@code name}, with {@code settings} beside the defaults.
     *
     * @param postgres a {@code jdbc:postgresql://} URL, or null for SQLite
     */
    public static InProcessServer start(String name, String postgres, Map<String, String> settings) throws IOException {
        Path data = Files.createTempDirectory("arbor-" + name + "-bench-");
        var env = new HashMap<>(Map.of("ARBOR_DATA", data.toString(), "ARBOR_PORT", "0", "ARBOR_LOG_LEVEL", "WARN"));
        env.putAll(settings);
        if (postgres != null) {
            env.put("ARBOR_DATABASE_URL", postgres);
        }
        var app = Application.start(Config.load(env, List.of()));
        return new InProcessServer(
                app,
                data,
                "http://127.0.0.1:" + app.port(),
                postgres != null ? postgres : "jdbc:sqlite:" + data.resolve("arbor.db"));
    }

    @Override
    public void close() {
        app.close();
    }
}
