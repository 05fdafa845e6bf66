package dev.arbor.credentials;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.db.Database;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.references.Referrers;
import dev.arbor.platform.secrets.SecretBox;
import java.time.Clock;
import java.util.Optional;

/**
 * Named secrets that automations refer to by id or name (a pipeline step's {@code credential_ref}), so that no
 * definition or params ever hold a key. Admin routes; values are write-only, sealed at rest, and opened only by
 * {@link #open} when a step needs one.
 */
public final class Credentials {
    private final CredentialStore store;

    public Credentials(Database database, SecretBox secrets, Clock clock) {
        this.store = new CredentialStore(database, secrets, clock);
    }

    /** @param referrers what may use a credential (active routers), asked before one is deleted */
    public void addRoutes(Routes routes, Referrers referrers) {
        new CredentialRoutes(store).addTo(routes, requireNonNull(referrers, "referrers"));
    }

    /** The value of a credential named by id or name; empty when there is none. */
    public Optional<String> open(String reference) {
        return store.open(requireNonNull(reference, "reference"));
    }

    /** Whether a credential has this id or name. */
    public boolean exists(String reference) {
        return store.exists(requireNonNull(reference, "reference"));
    }
}
