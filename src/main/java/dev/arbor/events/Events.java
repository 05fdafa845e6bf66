package dev.arbor.events;

import dev.arbor.access.Access;
import dev.arbor.events.providers.DescriptorShapes;
import dev.arbor.events.providers.EventCatalog;
import dev.arbor.events.providers.ProviderDescriptor;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.QueryParam;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import io.javalin.http.Context;
import java.time.Clock;
import java.util.List;
import java.util.function.Supplier;

/**
 * Event connections: providers (GitHub, Stripe, Slack, ...) that send webhooks which start or route agent work. For
 * now the catalog of provider descriptors, with each provider's credential fields, event types and samples (the
 * descriptors also hold how each provider's deliveries are verified and read, for the ingest to come), and the shared
 * connections that hold a provider's credentials and the projects that may use it.
 */
public final class Events {
    private static final QueryParam PROVIDER = new QueryParam(
            "provider", Schema.string(), "Only this provider's descriptor (a `provider` of the catalog).");

    private final EventCatalog catalog;
    private final SharedConnectionRoutes sharedConnections;

    /** @param publicUrl the address providers reach this server at, without a trailing slash */
    public Events(
            EventConnections connections,
            EventSubscribers subscribers,
            Access access,
            Supplier<String> publicUrl,
            Clock clock) {
        this.catalog = connections.catalog();
        this.sharedConnections =
                new SharedConnectionRoutes(catalog, connections.store(), access, publicUrl, subscribers, clock);
    }

    public void addRoutes(Routes routes) {
        sharedConnections.addTo(routes);
        routes.group("events")
                .get(
                        "/events/descriptors",
                        "The event providers: credential fields, event types with sample events, grouping suggestions",
                        this::descriptors)
                .query(PROVIDER)
                .ok(Schema.list(DescriptorShapes.DESCRIPTOR));
    }

    private void descriptors(Context ctx) {
        List<ProviderDescriptor> shown = PROVIDER.read(ctx)
                .map(provider -> List.of(catalog.find(provider.strip())
                        .orElseThrow(() -> ApiException.of(
                                ErrorCode.INVALID_PARAMETER,
                                "provider",
                                "`provider` is '" + provider + "', which is not a provider of the catalog ("
                                        + String.join(", ", catalog.names()) + ")."))))
                .orElseGet(catalog::all);
        Responses.ok(
                ctx,
                Responses.list(
                        shown.stream().map(ProviderDescriptor::toJson).toList(),
                        shown.stream().map(ProviderDescriptor::provider).toList(),
                        false));
    }
}
