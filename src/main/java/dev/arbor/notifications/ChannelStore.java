package dev.arbor.notifications;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.secrets.SecretBox;
import java.time.Clock;
import java.util.Optional;

/** The SQL of channel settings; the secret is sealed here and opened only to send. */
final class ChannelStore {
    /** A channel's settings and, opened, its secret. */
    record Configured(Channel channel, ObjectNode settings, Optional<String> secret, long updatedAt) {
        @Override
        public String toString() {
            return "Configured[" + channel + ", " + settings + ", secret " + (secret.isPresent() ? "set" : "unset")
                    + "]";
        }
    }

    private final Database database;
    private final SecretBox secrets;
    private final Clock clock;

    ChannelStore(Database database, SecretBox secrets, Clock clock) {
        this.database = requireNonNull(database, "database");
        this.secrets = requireNonNull(secrets, "secrets");
        this.clock = requireNonNull(clock, "clock");
    }

    Optional<Configured> find(Channel channel) {
        return database.read(handle -> handle.createQuery(
                        "SELECT settings, secret, updated_at FROM " + "notification_channels WHERE channel = :channel")
                .bind("channel", channel.wire())
                .map((rs, ctx) -> new Configured(
                        channel,
                        (ObjectNode) Json.read(rs.getString("settings")),
                        Optional.ofNullable(rs.getString("secret")).map(s -> secrets.open(s, context(channel))),
                        rs.getLong("updated_at")))
                .findOne());
    }

    void save(Channel channel, ObjectNode settings, Optional<String> secret) {
        long now = clock.millis();
        String sealed = secret.map(s -> secrets.seal(s, context(channel))).orElse(null);
        database.update(handle -> {
            int updated = handle.createUpdate("UPDATE notification_channels SET settings = :settings, "
                            + "secret = :secret, updated_at = :now WHERE channel = :channel")
                    .bind("settings", Json.writeString(settings))
                    .bind("secret", sealed)
                    .bind("now", now)
                    .bind("channel", channel.wire())
                    .execute();
            if (updated == 0) {
                handle.createUpdate("INSERT INTO notification_channels (channel, settings, secret, updated_at) "
                                + "VALUES (:channel, :settings, :secret, :now)")
                        .bind("settings", Json.writeString(settings))
                        .bind("secret", sealed)
                        .bind("now", now)
                        .bind("channel", channel.wire())
                        .execute();
            }
        });
    }

    boolean delete(Channel channel) {
        return database.write(handle -> handle.createUpdate("DELETE FROM notification_channels WHERE channel = :c")
                        .bind("c", channel.wire())
                        .execute()
                == 1);
    }

    /** Binds a sealed secret to its channel: one copied to another row does not open. */
    private static String context(Channel channel) {
        return "notification channel " + channel.wire();
    }
}
