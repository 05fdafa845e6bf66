package dev.arbor.notifications;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static dev.arbor.platform.http.bodies.BodyField.Presence.REQUIRED;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.access.Access;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodyReader;
import dev.arbor.platform.http.bodies.BodySpec;
import dev.arbor.platform.json.Json;
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
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Notifications: the channels they go to (admin settings, each channel's secret sealed and never shown) and
 * {@link #send}, which pipelines' Send Notification steps use. Email goes by SMTP; the team chats take a JSON
 * {@code {"text": ...}} at their incoming webhook, through the SSRF-checked outbound client.
 */
public final class Notifications {
    private static final String NOT_EMPTY = "must be a non-empty string";
    private static final String HOST_REFUSAL = "is required: the mail server's host name";
    private static final BodyField.Worded<String> SMTP_HOST =
            BodyField.text(REQUIRED, "smtp_host", 255).refusedAs(HOST_REFUSAL).missingAs(HOST_REFUSAL);
    private static final BodyField.Worded<Long> SMTP_PORT =
            BodyField.integer(OPTIONAL, "smtp_port", 1, 65_535).refusedAs("must be a port number, 1 to 65535");
    private static final BodyField.Worded<String> SECURITY = BodyField.choice(
                    OPTIONAL, "security", List.of("starttls", "tls", "none"), "must be starttls, tls or none")
            .refusedAs("must be starttls, tls or none");
    private static final BodyField.Worded<String> USERNAME = BodyField.text(OPTIONAL, "username", 2000)
            .matching(Pattern.compile("[\\s\\S]*\\S[\\s\\S]*"), NOT_EMPTY)
            .refusedAs(NOT_EMPTY);
    private static final String FROM_REFUSAL = "is required: the sender's email address";
    private static final BodyField.Worded<String> FROM =
            BodyField.text(REQUIRED, "from", 320).refusedAs(FROM_REFUSAL).missingAs(FROM_REFUSAL);
    private static final BodyField.Worded<String> NAME =
            BodyField.text(OPTIONAL, "name", 200).refusedAs("must be a string of at most 200 characters");
    private static final BodyField.Worded<String> PASSWORD = secret(Channel.EMAIL.secretField());
    private static final BodyField.Worded<String> WEBHOOK_URL = secret(Channel.TEAM_CHAT_1.secretField());
    /** Each channel's settings; the secret among them is write-only: left out it stays, null removes it. */
    private static final Map<Channel, BodySpec> SETTINGS = settings();

    private static final BodyField.Text TEST_MESSAGE = BodyField.text(OPTIONAL, "message", 10_000);
    private static final BodyField.Texts TEST_RECIPIENTS = BodyField.texts(OPTIONAL, "recipients", 50, 320);
    private static final BodySpec TEST = BodySpec.of(TEST_MESSAGE, TEST_RECIPIENTS);

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
        routes.group("notifications")
                .get("/notification-channels", "The notification channels and whether each is set up", this::list)
                .ok(ApiShapes.CHANNELS)
                .get("/notification-channels/{channel}", "A channel's settings (its secret never shown)", this::get)
                .ok(ApiShapes.CHANNEL)
                .put(
                        "/notification-channels/{channel}",
                        "Set up a channel: SMTP for email, an incoming webhook for " + "a team chat",
                        this::put)
                .body(Schema.anyOf(
                        Schema.named(
                                "NotificationEmailSettings",
                                requireNonNull(SETTINGS.get(Channel.EMAIL)).schema()),
                        Schema.named(
                                "NotificationChatSettings",
                                requireNonNull(SETTINGS.get(Channel.TEAM_CHAT_1))
                                        .schema())))
                .ok(ApiShapes.CHANNEL)
                .delete("/notification-channels/{channel}", "Remove a channel's settings", this::delete)
                .ok(ApiShapes.DELETED)
                .post("/notification-channels/{channel}/test", "Send a test notification through a channel", this::test)
                .body(TEST.schema())
                .ok(ApiShapes.TEST_RESULT);
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

    private void list(Context ctx) {
        Access.requireAdmin(ctx);
        var data = Arrays.stream(Channel.values())
                .map(channel -> json(channel, store.find(channel)))
                .toList();
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
        BodySpec spec = requireNonNull(SETTINGS.get(channel));
        BodyReader reader = spec.reader(body);
        Optional<String> secret = secret(secretField(channel), reader, body, current);
        ObjectNode settings = channel == Channel.EMAIL ? email(reader) : chat(reader, secret);
        reader.problems().throwIfAny();
        store.save(channel, settings, secret);
        Responses.ok(ctx, json(channel, store.find(channel)));
    }

    private void delete(Context ctx) {
        Access.requireAdmin(ctx);
        Channel channel = channel(ctx);
        boolean deleted = store.delete(channel);
        Responses.ok(
                ctx, Map.of("channel", channel.wire(), "object", "notification_channel.deleted", "deleted", deleted));
    }

    private void test(Context ctx) throws InterruptedException {
        Access.requireAdmin(ctx);
        Channel channel = channel(ctx);
        if (store.find(channel).isEmpty()) {
            throw ApiException.of(
                    ErrorCode.CHANNEL_NOT_CONFIGURED, "channel", "The " + channel.wire() + " channel is not set up.");
        }
        BodyReader body = TEST.reader(Requests.body(ctx).length == 0 ? Json.object() : Requests.jsonObject(ctx));
        Optional<String> message = TEST_MESSAGE.read(body);
        List<String> recipients = TEST_RECIPIENTS.read(body).orElse(List.of());
        body.finish();
        var result = new LinkedHashMap<String, Object>();
        result.put("object", "notification_channel.test");
        result.put("channel", channel.wire());
        try {
            send(channel.wire(), message.orElse("A test notification from Arbor."), recipients, "normal");
            result.put("delivered", true);
        } catch (NotificationException e) {
            result.put("delivered", false);
            result.put("error", Map.of("code", e.code(), "message", e.getMessage()));
        }
        Responses.ok(ctx, result);
    }

    private static Channel channel(Context ctx) {
        String wire = ctx.pathParam("channel");
        return Channel.of(wire)
                .orElseThrow(() -> ApiException.of(
                        ErrorCode.CHANNEL_NOT_FOUND,
                        "channel",
                        "There is no channel '" + wire + "'; the channels are email, team_chat_1 and team_chat_2."));
    }

    private static Map<Channel, BodySpec> settings() {
        var specs = new EnumMap<Channel, BodySpec>(Channel.class);
        for (Channel channel : Channel.values()) {
            String what = "the " + channel.wire() + " channel's settings";
            specs.put(
                    channel,
                    channel == Channel.EMAIL
                            ? BodySpec.closed(
                                    what, SMTP_HOST, SMTP_PORT, SECURITY, USERNAME, secretField(channel), FROM)
                            : BodySpec.closed(what, secretField(channel), NAME));
        }
        return Map.copyOf(specs);
    }

    private static BodyField.Worded<String> secretField(Channel channel) {
        return channel == Channel.EMAIL ? PASSWORD : WEBHOOK_URL;
    }

    /** A channel's secret, declared as the non-empty string it must be when it is given. */
    private static BodyField.Worded<String> secret(String name) {
        return BodyField.text(OPTIONAL, name, 2000)
                .matching(Pattern.compile("[\\s\\S]+"), NOT_EMPTY)
                .refusedAs(NOT_EMPTY);
    }

    /** The secret given, else (left out) the one stored; a null removes it. */
    private static Optional<String> secret(
            BodyField.Worded<String> field,
            BodyReader reader,
            ObjectNode body,
            Optional<ChannelStore.Configured> current) {
        Optional<String> given = field.read(reader);
        if (given.isPresent() || body.has(field.name())) {
            return given;
        }
        return current.flatMap(ChannelStore.Configured::secret);
    }

    /** The email settings; the host's outbound check and the sender's address follow the fields' own checks. */
    private ObjectNode email(BodyReader reader) {
        ObjectNode settings = Json.object();
        Optional<String> host = SMTP_HOST.read(reader).map(String::strip);
        long port = SMTP_PORT.read(reader).orElse((long) Mail.DEFAULT_PORT);
        String security = SECURITY.read(reader).orElse("starttls");
        Optional<String> username = USERNAME.read(reader);
        Optional<String> from = FROM.read(reader);
        if (host.isPresent()) {
            try {
                policy.checkHost(host.get(), (int) port);
                settings.put("smtp_host", host.get());
            } catch (OutboundRefusedException e) {
                reader.problems()
                        .add(ErrorCode.INVALID_FIELD, "smtp_host", "`smtp_host` cannot be used: " + e.getMessage());
            }
        }
        settings.put("smtp_port", port);
        settings.put("security", security);
        username.ifPresent(name -> settings.put("username", name));
        if (from.isPresent()) {
            try {
                Mail.address(from.get(), "sender");
                settings.put("from", from.get());
            } catch (NotificationException e) {
                reader.problems().add(ErrorCode.INVALID_FIELD, "from", "`from` " + e.getMessage());
            }
        }
        return settings;
    }

    /** A chat's settings; its webhook, given now or stored before, must be one the outbound policy allows. */
    private ObjectNode chat(BodyReader reader, Optional<String> webhook) {
        ObjectNode settings = Json.object();
        Optional<String> name = NAME.read(reader);
        if (webhook.isEmpty()) {
            reader.problems()
                    .add(
                            ErrorCode.MISSING_FIELD,
                            "webhook_url",
                            "`webhook_url` is required: the chat's " + "incoming webhook URL.");
        } else {
            try {
                URI uri = URI.create(webhook.get());
                policy.check(uri);
                settings.put("webhook_host", uri.getHost());
            } catch (IllegalArgumentException | OutboundRefusedException e) {
                reader.problems()
                        .add(ErrorCode.INVALID_FIELD, "webhook_url", "`webhook_url` cannot be used: " + e.getMessage());
            }
        }
        name.ifPresent(text -> settings.put("name", text));
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
