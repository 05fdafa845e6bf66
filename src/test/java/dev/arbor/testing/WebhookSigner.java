package dev.arbor.testing;

import com.fasterxml.jackson.databind.JsonNode;

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
        return NodeScript.run("sign-webhook.cjs", cases);
    }
}
