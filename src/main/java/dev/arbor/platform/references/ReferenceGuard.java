package dev.arbor.platform.references;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Warning;
import dev.arbor.platform.errors.WarningCode;
import dev.arbor.platform.http.QueryParam;
import dev.arbor.platform.http.Schema;
import io.javalin.http.Context;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The one rule for deleting something others use: refused (409 {@code in_use}, naming them) unless forced, and a
 * forced delete releases them first and says so in a warning.
 */
public final class ReferenceGuard {
    /** The query parameter of a delete route that may force its way past what uses the thing. */
    public static final QueryParam FORCE = new QueryParam(
            "force",
            Schema.bool(),
            "Delete even when active routers or deployments use it: routers become inactive, deployments are deleted, "
                    + "and the answer's warnings say which.");

    /** Whether a delete that finds users is refused or releases them. */
    public enum WhenInUse {
        REFUSE,
        RELEASE;

        /** {@link #RELEASE} when the request says {@code ?force=true}. */
        public static WhenInUse of(Context ctx) {
            return FORCE.read(ctx).filter("true"::equals).isPresent() ? RELEASE : REFUSE;
        }
    }

    private final Referrers referrers;

    public ReferenceGuard(Referrers referrers) {
        this.referrers = requireNonNull(referrers, "referrers");
    }

    /**
     * Clears the way for deleting the thing these names name ({@code what} says it in messages: "model 'x'"): refuses
     * with 409 {@code in_use} at {@code param} while something uses it, unless {@code whenInUse} releases them; the
     * warnings of what was released.
     */
    public List<Warning> beforeDelete(
            Referrers.Kind kind, Set<String> names, String what, String param, WhenInUse whenInUse) {
        requireNonNull(kind, "kind");
        requireNonNull(whenInUse, "whenInUse");
        List<Referrers.Referrer> users = referrers.inUse(kind, Set.copyOf(names));
        if (users.isEmpty()) {
            return List.of();
        }
        if (whenInUse == WhenInUse.REFUSE) {
            throw ApiException.of(
                            ErrorCode.IN_USE,
                            param,
                            "The " + what + " is used by " + describe(users)
                                    + ". Change them first, or delete with ?force=true to release them (routers "
                                    + "become inactive, deployments are deleted).")
                    .withField(
                            "used_by",
                            users.stream()
                                    .map(user -> Map.of(
                                            "object", user.type(),
                                            "id", user.id(),
                                            "name", user.name(),
                                            "project_id", user.projectId()))
                                    .toList());
        }
        List<Referrers.Referrer> released = referrers.release(kind, Set.copyOf(names));
        return List.of(new Warning(
                WarningCode.ROUTERS_DEACTIVATED,
                "These used the " + what + " and are released now (routers inactive, deployments deleted): "
                        + describe(released) + ".",
                param));
    }

    private static String describe(List<Referrers.Referrer> users) {
        return users.stream()
                .map(user -> user.type() + " " + user.name() + " (" + user.id() + ", project " + user.projectId() + ")")
                .collect(Collectors.joining(", "));
    }
}
