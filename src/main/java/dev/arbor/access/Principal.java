package dev.arbor.access;

import static java.util.Objects.requireNonNull;

import java.util.Set;

/**
 * Who is calling the admin API.
 *
 * @param tokenId the token's id; {@code env} for {@code ARBOR_ADMIN_TOKEN}, {@code local} for the local admin
 * @param projects the projects a member may act in; admins may act in every project
 */
public record Principal(String tokenId, Role role, Set<String> projects) {
    static final Principal LOCAL_ADMIN = new Principal("local", Role.ADMIN, Set.of());
    static final Principal ENV_ADMIN = new Principal("env", Role.ADMIN, Set.of());

    public Principal {
        requireNonNull(tokenId, "tokenId");
        requireNonNull(role, "role");
        projects = Set.copyOf(projects);
    }

    /** The caller an inference key names: a member of the key's one project (see {@link InferenceKeys}). */
    public static Principal inferenceKey(String keyId, String projectId) {
        return new Principal(keyId, Role.MEMBER, Set.of(projectId));
    }

    /** Whether an inference key is calling, which may call only the inference routes. */
    public boolean isInferenceKey() {
        return tokenId.startsWith("key_");
    }

    public boolean isAdmin() {
        return role == Role.ADMIN;
    }

    public boolean mayActIn(String projectId) {
        return isAdmin() || projects.contains(projectId);
    }
}
