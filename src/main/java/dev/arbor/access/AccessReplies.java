package dev.arbor.access;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.arbor.platform.errors.Warning;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** The answers of the access routes: tokens (never a secret but once, as it is made), projects and the caller. */
final class AccessReplies {
    private AccessReplies() {}

    /**
     * A token as the API shows it: a hint of its secret, never the secret, except answering its creation.
     *
     * @param token the secret, only answering the creation
     * @param warnings about the body, only answering the creation
     */
    @JsonPropertyOrder({
        "id",
        "object",
        "name",
        "role",
        "projects",
        "hint",
        "created_at",
        "expires_at",
        "last_used_at",
        "revoked_at",
        "token",
        "warnings"
    })
    record TokenReply(
            String id,
            String name,
            String role,
            List<String> projects,
            String hint,
            @JsonProperty("created_at") long createdAt,
            @JsonProperty("expires_at") @Nullable Long expiresAt,
            @JsonProperty("last_used_at") @Nullable Long lastUsedAt,
            @JsonProperty("revoked_at") @Nullable Long revokedAt,

            @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable
            String token,

            @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable
            List<Warning> warnings) {

        static TokenReply of(ApiToken token) {
            return new TokenReply(
                    token.id(),
                    token.name(),
                    token.role().wire(),
                    token.projects(),
                    token.hint(),
                    token.createdAtMillis() / 1000,
                    token.expiresAtMillis().map(ms -> ms / 1000).orElse(null),
                    token.lastUsedAtMillis().map(ms -> ms / 1000).orElse(null),
                    token.revokedAtMillis().map(ms -> ms / 1000).orElse(null),
                    null,
                    null);
        }

        /** A token just made: its secret, shown this once, and the warnings about the body. */
        static TokenReply created(ApiToken token, String secret, List<Warning> warnings) {
            TokenReply shown = of(token);
            return new TokenReply(
                    shown.id,
                    shown.name,
                    shown.role,
                    shown.projects,
                    shown.hint,
                    shown.createdAt,
                    shown.expiresAt,
                    shown.lastUsedAt,
                    shown.revokedAt,
                    secret,
                    List.copyOf(warnings));
        }

        @JsonProperty("object")
        String object() {
            return "token";
        }
    }

    /** A project; answering a creation or a change, with the warnings about the body. */
    @JsonPropertyOrder({"id", "object", "name", "description", "created_at", "warnings"})
    record ProjectReply(
            String id,
            String name,
            String description,
            @JsonProperty("created_at") long createdAt,

            @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable
            List<Warning> warnings) {

        static ProjectReply of(Project project) {
            return new ProjectReply(
                    project.id(), project.name(), project.description(), project.createdAtMillis() / 1000, null);
        }

        static ProjectReply of(Project project, List<Warning> warnings) {
            return new ProjectReply(
                    project.id(),
                    project.name(),
                    project.description(),
                    project.createdAtMillis() / 1000,
                    List.copyOf(warnings));
        }

        @JsonProperty("object")
        String object() {
            return "project";
        }
    }

    /** Who the caller is: its token, role and projects (sorted). */
    @JsonPropertyOrder({"object", "token_id", "role", "projects"})
    record PrincipalReply(@JsonProperty("token_id") String tokenId, String role, List<String> projects) {
        static PrincipalReply of(Principal principal) {
            return new PrincipalReply(
                    principal.tokenId(),
                    principal.role().wire(),
                    principal.projects().stream().sorted().toList());
        }

        @JsonProperty("object")
        String object() {
            return "principal";
        }
    }
}
