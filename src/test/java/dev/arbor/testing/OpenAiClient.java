package dev.arbor.testing;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.json.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The official OpenAI client (the npm {@code openai} package, through {@code src/test/mcp/openai-client.cjs}) calling
 * a server: chat, a stream read chunk by chunk, embeddings; an error comes back as the client raised it.
 */
public final class OpenAiClient implements AutoCloseable {
    private final Process node;
    private final BufferedReader lines;

    private OpenAiClient(Process node) {
        this.node = node;
        this.lines = new BufferedReader(new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8));
    }

    /**
     * Starts one call; its results are read with {@link #next()}.
     *
     * @param operation {@code chat}, {@code stream} or {@code embeddings}
     */
    public static OpenAiClient start(String operation, String baseUrl, String token, String model) {
        try {
            var builder = new ProcessBuilder(
                            "node",
                            Path.of("src/test/mcp/openai-client.cjs")
                                    .toAbsolutePath()
                                    .toString(),
                            operation,
                            baseUrl,
                            model)
                    .redirectError(ProcessBuilder.Redirect.INHERIT);
            builder.environment().put("ARBOR_TOKEN", token);
            return new OpenAiClient(builder.start());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One call, all its result lines. */
    public static List<JsonNode> call(String operation, String baseUrl, String token, String model) {
        try (var client = start(operation, baseUrl, token, model)) {
            var all = new ArrayList<JsonNode>();
            for (JsonNode line = client.next(); line != null; line = client.next()) {
                all.add(line);
            }
            return all;
        }
    }

    /** The next result line as it is printed (blocks until then); null at the end. */
    public JsonNode next() {
        try {
            String line = lines.readLine();
            return line == null ? null : Json.read(line);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        node.destroy();
    }
}
