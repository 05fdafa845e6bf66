package dev.arbor.triggers;

import static java.util.Objects.requireNonNull;

import dev.arbor.access.Access;
import dev.arbor.events.EventConnections;
import dev.arbor.events.EventEnvelope;
import dev.arbor.events.EventSubscribers;
import dev.arbor.events.EventSubscribers.Audience;
import dev.arbor.pipelines.Pipelines;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.metrics.Deliveries;
import dev.arbor.platform.outbound.OutboundClient;
import dev.arbor.platform.outbound.OutboundPolicy;
import dev.arbor.platform.secrets.SecretBox;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * Triggers: a project's subscriptions to shared connections' events. An event of a subscribed type that passes a
 * trigger's filter starts its target, a pipeline run that reads the event as {@code event} or a signed POST to a URL
 * (retried with backoff), once per delivery and round; debouncing makes the events of one correlation value within a
 * window start one, the last.
 */
public final class Triggers implements EventSubscribers, AutoCloseable {
    private final TriggerStore triggers;
    private final FiringStore firings;
    private final Dispatcher dispatcher;
    private final TriggerRoutes routes;

    /**
     * @param retryDelays how long a delivery to a URL waits before each attempt after the first
     * @param meters where deliveries to URLs are timed ({@code arbor_deliveries_seconds}, source {@code triggers})
     */
    public Triggers(
            Database database,
            SecretBox secrets,
            EventConnections connections,
            Pipelines pipelines,
            Access access,
            OutboundPolicy outbound,
            OutboundClient client,
            List<Duration> retryDelays,
            MeterRegistry meters,
            Clock clock) {
        this.triggers = new TriggerStore(requireNonNull(database, "database"), requireNonNull(secrets, "secrets"));
        this.firings = new FiringStore(database);
        this.dispatcher = new Dispatcher(
                database,
                triggers,
                firings,
                requireNonNull(connections, "connections"),
                requireNonNull(pipelines, "pipelines"),
                new UrlDelivery(requireNonNull(client, "client"), new Deliveries(meters, "triggers")),
                retryDelays,
                requireNonNull(clock, "clock"));
        this.routes = new TriggerRoutes(
                triggers,
                firings,
                new TriggerEditor(
                        triggers, new TriggerBody(connections, pipelines, requireNonNull(outbound, "outbound")), clock),
                requireNonNull(access, "access"));
    }

    public void addRoutes(Routes routes) {
        this.routes.addTo(routes);
    }

    /** Starts closing debounce windows and delivering to URLs, going on with what a stopped server left. */
    public void start() {
        dispatcher.start();
    }

    @Override
    public void dispatch(EventEnvelope event, int round, Audience audience) {
        dispatcher.dispatch(requireNonNull(event, "event"), round, requireNonNull(audience, "audience"));
    }

    @Override
    public List<Firing> firings(String deliveryId) {
        return firings.ofDelivery(requireNonNull(deliveryId, "deliveryId")).stream()
                .map(firing -> new Firing(
                        firing.triggerId(),
                        firing.projectId(),
                        firing.round(),
                        firing.status(),
                        firing.runId(),
                        firing.error(),
                        firing.firedAt()))
                .toList();
    }

    /** The connection's triggers in projects that may no longer use it are deleted: they could never fire again. */
    @Override
    public int unsubscribe(String connectionId, Set<String> keptProjects) {
        return triggers.deleteOutside(requireNonNull(connectionId, "connectionId"), Set.copyOf(keptProjects));
    }

    @Override
    public void close() {
        dispatcher.close();
    }
}
