package dev.arbor.notifications;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** Where a notification can go: email over SMTP, or one of two team chats by incoming webhook. */
enum Channel {
    EMAIL,
    TEAM_CHAT_1,
    TEAM_CHAT_2;

    String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The secret this channel keeps sealed: what would let anyone send as us. */
    String secretField() {
        return this == EMAIL ? "password" : "webhook_url";
    }

    static Optional<Channel> of(String wire) {
        return Arrays.stream(values()).filter(c -> c.wire().equals(wire)).findFirst();
    }
}
