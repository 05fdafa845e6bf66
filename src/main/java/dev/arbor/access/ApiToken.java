package dev.arbor.access;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Optional;

/** A stored admin API token: never its secret, only a hint of it (the first characters). */
record ApiToken(
        String id,
        String name,
        Role role,
        List<String> projects,
        String hint,
        long createdAtMillis,
        Optional<Long> expiresAtMillis,
        Optional<Long> lastUsedAtMillis,
        Optional<Long> revokedAtMillis) {
    ApiToken {
        requireNonNull(id, "id");
        requireNonNull(name, "name");
        requireNonNull(role, "role");
        projects = List.copyOf(projects);
        requireNonNull(hint, "hint");
    }

    ApiToken usedAt(long millis) {
        return new ApiToken(
                id, name, role, projects, hint, createdAtMillis, expiresAtMillis, Optional.of(millis), revokedAtMillis);
    }

    Principal principal() {
        return new Principal(id, role, java.util.Set.copyOf(projects));
    }
}
