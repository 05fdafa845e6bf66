package dev.arbor.notifications;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.access.Access;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.http.ApiException;
import dev.arbor.platform.http.ErrorCode;
import dev.arbor.platform.http.Json;
import dev.arbor.platform.http.Problems;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.metrics.Deliveries;
import dev.arbor.platform.outbound.OutboundClient;
import dev.arbor.platform.outbound.OutboundPolicy;
import dev.arbor.platform.outbound.OutboundRefusedException;
import dev.arbor.platform.secrets.SecretBox;
import io.javalin.http.Context;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Notifications: the channels they go to (admin settings, each channel's secret sealed and never shown) and
 * {@link #send}, which pipelines' Send Notification steps use. Email goes by SMTP; the team chats take a JSON
 * {@code {"text": ...}} at their incoming webhook, through the SSRF-checked outbound client.
 */
public final class Notifications {
    private static final Set<String> EMAIL_FIELDS = Set.of("smtp_host", "smtp_port", "security", "username",
            "password", "from");
    private static final Set<String> CHAT_FIELDS = Set.of("webhook_url", "name");

    private final ChannelStore store;
    private final OutboundClient outbound;
    private final OutboundPolicy policy;
    private final Deliveries deliveries;

    /** @param meters where deliveries are counted and timed ({@code arbor_deliveries_seconds}) */
    public Notifications(Database database, SecretBox secrets, OutboundClient outbound, OutboundPolicy policy,
                         Clock clock, MeterRegistry meters) {
        this.store = new ChannelStore(database, secrets, clock);
        this.outbound = requireNonNull(outbound, "outbound");
        this.policy = requireNonNull(policy, "policy");
        this.deliveries = new Deliveries(meters, "notifications");
    }

    public void addRoutes(Routes routes) {
        routes.group("notifications")
                .get("/notification-channels", "The notification channels and whether each is set up", this::list)
                .ok(ApiShapes.CHANNELS)
                .get("/notification-channels/{channel}", "A channel's settings (its secret never shown)", this::get)
                .ok(ApiShapes.CHANNEL)
                .put("/notification-channels/{channel}", "Set up a channel: SMTP for email, an incoming webhook for "
                        + "a team chat", this::put)
                .body(ApiShapes.SETTINGS).ok(ApiShapes.CHANNEL)
                .delete("/notification-channels/{channel}", "Remove a channel's settings", this::delete)
                .ok(ApiShapes.DELETED)
                .post("/notification-channels/{channel}/test", "Send a test notification through a channel",
                        this::test)
                .body(ApiShapes.TEST).ok(ApiShapes.TEST_RESULT);
    }

    /**
     * Sends a message through a channel; {@code recipients} are for email only.
     *
     * @param priority {@code low}, {@code normal} or {@code high}
     */
    public void send(String channel, String message, List<String> recipients, String priority)
            throws NotificationException, InterruptedException {
        Channel to = Channel.of(channel).orElseThrow(() -> new NotificationException("invalid_channel",
                "There is no channel '" + channel + "'.", false));
        String kind = to == Channel.EMAIL ? "email" : "webhook";
        long started = System.nanoTime();
        try {
            ChannelStore.Configured configured = store.find(to).orElseThrow(() -> new NotificationException(
                    "channel_not_configured", "The " + channel + " channel is not set up: PUT "
                    + "/notification-channels/" + channel + " first.", false));
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

    private void post(String webhook, String message, String priority) throws NotificationException,
            InterruptedException {
        String text = (priority.equals("high") ? "[high] " : "") + message;
        URI uri = URI.create(webhook);
        var request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(Json.write(Map.of("text", text)))).build();
        HttpResponse<String> response;
        try {
            response = outbound.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (OutboundRefusedException e) {
            throw new NotificationException("url_not_allowed", e.getMessage(), false);
        } catch (IOException e) {
            throw new NotificationException("delivery_failed", "The chat webhook at " + uri.getHost()
                    + " could not be reached: " + e.getMessage(), true);
        }
        int status = response.statusCode();
        if (status < 200 || status > 299) {
            // the body, not the URL: the URL carries the webhook's token
            String body = response.body();
            throw new NotificationException("delivery_failed", "The chat webhook at " + uri.getHost()
                    + " answered " + status + ": " + body.substring(0, Math.min(body.length(), 300)),
                    status == 429 || status >= 500);
        }
    }

    private void list(Context ctx) {
        Access.requireAdmin(ctx);
        var data = Arrays.stream(Channel.values()).map(channel -> json(channel, store.find(channel))).toList();
        Responses.ok(ctx, Map.of("object", "list", "data", data));
    }

    private void get(Context ctx) {
        Access.requireAdmin(ctx);
        Channel channel = channel(ctx);
        Responses.ok(ctx, json(channel, store.find(channel)));
    }

    /**
     * Replaces a channel's settings. Its secret is write-only: left out, the one stored stays; null removes it.
     */
    private void put(Context ctx) {
        Access.requireAdmin(ctx);
        Channel channel = channel(ctx);
        ObjectNode body = Requests.jsonObject(ctx);
        Optional<ChannelStore.Configured> current = store.find(channel);
        var problems = new Problems();
        Set<String> fields = channel == Channel.EMAIL ? EMAIL_FIELDS : CHAT_FIELDS;
        problems.unknownFields(body, fields, null, "the " + channel.wire() + " channel's settings");
        Optional<String> secret = secret(channel, body, current, problems);
        ObjectNode settings = channel == Channel.EMAIL ? email(body, problems) : chat(body, secret, problems);
        problems.throwIfAny();
        store.save(channel, settings, secret);
        Responses.ok(ctx, json(channel, store.find(channel)));
    }

    private void delete(Context ctx) {
        Access.requireAdmin(ctx);
        Channel channel = channel(ctx);
        boolean deleted = store.delete(channel);
        Responses.ok(ctx, Map.of("channel", channel.wire(), "object", "notification_channel.deleted",
                "deleted", deleted));
    }

    private void test(Context ctx) throws InterruptedException {
        Access.requireAdmin(ctx);
        Channel channel = channel(ctx);
        if (store.find(channel).isEmpty()) {
            throw ApiException.of(ErrorCode.CHANNEL_NOT_CONFIGURED, "channel", "The " + channel.wire()
                    + " channel is not set up.");
        }
        ObjectNode body = Requests.body(ctx).length == 0 ? Json.object() : Requests.jsonObject(ctx);
        var recipients = new ArrayList<String>();
        body.path("recipients").forEach(r -> recipients.add(r.asText()));
        var result = new LinkedHashMap<String, Object>();
        result.put("object", "notification_channel.test");
        result.put("channel", channel.wire());
        try {
            send(channel.wire(), body.path("message").asText("A test notification from Arbor."), recipients,
                    "normal");
            result.put("delivered", true);
        } catch (NotificationException e) {
            result.put("delivered", false);
            result.put("error", Map.of("code", e.code(), "message", e.getMessage()));
        }
        Responses.ok(ctx, result);
    }

    private static Channel channel(Context ctx) {
        String wire = ctx.pathParam("channel");
        return Channel.of(wire).orElseThrow(() -> ApiException.of(ErrorCode.CHANNEL_NOT_FOUND, "channel",
                "There is no channel '" + wire + "'; the channels are email, team_chat_1 and team_chat_2."));
    }

    private static Optional<String> secret(Channel channel, ObjectNode body, Optional<ChannelStore.Configured> current,
                                           Problems problems) {
        String field = channel.secretField();
        JsonNode given = body.get(field);
        if (given == null) {
            return current.flatMap(ChannelStore.Configured::secret);
        }
        if (given.isNull()) {
            return Optional.empty();
        }
        if (!given.isTextual() || given.textValue().isEmpty() || given.textValue().length() > 2000) {
            problems.add(ErrorCode.INVALID_FIELD, field, "`" + field + "` must be a non-empty string.");
            return Optional.empty();
        }
        return Optional.of(given.textValue());
    }

    private ObjectNode email(ObjectNode body, Problems problems) {
        ObjectNode settings = Json.object();
        JsonNode port = body.path("smtp_port");
        JsonNode host = body.path("smtp_host");
        if (!host.isTextual() || host.textValue().isBlank() || host.textValue().length() > 255) {
            problems.add(host.isMissingNode() ? ErrorCode.MISSING_FIELD : ErrorCode.INVALID_FIELD, "smtp_host",
                    "`smtp_host` is required: the mail server's host name.");
        } else {
            try {
                policy.checkHost(host.textValue().strip(), port.asInt(Mail.DEFAULT_PORT));
                settings.put("smtp_host", host.textValue().strip());
            } catch (OutboundRefusedException e) {
                problems.add(ErrorCode.INVALID_FIELD, "smtp_host", "`smtp_host` cannot be used: " + e.getMessage());
            }
        }
        if (!port.isMissingNode() && (!port.isIntegralNumber() || port.asInt() < 1 || port.asInt() > 65_535)) {
            problems.add(ErrorCode.INVALID_FIELD, "smtp_port", "`smtp_port` must be a port number, 1 to 65535.");
        }
        settings.put("smtp_port", port.asInt(Mail.DEFAULT_PORT));
        String security = body.path("security").asText("starttls");
        if (!Set.of("starttls", "tls", "none").contains(security)) {
            problems.add(ErrorCode.INVALID_FIELD, "security", "`security` must be starttls, tls or none.");
        }
        settings.put("security", security);
        JsonNode username = body.path("username");
        if (username.isTextual() && !username.textValue().isBlank()) {
            settings.put("username", username.textValue());
        } else if (!username.isMissingNode() && !username.isNull()) {
            problems.add(ErrorCode.INVALID_FIELD, "username", "`username` must be a non-empty string.");
        }
        JsonNode from = body.path("from");
        if (!from.isTextual()) {
            problems.add(ErrorCode.MISSING_FIELD, "from", "`from` is required: the sender's email address.");
        } else {
            try {
                Mail.address(from.textValue(), "sender");
                settings.put("from", from.textValue());
            } catch (NotificationException e) {
                problems.add(ErrorCode.INVALID_FIELD, "from", "`from` " + e.getMessage());
            }
        }
        return settings;
    }

    private ObjectNode chat(ObjectNode body, Optional<String> webhook, Problems problems) {
        ObjectNode settings = Json.object();
        if (webhook.isEmpty()) {
            problems.add(ErrorCode.MISSING_FIELD, "webhook_url", "`webhook_url` is required: the chat's incoming "
                    + "webhook URL.");
        } else {
            try {
                URI uri = URI.create(webhook.get());
                policy.check(uri);
                settings.put("webhook_host", uri.getHost());
            } catch (IllegalArgumentException | OutboundRefusedException e) {
                problems.add(ErrorCode.INVALID_FIELD, "webhook_url", "`webhook_url` cannot be used: "
                        + e.getMessage());
            }
        }
        JsonNode name = body.path("name");
        if (name.isTextual() && name.textValue().length() <= 200) {
            settings.put("name", name.textValue());
        } else if (!name.isMissingNode()) {
            problems.add(ErrorCode.INVALID_FIELD, "name", "`name` must be a string of at most 200 characters.");
        }
        return settings;
    }

    private static Map<String, Object> json(Channel channel, Optional<ChannelStore.Configured> configured) {
        var json = new LinkedHashMap<String, Object>();
        json.put("channel", channel.wire());
        json.put("object", "notification_channel");
        json.put("configured", configured.isPresent());
        configured.ifPresent(c -> {
            c.settings().properties().forEach(field -> json.put(field.getKey(), field.getValue()));
            json.put(channel.secretField() + "_set", c.secret().isPresent());
            json.put("updated_at", c.updatedAt() / 1000);
        });
        return json;
    }
}
