package dev.arbor.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * Signs calls with the {@code standardwebhooks} npm library (through {@code src/test/mcp/sign-webhook.cjs}), so that
 * what Arbor verifies is the standard's own signature, not one Arbor made.
 */
public final class StandardWebhookSigner {
    private static final ObjectMapper JSON = new ObjectMapper();

    private StandardWebhookSigner() {}

    /** One call to sign: its secret, {@code webhook-id}, unix seconds and body. */
    public record Call(String secret, String id, long timestamp, String body) {}

    /** The three headers of each call, as name, value pairs for {@link TestServer}, in the calls' order. */
    public static List<String[]> sign(List<Call> calls) {
        ArrayNode cases = JSON.createArrayNode();
        for (Call call : calls) {
            cases.addObject()
                    .put("provider", "standard_webhooks")
                    .put("secret", call.secret())
                    .put("id", call.id())
                    .put("timestamp", call.timestamp())
                    .put("body", call.body());
        }
        JsonNode signed = node(cases);
        return java.util.stream.IntStream.range(0, calls.size())
                .mapToObj(i -> new String[] {
                    "webhook-id", signed.path(i).path("webhook-id").asText(),
                    "webhook-timestamp",
                            signed.path(i).path("webhook-timestamp").asText(),
                    "webhook-signature",
                            signed.path(i).path("webhook-signature").asText()
                })
                .toList();
    }

    public static String[] sign(Call call) {
        return sign(List.of(call)).getFirst();
    }

    private static JsonNode node(JsonNode cases) {
        try {
            Process node = new ProcessBuilder(
                            "node",
                            Path.of("src/test/mcp/sign-webhook.cjs")
                                    .toAbsolutePath()
                                    .toString())
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            try (var in = node.getOutputStream()) {
                in.write(JSON.writeValueAsBytes(cases));
            }
            byte[] out = node.getInputStream().readAllBytes();
            if (node.waitFor() != 0) {
                throw new IllegalStateException("sign-webhook.cjs failed: " + new String(out, StandardCharsets.UTF_8));
            }
            return JSON.readTree(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
