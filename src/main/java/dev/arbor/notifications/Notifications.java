package dev.arbor.notifications;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.db.Database;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.metrics.Deliveries;
import dev.arbor.platform.outbound.OutboundClient;
import dev.arbor.platform.outbound.OutboundPolicy;
import dev.arbor.platform.outbound.OutboundRefusedException;
import dev.arbor.platform.secrets.SecretBox;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Notifications: the channels they go to (admin settings, each channel's secret sealed and never shown) and
 * {@link #send}, which pipelines' Send Notification steps use. Email goes by SMTP; the team chats take a JSON
 * {@code {"text": ...}} at their incoming webhook, through the SSRF-checked outbound client.
 */
public final class Notifications {
    private final ChannelStore store;
    private final OutboundClient outbound;
    private final OutboundPolicy policy;
    private final Deliveries deliveries;

    /** @param meters where deliveries are counted and timed ({@code arbor_deliveries_seconds}) */
    public Notifications(
            Database database,
            SecretBox secrets,
            OutboundClient outbound,
            OutboundPolicy policy,
            Clock clock,
            MeterRegistry meters) {
        this.store = new ChannelStore(database, secrets, clock);
        this.outbound = requireNonNull(outbound, "outbound");
        this.policy = requireNonNull(policy, "policy");
        this.deliveries = new Deliveries(meters, "notifications");
    }

    public void addRoutes(Routes routes) {
        new ChannelRoutes(store, new ChannelSettings(policy), this).addTo(routes);
    }

    /**
     * Sends a message through a channel; {@code recipients} are for email only.
     *
     * @param priority {@code low}, {@code normal} or {@code high}
     */
    public void send(String channel, String message, List<String> recipients, String priority)
            throws NotificationException, InterruptedException {
        Channel to = Channel.of(channel)
                .orElseThrow(() ->
                        new NotificationException("invalid_channel", "There is no channel '" + channel + "'.", false));
        String kind = to == Channel.EMAIL ? "email" : "webhook";
        long started = System.nanoTime();
        try {
            ChannelStore.Configured configured = store.find(to)
                    .orElseThrow(() -> new NotificationException(
                            "channel_not_configured",
                            "The " + channel + " channel is not set up: PUT " + "/notification-channels/" + channel
                                    + " first.",
                            false));
            if (to == Channel.EMAIL) {
                Mail.send(policy, configured.settings(), configured.secret(), message, recipients, priority);
            } else {
                post(configured.secret().orElseThrow(), message, priority);
            }
            deliveries.delivered(kind, started);
        } catch (NotificationException e) {
            deliveries.failed(kind, e.code(), started);
            throw e;
        }
    }

    private void post(String webhook, String message, String priority)
            throws NotificationException, InterruptedException {
        String text = (priority.equals("high") ? "[high] " : "") + message;
        URI uri = URI.create(webhook);
        var request = HttpRequest.newBuilder(uri)
                .timeout(Duration.ofSeconds(30))
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(Json.write(Map.of("text", text))))
                .build();
        HttpResponse<String> response;
        try {
            response = outbound.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (OutboundRefusedException e) {
            throw new NotificationException("url_not_allowed", e.getMessage(), false);
        } catch (IOException e) {
            throw new NotificationException(
                    "delivery_failed",
                    "The chat webhook at " + uri.getHost() + " could not be reached: " + e.getMessage(),
                    true);
        }
        int status = response.statusCode();
        if (status < 200 || status > 299) {
            // the body, not the URL: the URL carries the webhook's token
            String body = response.body();
            throw new NotificationException(
                    "delivery_failed",
                    "The chat webhook at " + uri.getHost() + " answered " + status + ": "
                            + body.substring(0, Math.min(body.length(), 300)),
                    status == 429 || status >= 500);
        }
    }
}
