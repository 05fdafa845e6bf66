package dev.arbor.triggers;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.metrics.Deliveries;
import dev.arbor.platform.outbound.OutboundClient;
import dev.arbor.platform.outbound.OutboundRefusedException;
import dev.arbor.platform.webhooks.StandardWebhookSignature;
import dev.arbor.triggers.Trigger.Target;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;

/**
 * Posts an event to a trigger's URL through the outbound client (its policy applies to the URL and every redirect),
 * signed with Standard Webhooks: {@code webhook-id} is the firing's id, so a receiver sees a retried delivery as the
 * same message. While a rotated-out secret is still valid, its signature goes beside the new one.
 */
final class UrlDelivery {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final int EXCERPT = 300;

    /** What one attempt came to. */
    sealed interface Result {
        /** The URL answered 2xx. */
        record Delivered(int status) implements Result {}

        /** The URL answered something else; a later attempt may do better. */
        record Refused(int status, String error) implements Result {}

        /** The URL could not be reached; a later attempt may reach it. */
        record Unreachable(String error) implements Result {}

        /** The outbound policy refuses the URL: no attempt will be allowed. */
        record NotAllowed(String error) implements Result {}
    }

    private final OutboundClient client;
    private final Deliveries metrics;

    UrlDelivery(OutboundClient client, Deliveries metrics) {
        this.client = requireNonNull(client, "client");
        this.metrics = requireNonNull(metrics, "metrics");
    }

    Result post(Target.Url target, String messageId, byte[] body, Instant now) throws InterruptedException {
        long started = System.nanoTime();
        URI uri = URI.create(target.url());
        long seconds = now.getEpochSecond();
        String signature = StandardWebhookSignature.header(target.secret(), messageId, seconds, body);
        if (target.previous().filter(p -> p.expiresAt().isAfter(now)).isPresent()) {
            signature += " "
                    + StandardWebhookSignature.header(target.previous().get().secret(), messageId, seconds, body);
        }
        var request = HttpRequest.newBuilder(uri)
                .timeout(TIMEOUT)
                .header("content-type", "application/json")
                .header("user-agent", "Arbor-Triggers")
                .header("webhook-id", messageId)
                .header("webhook-timestamp", Long.toString(seconds))
                .header("webhook-signature", signature)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
        Result result = send(request, uri);
        switch (result) {
            case Result.Delivered delivered -> metrics.delivered("webhook", started);
            case Result.Refused refused -> metrics.failed("webhook", "http_status", started);
            case Result.Unreachable unreachable -> metrics.failed("webhook", "unreachable", started);
            case Result.NotAllowed notAllowed -> metrics.failed("webhook", "url_not_allowed", started);
        }
        return result;
    }

    private Result send(HttpRequest request, URI uri) throws InterruptedException {
        try {
            HttpResponse<InputStream> response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
            byte[] excerpt;
            try (InputStream in = response.body()) {
                excerpt = in.readNBytes(EXCERPT);
            }
            int status = response.statusCode();
            if (status >= 200 && status <= 299) {
                return new Result.Delivered(status);
            }
            // the host, not the URL: a URL may carry a token
            return new Result.Refused(
                    status, uri.getHost() + " answered " + status + ": " + new String(excerpt, StandardCharsets.UTF_8));
        } catch (OutboundRefusedException e) {
            return new Result.NotAllowed("The URL may not be called: " + e.getMessage() + ".");
        } catch (IOException e) {
            return new Result.Unreachable(uri.getHost() + " could not be reached: " + e);
        }
    }
}
