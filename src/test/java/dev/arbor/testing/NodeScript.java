package dev.arbor.testing;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.json.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** The node scripts of src/test/mcp that take JSON on their input and answer JSON: npm libraries' own word. */
public final class NodeScript {
    private NodeScript() {}

    /** Runs {@code script} (a file of src/test/mcp) on {@code input}; what it printed, read as JSON. */
    public static JsonNode run(String script, JsonNode input) {
        try {
            Process node = new ProcessBuilder(
                            "node",
                            Path.of("src/test/mcp", script).toAbsolutePath().toString())
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            try (var in = node.getOutputStream()) {
                in.write(Json.write(input));
            }
            byte[] out = node.getInputStream().readAllBytes();
            if (node.waitFor() != 0) {
                throw new IllegalStateException(script + " failed: " + new String(out, StandardCharsets.UTF_8));
            }
            return Json.read(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
