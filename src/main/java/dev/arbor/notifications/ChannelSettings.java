package dev.arbor.notifications;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static dev.arbor.platform.http.bodies.BodyField.Presence.REQUIRED;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodyReader;
import dev.arbor.platform.http.bodies.BodySpec;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.outbound.OutboundPolicy;
import dev.arbor.platform.outbound.OutboundRefusedException;
import java.net.URI;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A channel's settings as an admin sends them: the fields of each channel, declared once, and the checks beyond
 * them (the mail server and the webhook must be ones the outbound policy allows, the sender a valid address). Every
 * problem of the body at once.
 */
final class ChannelSettings {
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
    static final Map<Channel, BodySpec> SETTINGS = settings();

    /** Settings read and checked: what is stored in the clear, and the secret (empty when there is none). */
    record Read(ObjectNode settings, Optional<String> secret) {
        @Override
        public String toString() {
            return "Read[" + settings + ", secret " + (secret.isPresent() ? "set" : "unset") + "]";
        }
    }

    private final OutboundPolicy policy;

    ChannelSettings(OutboundPolicy policy) {
        this.policy = requireNonNull(policy, "policy");
    }

    /**
     * Reads {@code body} as {@code channel}'s settings. Its secret is write-only: left out, the one stored in
     * {@code current} stays; null removes it.
     */
    Read read(Channel channel, ObjectNode body, Optional<ChannelStore.Configured> current) {
        BodyReader reader = requireNonNull(SETTINGS.get(channel)).reader(body);
        Optional<String> secret = secret(secretField(channel), reader, body, current);
        ObjectNode settings = channel == Channel.EMAIL ? email(reader) : chat(reader, secret);
        reader.problems().throwIfAny();
        return new Read(settings, secret);
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
}
