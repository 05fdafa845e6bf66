package dev.arbor.notifications;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.arbor.access.Access;
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
import io.javalin.http.Context;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** The admin routes of the notification channels: their settings (each secret never shown) and a test send. */
final class ChannelRoutes {
    private static final BodyField.Text TEST_MESSAGE = BodyField.text(OPTIONAL, "message", 10_000);
    private static final BodyField.Texts TEST_RECIPIENTS = BodyField.texts(OPTIONAL, "recipients", 50, 320);
    private static final BodySpec TEST = BodySpec.of(TEST_MESSAGE, TEST_RECIPIENTS);

    private final ChannelStore store;
    private final ChannelSettings settings;
    private final Notifications sender;

    ChannelRoutes(ChannelStore store, ChannelSettings settings, Notifications sender) {
        this.store = requireNonNull(store, "store");
        this.settings = requireNonNull(settings, "settings");
        this.sender = requireNonNull(sender, "sender");
    }

    void addTo(Routes routes) {
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
                                requireNonNull(ChannelSettings.SETTINGS.get(Channel.EMAIL))
                                        .schema()),
                        Schema.named(
                                "NotificationChatSettings",
                                requireNonNull(ChannelSettings.SETTINGS.get(Channel.TEAM_CHAT_1))
                                        .schema())))
                .ok(ApiShapes.CHANNEL)
                .delete("/notification-channels/{channel}", "Remove a channel's settings", this::delete)
                .ok(ApiShapes.DELETED)
                .post("/notification-channels/{channel}/test", "Send a test notification through a channel", this::test)
                .body(TEST.schema())
                .ok(ApiShapes.TEST_RESULT);
    }

    private void list(Context ctx) {
        Access.requireAdmin(ctx);
        var data = Arrays.stream(Channel.values())
                .map(channel -> ChannelReply.of(channel, store.find(channel)))
                .toList();
        Responses.ok(ctx, new ChannelList(data));
    }

    private void get(Context ctx) {
        Access.requireAdmin(ctx);
        Channel channel = channel(ctx);
        Responses.ok(ctx, ChannelReply.of(channel, store.find(channel)));
    }

    /**
     * Replaces a channel's settings. Its secret is write-only: left out, the one stored stays; null removes it.
     */
    private void put(Context ctx) {
        Access.requireAdmin(ctx);
        Channel channel = channel(ctx);
        ChannelSettings.Read read = settings.read(channel, Requests.jsonObject(ctx), store.find(channel));
        store.save(channel, read.settings(), read.secret());
        Responses.ok(ctx, ChannelReply.of(channel, store.find(channel)));
    }

    private void delete(Context ctx) {
        Access.requireAdmin(ctx);
        Channel channel = channel(ctx);
        boolean deleted = store.delete(channel);
        Responses.ok(ctx, new ChannelDeleted(channel.wire(), deleted));
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
        TestResult result;
        try {
            sender.send(channel.wire(), message.orElse("A test notification from Arbor."), recipients, "normal");
            result = new TestResult(channel.wire(), true, null);
        } catch (NotificationException e) {
            result = new TestResult(
                    channel.wire(), false, new Failure(e.code(), Objects.requireNonNullElse(e.getMessage(), e.code())));
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

    /**
     * A channel as the API shows it: whether it is set up and, when it is, its settings, whether its secret is set
     * ({@code password_set} or {@code webhook_url_set}) and when they changed.
     */
    @JsonPropertyOrder({"channel", "object", "configured"})
    record ChannelReply(
            String channel, boolean configured, @JsonIgnore Map<String, Object> details) {
        static ChannelReply of(Channel channel, Optional<ChannelStore.Configured> configured) {
            var details = new LinkedHashMap<String, Object>();
            configured.ifPresent(c -> {
                c.settings().properties().forEach(field -> details.put(field.getKey(), field.getValue()));
                details.put(channel.secretField() + "_set", c.secret().isPresent());
                details.put("updated_at", c.updatedAt() / 1000);
            });
            return new ChannelReply(channel.wire(), configured.isPresent(), details);
        }

        @JsonProperty("object")
        String object() {
            return "notification_channel";
        }

        /** The settings' fields, after the fixed ones: which there are depends on the channel. */
        @JsonAnyGetter
        Map<String, Object> shownDetails() {
            return details;
        }
    }

    /** Every channel, set up or not: a list without pages. */
    @JsonPropertyOrder({"object", "data"})
    record ChannelList(List<ChannelReply> data) {
        @JsonProperty("object")
        String object() {
            return "list";
        }
    }

    /** The answer to a channel's removal; {@code deleted} is false when it was not set up. */
    @JsonPropertyOrder({"channel", "object", "deleted"})
    record ChannelDeleted(String channel, boolean deleted) {
        @JsonProperty("object")
        String object() {
            return "notification_channel.deleted";
        }
    }

    /** What a test send did; {@code error} says why it was not delivered. */
    @JsonPropertyOrder({"object", "channel", "delivered", "error"})
    record TestResult(
            String channel,
            boolean delivered,

            @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable
            Failure error) {
        @JsonProperty("object")
        String object() {
            return "notification_channel.test";
        }
    }

    /** Why a notification was not delivered. */
    record Failure(String code, String message) {}
}
