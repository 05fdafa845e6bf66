package dev.arbor.keys;

import static java.util.Objects.requireNonNull;

import dev.arbor.access.Access;
import dev.arbor.access.InferenceKeys;
import dev.arbor.access.Principal;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.http.Routes;
import io.javalin.http.Context;
import java.time.Clock;
import java.util.Optional;

/**
 * Inference keys: their routes ({@code /keys}), and the check of a request's {@code sk-arb-...} secret, which answers
 * as a member of the key's one project and notes the key's scope for the inference routes.
 */
public final class Keys implements InferenceKeys {
    private static final String SCOPE = "arbor.inference_key";

    private final KeyStore store;
    private final KeyRoutes routes;

    public Keys(Database database, Clock clock, Access access) {
        this.store = new KeyStore(requireNonNull(database, "database"), requireNonNull(clock, "clock"));
        this.routes = new KeyRoutes(store, requireNonNull(access, "access"));
    }

    /** Lets {@code GET /keys/{id}} show what the key spent; before {@link #addRoutes}. */
    public void acceptSpending(KeySpending spending) {
        routes.acceptSpending(requireNonNull(spending, "spending"));
    }

    public void addRoutes(Routes routes) {
        this.routes.addTo(routes);
    }

    @Override
    public Optional<Principal> authenticate(String secret, Context ctx) {
        if (!secret.startsWith(InferenceKeys.PREFIX)) {
            return Optional.empty();
        }
        Optional<InferenceKey> live = store.bySecret(secret).filter(key -> key.liveAt(store.nowMillis()));
        live.ifPresent(key -> {
            store.touch(key);
            ctx.attribute(SCOPE, key.scope());
        });
        return live.map(key -> Principal.inferenceKey(key.id(), key.projectId()));
    }

    /** Whether {@code keyId} is a key of {@code projectId}, revoked or not (budgets are set on a project's keys). */
    public boolean inProject(String keyId, String projectId) {
        return store.find(keyId)
                .filter(key -> key.projectId().equals(projectId))
                .isPresent();
    }

    /** The scope of the inference key this request authenticated with; empty for an admin or member token. */
    public static Optional<KeyScope> scope(Context ctx) {
        return Optional.ofNullable(ctx.attribute(SCOPE));
    }
}
