package dev.arbor.access;

import java.util.Locale;
import java.util.Optional;

/** What a token may do: admins everything, members only within their projects. */
enum Role {
    ADMIN,
    MEMBER;

    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    static Optional<Role> parse(String text) {
        for (Role role : values()) {
            if (role.wire().equals(text)) {
                return Optional.of(role);
            }
        }
        return Optional.empty();
    }
}
