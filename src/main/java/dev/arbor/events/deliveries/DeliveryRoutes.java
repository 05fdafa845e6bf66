package dev.arbor.events.deliveries;

import static java.util.Objects.requireNonNull;

import dev.arbor.access.Access;
import dev.arbor.access.CurrentProject;
import dev.arbor.access.Principal;
import dev.arbor.events.EventConnections;
import dev.arbor.events.EventConnections.Subscribable;
import dev.arbor.events.EventSubscribers;
import dev.arbor.events.EventSubscribers.Audience;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.PageParams;
import dev.arbor.platform.http.QueryParam;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.ratelimits.RateLimitHeaders;
import dev.arbor.platform.ratelimits.RateLimiter;
import io.javalin.http.Context;
import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The delivery log of a shared connection: its deliveries, each with its headers (masked), payload, signature result,
 * envelope and what it fired, and a replay that dispatches an accepted delivery again. Seen by whoever may see the
 * connection (an admin, or a member of a project it is shared with, or anyone for a global one).
 */
final class DeliveryRoutes {
    private static final String CONNECTION_ID = "connection_id";
    private static final String DELIVERY_ID = "delivery_id";
    private static final String BASE = "/events/shared-connections/{connection_id}/deliveries";
    private static final QueryParam STATUS = new QueryParam(
            "status",
            Schema.oneOf(Arrays.stream(Delivery.Status.values())
                    .map(Delivery.Status::json)
                    .toArray(String[]::new)),
            "Only deliveries of this status.");
    private static final QueryParam TYPE =
            new QueryParam("type", Schema.string(200), "Only deliveries of this event type (`issues.opened`).");

    private final EventConnections connections;
    private final DeliveryStore store;
    private final Dispatcher dispatcher;
    private final EventSubscribers subscribers;
    private final Access access;
    private final RateLimiter rateLimits;
    private final RateLimiter.Limit replays;

    DeliveryRoutes(
            EventConnections connections,
            DeliveryStore store,
            Dispatcher dispatcher,
            EventSubscribers subscribers,
            Access access,
            RateLimiter rateLimits,
            DeliverySettings settings) {
        this.connections = requireNonNull(connections, "connections");
        this.store = requireNonNull(store, "store");
        this.dispatcher = requireNonNull(dispatcher, "dispatcher");
        this.subscribers = requireNonNull(subscribers, "subscribers");
        this.access = requireNonNull(access, "access");
        this.rateLimits = requireNonNull(rateLimits, "rateLimits");
        this.replays = new RateLimiter.Limit(
                RateLimiter.Algorithm.TOKEN_BUCKET, settings.replaysPerMinute(), RateLimiter.Window.MINUTE);
    }

    void addTo(Routes routes) {
        routes.group("events")
                .get(BASE, "A shared connection's deliveries, newest first (by status and event type)", this::list)
                .query(PageParams.PARAMETERS)
                .query(STATUS, TYPE)
                .header(CurrentProject.HEADER)
                .ok(Schema.list(DeliveryShapes.DELIVERY))
                .get(
                        BASE + "/{delivery_id}",
                        "A delivery: headers (secrets masked), payload, signature result, envelope, firings",
                        this::get)
                .header(CurrentProject.HEADER)
                .ok(DeliveryShapes.DELIVERY_DETAIL)
                .action(
                        BASE + "/{delivery_id}/replay",
                        "Dispatch an accepted delivery to the triggers again, as the next round: a member's replay "
                                + "fires its own projects' triggers only; rate-limited per caller and connection",
                        this::replay)
                .header(CurrentProject.HEADER)
                .accepted(DeliveryShapes.DELIVERY);
    }

    private void list(Context ctx) {
        Subscribable connection = visible(ctx);
        Optional<Delivery.Status> status = STATUS.read(ctx)
                .map(text -> Delivery.Status.of(text.strip())
                        .orElseThrow(() -> ApiException.of(
                                ErrorCode.INVALID_PARAMETER,
                                "status",
                                "`status` is '" + text + "'; it is one of accepted, refused, unreadable.")));
        Optional<String> type = TYPE.read(ctx).map(String::strip).filter(t -> !t.isEmpty());
        Responses.ok(
                ctx,
                Responses.page(
                        store.list(connection.id(), PageParams.from(ctx), status, type),
                        Delivery::id,
                        DeliveryViews.Summary::of));
    }

    private void get(Context ctx) {
        Delivery delivery = delivery(ctx, visible(ctx));
        // a connection shared with several projects: a member sees the firings of its own projects' triggers only
        Principal principal = Access.principal(ctx);
        Responses.ok(
                ctx,
                DeliveryViews.Detail.of(
                        delivery,
                        subscribers.firings(delivery.id()).stream()
                                .filter(firing -> principal.mayActIn(firing.projectId()))
                                .toList()));
    }

    private void replay(Context ctx) {
        Subscribable connection = visible(ctx);
        Principal principal = Access.principal(ctx);
        RateLimiter.Verdict verdict =
                rateLimits.take("event-replay/" + connection.id() + "/" + principal.tokenId(), replays);
        RateLimitHeaders.write(ctx, verdict);
        if (!verdict.allowed()) {
            throw RateLimitHeaders.refusal(
                    verdict,
                    "A token may replay " + replays.requests() + " deliveries of connection '" + connection.id()
                            + "' a minute; try again in " + RateLimitHeaders.retryAfterSeconds(verdict) + " s.");
        }
        Delivery delivery = delivery(ctx, connection);
        // a connection shared with several projects: a member's replay must not start other projects' work
        Audience audience = principal.isAdmin()
                ? Audience.everyone()
                : new Audience.Projects(principal.projects().stream()
                        .filter(connection::usableBy)
                        .collect(Collectors.toSet()));
        DeliveryStore.Due due = store.replay(connection.id(), delivery.id(), audience)
                .orElseThrow(() -> ApiException.of(
                        ErrorCode.DELIVERY_NOT_REPLAYABLE,
                        DELIVERY_ID,
                        "Delivery '" + delivery.id() + "' was "
                                + delivery.status().json()
                                + ": only an accepted delivery (its signature valid) is ever processed or replayed."));
        dispatcher.offer(due);
        Responses.json(ctx, 202, DeliveryViews.Summary.of(due.delivery()));
    }

    /** The path's connection, when the caller may see it (the rule of the connection's own routes). */
    private Subscribable visible(Context ctx) {
        // a current project the header names is checked as on every route, though the connection decides
        access.currentProject().named(ctx);
        return connections.visibleTo(Access.principal(ctx), ctx.pathParam(CONNECTION_ID));
    }

    private Delivery delivery(Context ctx, Subscribable connection) {
        String id = ctx.pathParam(DELIVERY_ID);
        return store.find(connection.id(), id)
                .orElseThrow(() -> ApiException.of(
                        ErrorCode.DELIVERY_NOT_FOUND,
                        DELIVERY_ID,
                        "Connection '" + connection.id() + "' has no delivery '" + id + "'."));
    }
}
