package dev.arbor.testing;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.json.Json;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A GitHub connection's webhook as tests post to it: deliveries of an {@code issues.opened} event signed by GitHub's
 * own library (through {@link WebhookSigner}), each with the delivery id given.
 *
 * @param connectionId the shared connection's id
 * @param path the path of its webhook URL
 * @param secret its signing secret
 */
public record GitHubHook(String connectionId, String path, String secret) {
    /** An {@code issues.opened} payload, as GitHub sends it (shortened). */
    public static final String ISSUE_OPENED = "{\"action\": \"opened\", \"issue\": {\"number\": 1347, "
            + "\"title\": \"Found a bug\"}, \"repository\": {\"name\": \"hello-world\"}}";

    /** A new GitHub connection shared with {@code projectId}, made with the admin headers given. */
    public static GitHubHook connect(TestServer http, String projectId, String... adminHeaders) {
        String secret = "secret-" + UUID.randomUUID();
        HttpReply created = http.post(
                "/events/shared-connections",
                "{\"provider\": \"github\", \"credentials\": {\"signing_secret\": \"" + secret
                        + "\"}, \"project_ids\": [\"" + projectId + "\"]}",
                adminHeaders);
        if (created.status() != 201) {
            throw new AssertionError("creating a GitHub connection: " + created.body());
        }
        return new GitHubHook(
                created.json().path("id").asText(),
                URI.create(created.json().path("webhook_url").asText()).getPath(),
                secret);
    }

    /** Posts {@link #ISSUE_OPENED} signed, with GitHub's delivery id {@code deliveryId}. */
    public HttpReply deliver(TestServer http, String deliveryId) {
        ArrayNode cases = Json.mapper().createArrayNode();
        ObjectNode one = cases.addObject()
                .put("provider", "github")
                .put("secret", secret)
                .put("body", ISSUE_OPENED)
                .put("timestamp", System.currentTimeMillis() / 1000)
                .put("id", deliveryId)
                .put("url", "http://localhost" + path);
        one.set("params", Json.object());
        var headers = new ArrayList<String>();
        WebhookSigner.sign(cases).path(0).properties().forEach(h -> {
            headers.add(h.getKey());
            headers.add(h.getValue().asText());
        });
        headers.addAll(List.of(
                "Content-Type", "application/json", "X-GitHub-Event", "issues", "X-GitHub-Delivery", deliveryId));
        return http.post(path, ISSUE_OPENED, headers.toArray(String[]::new));
    }
}
