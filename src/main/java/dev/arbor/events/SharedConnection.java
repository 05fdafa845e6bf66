package dev.arbor.events;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.events.providers.SignatureScheme;
import dev.arbor.events.providers.SigningSecret;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A provider's webhooks, connected once and shared: with every project ({@code global}) or with the projects of its
 * share set. {@code settings} holds the credentials' plain fields, {@code secrets} the secret ones (opened).
 *
 * @param previous the signing secret a rotation replaced, accepted until it expires so that the provider can switch
 */
record SharedConnection(
        String id,
        String name,
        String provider,
        boolean global,
        List<String> projects,
        ObjectNode settings,
        ObjectNode secrets,
        Optional<PreviousSecret> previous,
        Instant createdAt,
        Instant updatedAt) {
    SharedConnection {
        requireNonNull(id, "id");
        requireNonNull(name, "name");
        requireNonNull(provider, "provider");
        projects = List.copyOf(projects);
        settings = settings.deepCopy();
        secrets = secrets.deepCopy();
        requireNonNull(previous, "previous");
        requireNonNull(createdAt, "createdAt");
        requireNonNull(updatedAt, "updatedAt");
    }

    /** A replaced signing secret and the instant it stops being accepted. */
    record PreviousSecret(SigningSecret secret, Instant expiresAt) {
        PreviousSecret {
            requireNonNull(secret, "secret");
            requireNonNull(expiresAt, "expiresAt");
        }
    }

    @Override
    public ObjectNode settings() {
        return settings.deepCopy();
    }

    @Override
    public ObjectNode secrets() {
        return secrets.deepCopy();
    }

    /** The credential field's value, secret or plain. */
    Optional<String> credential(String key) {
        return Optional.ofNullable(secrets.get(key))
                .or(() -> Optional.ofNullable(settings.get(key)))
                .map(value -> value.asText());
    }

    /**
     * The secrets a delivery may be signed with at {@code now}, for {@link SignatureScheme#verify}: the current one
     * first, then the one a rotation replaced while its grace window lasts.
     */
    List<SigningSecret> signingSecrets(String secretField, Instant now) {
        var secrets = new ArrayList<SigningSecret>();
        credential(secretField).map(SigningSecret::new).ifPresent(secrets::add);
        previous.filter(p -> now.isBefore(p.expiresAt())).ifPresent(p -> secrets.add(p.secret()));
        return List.copyOf(secrets);
    }

    SharedConnection renamed(String newName) {
        return new SharedConnection(
                id, newName, provider, global, projects, settings, secrets, previous, createdAt, updatedAt);
    }

    SharedConnection sharedWith(boolean newGlobal, List<String> newProjects) {
        return new SharedConnection(
                id, name, provider, newGlobal, newProjects, settings, secrets, previous, createdAt, updatedAt);
    }

    SharedConnection withCredentials(
            ObjectNode newSettings, ObjectNode newSecrets, Optional<PreviousSecret> newPrevious) {
        return new SharedConnection(
                id, name, provider, global, projects, newSettings, newSecrets, newPrevious, createdAt, updatedAt);
    }

    @Override
    public String toString() {
        return "SharedConnection[" + id + ", " + provider + ", secrets hidden]";
    }
}
