package dev.arbor.triggers;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.kagkarlsson.scheduler.serializer.Serializer;
import com.github.kagkarlsson.scheduler.task.CompletionHandler;
import com.github.kagkarlsson.scheduler.task.ExecutionContext;
import com.github.kagkarlsson.scheduler.task.FailureHandler;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.CustomTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import dev.arbor.events.EventConnections;
import dev.arbor.events.EventConnections.Subscribable;
import dev.arbor.events.EventEnvelope;
import dev.arbor.events.EventSubscribers.Audience;
import dev.arbor.events.EventSubscribers.Firing.Status;
import dev.arbor.pipelines.Pipelines;
import dev.arbor.pipelines.Pipelines.EventRun;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.JobEngine;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.tracing.Traced;
import dev.arbor.triggers.FiringStore.Attempt;
import dev.arbor.triggers.FiringStore.Firing;
import dev.arbor.triggers.FiringStore.Window;
import dev.arbor.triggers.Trigger.Target;
import io.opentelemetry.api.trace.SpanKind;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Matches events to triggers and starts their targets, on db-scheduler like pipelines' runs: a debounce window's end
 * and each attempt at a URL are executions in the database, so they survive restarts and run once among servers on
 * one PostgreSQL. The tasks carry no data: an execution's instance id names its window or its firing.
 */
