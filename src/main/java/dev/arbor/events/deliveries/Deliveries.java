package dev.arbor.events.deliveries;

import static java.util.Objects.requireNonNull;

import dev.arbor.access.Access;
import dev.arbor.events.EventConnections;
import dev.arbor.events.EventSubscribers;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.ratelimits.RateLimiter;
import dev.arbor.platform.tracing.Tracing;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.function.Supplier;

/**
 * Webhook ingest and the delivery log: providers' deliveries to shared connections' webhook URLs, verified with the
 * connection's secrets, recorded, and dispatched to the subscribers (the triggers) once recorded.
 */
public final class Deliveries implements AutoCloseable {
    private final Ingest ingest;
    private final DeliveryRoutes log;
    private final Dispatcher dispatcher;
    private final Database database;

    /**
     * @param publicUrl the address providers reach this server at, without a trailing slash
     * @param rateLimits where replays are counted against {@link DeliverySettings#replaysPerMinute}
     * @param meters where refused deliveries are counted ({@code arbor_event_deliveries_refused_total})
     * @param tracing where dispatches' spans go, in the trace of the request that brought each delivery
     */
    public Deliveries(
            Database database,
            EventConnections connections,
            EventSubscribers subscribers,
            Access access,
            Supplier<String> publicUrl,
            DeliverySettings settings,
            RateLimiter rateLimits,
            MeterRegistry meters,
            Clock clock,
            Tracing tracing) {
        this.database = requireNonNull(database, "database");
        var store = new DeliveryStore(database);
        this.dispatcher = new Dispatcher(store, subscribers, settings.refusedRetention(), clock, tracing);
        this.ingest = new Ingest(connections, store, dispatcher, publicUrl, settings, meters, clock);
        this.log = new DeliveryRoutes(connections, store, dispatcher, subscribers, access, rateLimits, settings);
    }

    public void addRoutes(Routes routes) {
        routes.group("events")
                .post(
                        Ingest.PATH,
                        "A provider's webhook delivery: authenticated by the URL's token and the provider's "
                                + "signature, no bearer token; handshakes are answered, deliveries recorded",
                        ingest::receive)
                .body(Schema.any("The provider's delivery as it signed it (JSON, or form fields for Twilio), read as "
                        + "raw bytes: the signature is over them."))
                .ok(DeliveryShapes.RECEIPT)
                .answers(200, "text/plain", Schema.string());
        log.addTo(routes);
    }

    /** Starts dispatching, first what a stopped server left waiting; not on a database a newer release migrated. */
    public void start() {
        if (!database.readOnly()) {
            dispatcher.start();
        }
    }

    @Override
    public void close() {
        dispatcher.close();
    }
}
