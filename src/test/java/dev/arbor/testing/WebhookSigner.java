package dev.arbor.testing;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.http.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Signs webhook deliveries as each provider does, with the provider's own npm library where it publishes one that
 * signs (sign-webhook.cjs, run once by node for all the cases given).
 */
public final class WebhookSigner {
    private WebhookSigner() {}

    /**
     * @param cases an array of {@code {provider, secret, body, timestamp, id, url, params}}
     * @return an array of the headers each case is sent with, in order
     */
    public static JsonNode sign(JsonNode cases) {
        try {
            Process node = new ProcessBuilder(
                            "node",
                            Path.of("src/test/mcp/sign-webhook.cjs")
                                    .toAbsolutePath()
                                    .toString())
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            try (var in = node.getOutputStream()) {
                in.write(Json.write(cases));
            }
            byte[] out = node.getInputStream().readAllBytes();
            if (node.waitFor() != 0) {
                throw new IllegalStateException("sign-webhook.cjs failed: " + new String(out, StandardCharsets.UTF_8));
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