final class Dispatcher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);
    private static final String DELIVERY_TASK = "trigger-delivery";
    private static final String WINDOW_TASK = "trigger-window";
    /** The engine's own table (migration V48): its executions are deliveries and debounce windows, nothing else. */
    private static final String JOB_TABLE = "trigger_jobs";
    /** Deliveries and windows closing at once on this server. */
    private static final int PARALLEL_EXECUTIONS = 4;

    private final Database database;
    private final TriggerStore triggers;
    private final FiringStore firings;
    private final EventConnections connections;
    private final Pipelines pipelines;
    private final UrlDelivery delivery;
    private final List<Duration> retryDelays;
    private final Clock clock;
    private final CustomTask<Void> deliveryTask;
    private final CustomTask<Void> windowTask;
    private final JobEngine engine;
    private volatile boolean started;

    /** @param retryDelays how long a delivery to a URL waits before each attempt after the first */
    Dispatcher(
            Database database,
            TriggerStore triggers,
            FiringStore firings,
            EventConnections connections,
            Pipelines pipelines,
            UrlDelivery delivery,
            List<Duration> retryDelays,
            Clock clock) {
        this.database = requireNonNull(database, "database");
        this.triggers = requireNonNull(triggers, "triggers");
        this.firings = requireNonNull(firings, "firings");
        this.connections = requireNonNull(connections, "connections");
        this.pipelines = requireNonNull(pipelines, "pipelines");
        this.delivery = requireNonNull(delivery, "delivery");
        this.retryDelays = List.copyOf(retryDelays);
        this.clock = requireNonNull(clock, "clock");
        this.deliveryTask = Tasks.custom(DELIVERY_TASK, Void.class)
                .onFailure(new FailureHandler.ExponentialBackoffFailureHandler<>(Duration.ofSeconds(5), 2))
                .execute(this::deliver);
        this.windowTask = Tasks.custom(WINDOW_TASK, Void.class)
                .onFailure(new FailureHandler.ExponentialBackoffFailureHandler<>(Duration.ofSeconds(5), 2))
                .execute(this::closeWindow);
        // the tasks carry no data, so the engine's default serializer never writes any
        this.engine = new JobEngine(
                database,
                JOB_TABLE,
                PARALLEL_EXECUTIONS,
                Serializer.DEFAULT_JAVA_SERIALIZER,
                clock,
                List.of(deliveryTask, windowTask));
    }

    /** Starts executing debounce windows and deliveries; a database a newer release migrated is left alone. */
    void start() {
        if (database.readOnly()) {
            return;
        }
        started = true;
        engine.start();
    }

    void dispatch(EventEnvelope event, int round, Audience audience) {
        Optional<Subscribable> connection = connections.find(event.connectionId());
        if (connection.isEmpty()) {
            return;
        }
        ObjectNode envelope = event.toJson();
        for (Trigger trigger : triggers.enabledOf(event.connectionId())) {
            if (connection.get().usableBy(trigger.projectId())
                    && audience.includes(trigger.projectId())
                    && trigger.eventTypes().contains(event.type())
                    && trigger.filter().holds(envelope)) {
                fire(trigger, event.id(), round, envelope);
            }
        }
    }

    private void fire(Trigger trigger, String deliveryId, int round, ObjectNode envelope) {
        // under the delivery's dispatch: a run it starts now links to it
        try (var _ = Traced.child("trigger fire", SpanKind.INTERNAL)
                .with("arbor.trigger.id", trigger.id())
                .with("arbor.delivery.id", deliveryId)) {
            fireTraced(trigger, deliveryId, round, envelope);
        }
    }

    private void fireTraced(Trigger trigger, String deliveryId, int round, ObjectNode envelope) {
        Instant now = clock.instant();
        var firing = new Firing(
                Ids.next("tfr"),
                trigger.id(),
                trigger.projectId(),
                deliveryId,
                round,
                Status.WAITING,
                Optional.of(envelope),
                Optional.empty(),
                Optional.empty(),
                1,
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                now,
                now);
        if (trigger.debounceSeconds() == 0) {
            Firing stored = firings.record(firing);
            if (stored.status() == Status.WAITING) {
                start(trigger, stored);
            }
            return;
        }
        // a value that is no scalar counts as none: such events are one group of their own
        String correlation = trigger.correlationKey()
                .flatMap(key -> key.read(envelope))
                .filter(JsonNode::isValueNode)
                .map(Json::writeString)
                .orElse("");
        Optional<Window> window = firings.recordInWindow(
                firing, correlation, Ids.next("twn"), now.plusSeconds(trigger.debounceSeconds()));
        // asked again on every firing of the window: one lost to a crash after the window opened comes back
        window.ifPresent(w -> engine.client().scheduleIfNotExists(windowTask.instance(w.id()), w.dueAt()));
    }

    /** Starts a waiting firing's target: a pipeline's run now, or the first attempt at its URL. */
    private void start(Trigger trigger, Firing firing) {
        switch (trigger.target()) {
            case Target.Pipeline pipeline -> {
                EventRun run = pipelines.startForEvent(
                        pipeline.pipelineId(), pipeline.params(), runTrigger(trigger, firing), firing.id());
                switch (run) {
                    case EventRun.Started started ->
                        firings.finish(
                                firing.id(),
                                Status.DONE,
                                Optional.of(started.runId()),
                                Optional.empty(),
                                clock.instant());
                    case EventRun.Refused refused ->
                        firings.finish(
                                firing.id(),
                                Status.FAILED,
                                Optional.empty(),
                                Optional.of(refused.reason()),
                                clock.instant());
                }
            }
            case Target.Url url ->
                engine.client().scheduleIfNotExists(deliveryTask.instance(firing.id()), clock.instant());
        }
    }

    /** What a run's {@code trigger} says of the firing that started it; {@code event} is what its steps read. */
    private static ObjectNode runTrigger(Trigger trigger, Firing firing) {
        ObjectNode json = Json.object()
                .put("type", "event")
                .put("trigger_id", trigger.id())
                .put("firing_id", firing.id())
                .put("delivery_id", firing.deliveryId())
                .put("event_count", firing.eventCount());
        json.set("event", firing.event().orElseThrow());
        return json;
    }

    private CompletionHandler<Void> closeWindow(TaskInstance<Void> instance, ExecutionContext context) {
        firings.closeWindow(instance.getId()).ifPresent(firing -> {
            Optional<Trigger> trigger = triggers.find(firing.triggerId()).filter(Trigger::enabled);
            if (trigger.isPresent()) {
                start(trigger.get(), firing);
            } else {
                firings.finish(
                        firing.id(),
                        Status.FAILED,
                        Optional.empty(),
                        Optional.of("The trigger was deleted or disabled before its debounce window closed."),
                        clock.instant());
            }
        });
        return new CompletionHandler.OnCompleteRemove<>();
    }

    /**
     * One attempt at a firing's URL. Every answer but 2xx, and every failure to reach the URL, is tried again after
     * the next of the retry delays; after the last, the firing has failed.
     */
    private CompletionHandler<Void> deliver(TaskInstance<Void> instance, ExecutionContext context) {
        Optional<Firing> found = firings.find(instance.getId()).filter(f -> f.status() == Status.WAITING);
        if (found.isEmpty()) {
            return new CompletionHandler.OnCompleteRemove<>();
        }
        Firing firing = found.get();
        Instant now = clock.instant();
        Optional<Target.Url> target = triggers.find(firing.triggerId())
                .map(Trigger::target)
                .flatMap(t -> t instanceof Target.Url url ? Optional.of(url) : Optional.empty());
        if (target.isEmpty()) {
            firings.finish(
                    firing.id(),
                    Status.FAILED,
                    Optional.empty(),
                    Optional.of("The trigger was deleted, or no longer calls a URL, before its event was delivered."),
                    now);
            return new CompletionHandler.OnCompleteRemove<>();
        }
        int attempt = firings.attempts(firing.id()).size() + 1;
        UrlDelivery.Result result;
        try {
            result = delivery.post(
                    target.get(), firing.id(), Json.write(firing.event().orElseThrow()), now);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            // the server is stopping: the execution stays and is attempted again after the restart
            throw new IllegalStateException("stopped while delivering " + firing.id(), e);
        }
        Attempt tried = switch (result) {
            case UrlDelivery.Result.Delivered delivered ->
                new Attempt(attempt, now, OptionalInt.of(delivered.status()), Optional.empty());
            case UrlDelivery.Result.Refused refused ->
                new Attempt(attempt, now, OptionalInt.of(refused.status()), Optional.of(refused.error()));
            case UrlDelivery.Result.Unreachable unreachable ->
                new Attempt(attempt, now, OptionalInt.empty(), Optional.of(unreachable.error()));
            case UrlDelivery.Result.NotAllowed notAllowed ->
                new Attempt(attempt, now, OptionalInt.empty(), Optional.of(notAllowed.error()));
        };
        firings.attempted(firing.id(), tried);
        if (result instanceof UrlDelivery.Result.Delivered) {
            firings.finish(firing.id(), Status.DONE, Optional.empty(), Optional.empty(), clock.instant());
            return new CompletionHandler.OnCompleteRemove<>();
        }
        if (result instanceof UrlDelivery.Result.NotAllowed || attempt > retryDelays.size()) {
            firings.finish(firing.id(), Status.FAILED, Optional.empty(), tried.error(), clock.instant());
            return new CompletionHandler.OnCompleteRemove<>();
        }
        Instant next = clock.instant().plus(retryDelays.get(attempt - 1));
        LOG.info("trigger firing {}: attempt {} failed; the next at {}", firing.id(), attempt, next);
        return (complete, operations) -> operations.reschedule(complete, next);
    }

    @Override
    public void close() {
        if (started) {
            engine.stop();
        }
    }
}
