package dev.arbor.testing;

import java.nio.file.Path;

/** Models added from a folder of this machine, as an admin adds them through the API. */
public final class LocalModels {
    private LocalModels() {}

    /** {@code POST /models} of the folder, named {@code name}, served by {@code engine}. */
    public static HttpReply add(TestServer http, Path folder, String name, String engine, String... headers) {
        return http.post(
                "/models",
                "{\"model_uri\": \"" + folder + "\", \"model_name\": \"" + name
                        + "\", \"model_source\": \"local\", \"engine\": \"" + engine + "\"}",
                headers);
    }
}
