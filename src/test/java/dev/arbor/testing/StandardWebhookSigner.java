package dev.arbor.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.arbor.platform.json.Json;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Signs calls with the {@code standardwebhooks} npm library (through {@code src/test/mcp/sign-webhook.cjs}), so that
 * what Arbor verifies is the standard's own signature, not one Arbor made.
 */
public final class StandardWebhookSigner {
    private StandardWebhookSigner() {}

    /** One call to sign: its secret, {@code webhook-id}, unix seconds and body. */
    public record Call(String secret, String id, long timestamp, String body) {}

    /** The three headers of each call, as name, value pairs for {@link TestServer}, in the calls' order. */
    public static List<String[]> sign(List<Call> calls) {
        ArrayNode cases = Json.mapper().createArrayNode();
        for (Call call : calls) {
            cases.addObject()
                    .put("provider", "standard_webhooks")
                    .put("secret", call.secret())
                    .put("id", call.id())
                    .put("timestamp", call.timestamp())
                    .put("body", call.body());
        }
        JsonNode signed = WebhookSigner.sign(cases);
        return IntStream.range(0, calls.size())
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
}
