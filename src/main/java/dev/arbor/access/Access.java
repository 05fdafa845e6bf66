package dev.arbor.access;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.db.Database;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.Routes;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Admin authentication, tokens and projects. Other features ask it who is calling; they never read its tables.
 */
public final class Access {
    private final ProjectStore projects;
    private final TokenStore tokens;
    private final AdminAuthenticator authenticator;
    private final CurrentProject currentProject;
    private final List<Consumer<String>> revocations = new CopyOnWriteArrayList<>();

    public Access(Database database, Clock clock, Optional<String> adminToken) {
        this.projects = new ProjectStore(database, clock);
        this.tokens = new TokenStore(database, clock);
        this.authenticator = new AdminAuthenticator(tokens, adminToken);
        this.currentProject = new CurrentProject(projects);
    }

    /**
     * Makes an admin token outside the API and returns its secret: for an operator on the server's machine who has
     * no token left (the command line's {@code token create}).
     */
    public static String createAdminToken(Database database, Clock clock, String name) {
        return new TokenStore(database, clock)
                .create(name, Role.ADMIN, List.of(), Optional.empty())
                .secret();
    }

    /** Of these project ids, those that name no project. */
    public java.util.List<String> unknownProjects(java.util.Collection<String> ids) {
        return ids.stream().filter(id -> projects.find(id).isEmpty()).toList();
    }

    /** The rule for the project a request acts in, for every route that acts in one. */
    public CurrentProject currentProject() {
        return currentProject;
    }

    /** The guard that resolves the caller of every admin route. */
    public Handler authenticator() {
        return authenticator;
    }

    /** Accepts inference keys ({@code sk-arb-...}) on the inference routes, checked by {@code keys}. */
    public void acceptInferenceKeys(InferenceKeys keys) {
        authenticator.acceptInferenceKeys(keys);
    }

    public void addRoutes(Routes routes) {
        new AccessRoutes(projects, tokens, currentProject, id -> revocations.forEach(listener -> listener.accept(id)))
                .addTo(routes);
    }

    /**
     * Calls {@code listener} with a token's id when the token is revoked, so that what a feature keeps for that
     * token (its own upstream authorizations) goes with it.
     */
    public void onTokenRevoked(Consumer<String> listener) {
        revocations.add(requireNonNull(listener, "listener"));
    }

    /**
     * The caller a request outside the admin API names with an admin or member token (or the local admin, while no
     * token is needed); empty when it names none. Refuses nothing: the route decides what a caller without one gets.
     */
    public Optional<Principal> identify(Context ctx) {
        return authenticator.identify(ctx);
    }

    /** The name of the API token with this id, revoked or expired ones included; empty for an id no token has. */
    public Optional<String> tokenName(String tokenId) {
        return tokens.name(tokenId);
    }

    /** The caller of this request, when the admin API authenticated one (none on the studio's or public routes). */
    public static Optional<Principal> caller(Context ctx) {
        return Optional.ofNullable(ctx.attribute(AdminAuthenticator.PRINCIPAL));
    }

    /** The admin caller of this request. */
    public static Principal principal(Context ctx) {
        Principal principal = ctx.attribute(AdminAuthenticator.PRINCIPAL);
        return requireNonNull(principal, "admin route reached without authentication");
    }

    /** Ends the request with 403 {@code admin_required} unless an admin is calling. */
    public static Principal requireAdmin(Context ctx) {
        Principal principal = principal(ctx);
        if (!principal.isAdmin()) {
            throw ApiException.of(ErrorCode.ADMIN_REQUIRED, "Only an admin token may do this.");
        }
        return principal;
    }
}
