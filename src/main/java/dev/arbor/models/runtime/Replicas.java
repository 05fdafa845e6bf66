package dev.arbor.models.runtime;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.models.engines.EngineKind;
import dev.arbor.models.engines.ReplicaSet;
import dev.arbor.models.engines.Scoring;
import dev.arbor.models.workers.WorkerLink;
import dev.arbor.models.workers.WorkerProtocol;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link ReplicaSet} of worker processes on this machine, made by {@link ModelRuntime#replicas}.
 *
 * <p><b>Least busy.</b> A call goes to the ready replica with the fewest calls in flight; among equals, to the next in
 * turn. While none is ready a call waits, up to the load timeout ({@code model_load_timeout}); when every replica's
 * last load failed it ends at once with {@code model_load_failed} and the reason.
 *
 * <p><b>Replacement.</b> A replica whose process ends is started again in its place (same index, same log): at once
 * when it had loaded (a crash or a kill), and after a pause when its load failed, one second after the first failure,
 * then two, four and so on up to a minute between tries, for as long as its loads keep failing; a load that succeeds
 * starts the count again. A call on a replica that dies under it fails with {@code model_crashed}; the caller may
 * retry, and the next call goes to a live replica.
 *
 * <p><b>Scaling.</b> Scaling down stops replicas that serve nothing first (failed or still loading), then the least
 * busy, the newest among equals; a stopping replica takes no new calls, finishes those in flight, then stops.
 *
 * <p><b>Autoscaling.</b> Every second the calls in flight over all replicas are sampled. The count goes up at once to
 * {@code ceil(in flight now / target)}, and down to {@code ceil(mean of the samples of the last 30 seconds / target)}
 * only once that has stayed below the count for a quiet minute, so that a lull between bursts does not stop replicas
 * that the next burst would start again; both within the bounds.
 */
final class Replicas implements ReplicaSet {
    private static final Logger LOG = LoggerFactory.getLogger(Replicas.class);

    static final Duration FIRST_RETRY = Duration.ofSeconds(1);
    static final Duration LONGEST_RETRY = Duration.ofMinutes(1);
    static final Duration AUTOSCALING_WINDOW = Duration.ofSeconds(30);
    static final Duration QUIET_PERIOD = Duration.ofMinutes(1);
    private static final Duration TICK = Duration.ofSeconds(1);

    private final RunnableModel model;
    private final String name;
    private final Map<String, String> options;
    private final WorkerLimits limits;
    private final List<Capability> capabilities;
    private final WorkerProcess.Launcher launcher;
    private final ModelRuntime.Settings settings;
    private final Listener listener;
    private final ScheduledExecutorService upkeep;
    private final Clock clock;
    private final Runnable closed;
    /** Tells the listener of changes one at a time, in order, without holding up the set. */
    private final ExecutorService announcements;

    private final ScheduledFuture<?> ticking;

    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when a replica's status changes, for calls waiting for a ready one. */
    private final Condition changed = lock.newCondition();
    // the rest is guarded by lock
    private final List<Replica> replicas = new ArrayList<>();
    private int desired;
    private Optional<Autoscaling> autoscaling = Optional.empty();
    private final Deque<Sample> samples = new ArrayDeque<>();
    private Optional<Instant> belowSince = Optional.empty();
    private long turn;
    private boolean closing;

    private record Sample(Instant at, int inFlight) {}

    /** One place in the set: its process (replaced when it ends) and the calls on it. Guarded by the set's lock. */
    private final class Replica {
        final int index;
        Optional<WorkerProcess> worker = Optional.empty();
        ReplicaStatus status = ReplicaStatus.STARTING;
        int inFlight;
        Optional<String> error = Optional.empty();
        int failedLoads;
        Optional<ScheduledFuture<?>> retry = Optional.empty();

        Replica(int index) {
            this.index = index;
        }

        String label() {
            return name + "-" + index;
        }

        ReplicaState state() {
            return new ReplicaState(index, worker.map(w -> w.process.pid()).orElse(0L), status, inFlight, error);
        }
    }

    Replicas(
            RunnableModel model,
            String name,
            Map<String, String> options,
            WorkerLimits limits,
            WorkerProcess.Launcher launcher,
            ModelRuntime.Settings settings,
            ScheduledExecutorService upkeep,
            Clock clock,
            Listener listener,
            Runnable closed) {
        this.model = requireNonNull(model, "model");
        this.name = requireNonNull(name, "name");
        this.options = Map.copyOf(options);
        this.limits = requireNonNull(limits, "limits");
        this.capabilities = List.copyOf(
                EngineKind.of(model.engine()).map(EngineKind::capabilities).orElse(List.of(Capability.SCORE)));
        this.launcher = requireNonNull(launcher, "launcher");
        this.settings = requireNonNull(settings, "settings");
        this.upkeep = requireNonNull(upkeep, "upkeep");
        this.clock = requireNonNull(clock, "clock");
        this.listener = requireNonNull(listener, "listener");
        this.closed = requireNonNull(closed, "closed");
        this.announcements = Executors.newSingleThreadExecutor(
                Thread.ofVirtual().name("arbor-replicas-" + name).factory());
        this.ticking =
                upkeep.scheduleAtFixedRate(this::tickQuietly, TICK.toMillis(), TICK.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public String modelId() {
        return model.id();
    }

    @Override
    public List<Capability> capabilities() {
        return capabilities;
    }

    @Override
    public int desired() {
        lock.lock();
        try {
            return desired;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public List<ReplicaState> replicas() {
        lock.lock();
        try {
            return replicas.stream().map(Replica::state).toList();
        } finally {
            lock.unlock();
        }
    }

    int count(ReplicaStatus status) {
        lock.lock();
        try {
            return (int) replicas.stream().filter(r -> r.status == status).count();
        } finally {
            lock.unlock();
        }
    }

    int inFlight() {
        lock.lock();
        try {
            return replicas.stream().mapToInt(r -> r.inFlight).sum();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void scale(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("a replica set cannot have " + count + " replicas");
        }
        lock.lock();
        try {
            requireOpen();
            desired = count;
            belowSince = Optional.empty();
            reconcile();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void autoscale(Optional<Autoscaling> bounds) {
        requireNonNull(bounds, "bounds");
        lock.lock();
        try {
            requireOpen();
            autoscaling = bounds;
            samples.clear();
            belowSince = Optional.empty();
            if (bounds.isPresent()) {
                desired = within(bounds.get(), desired);
                reconcile();
            }
        } finally {
            lock.unlock();
        }
    }

    private static int within(Autoscaling bounds, int count) {
        return Math.max(bounds.minReplicas(), Math.min(bounds.maxReplicas(), count));
    }

    private void requireOpen() {
        if (closing) {
            throw new IllegalStateException("the replica set " + name + " is closed");
        }
    }

    private void tickQuietly() {
        try {
            tick();
        } catch (RuntimeException e) {
            LOG.warn("autoscaling {} failed; it tries again in a second", name, e);
        }
    }

    /** One autoscaling step (see the class comment); the set takes one a second, tests take theirs too. */
    void tick() {
        lock.lock();
        try {
            if (closing || autoscaling.isEmpty()) {
                return;
            }
            Autoscaling bounds = autoscaling.get();
            Instant now = clock.instant();
            int inFlight = replicas.stream().mapToInt(r -> r.inFlight).sum();
            samples.addLast(new Sample(now, inFlight));
            while (samples.getFirst().at().isBefore(now.minus(AUTOSCALING_WINDOW))) {
                samples.removeFirst();
            }
            int busy = within(bounds, ceilDiv(inFlight, bounds.targetInFlight()));
            double mean = samples.stream().mapToInt(Sample::inFlight).average().orElse(0);
            int calm = within(bounds, (int) Math.ceil(mean / bounds.targetInFlight()));
            if (busy > desired) {
                LOG.info("{}: {} calls in flight, scaling up from {} to {} replicas", name, inFlight, desired, busy);
                desired = busy;
                belowSince = Optional.empty();
                reconcile();
            } else if (calm < desired) {
                if (belowSince.isEmpty()) {
                    belowSince = Optional.of(now);
                } else if (!now.isBefore(belowSince.get().plus(QUIET_PERIOD))) {
                    LOG.info(
                            "{}: quiet for {} s, scaling down from {} to {} replicas",
                            name,
                            QUIET_PERIOD.toSeconds(),
                            desired,
                            calm);
                    desired = calm;
                    belowSince = Optional.empty();
                    reconcile();
                }
            } else {
                belowSince = Optional.empty();
            }
        } finally {
            lock.unlock();
        }
    }

    private static int ceilDiv(int a, int b) {
        return (a + b - 1) / b;
    }

    /** Starts or stops replicas until as many as desired are not stopping. Under the lock. */
    private void reconcile() {
        List<Replica> serving = replicas.stream()
                .filter(r -> r.status != ReplicaStatus.STOPPING)
                .toList();
        for (int i = serving.size(); i < desired; i++) {
            var replica = new Replica(freeIndex());
            replicas.add(replica);
            start(replica);
        }
        if (serving.size() > desired) {
            serving.stream()
                    .sorted(Comparator.comparing((Replica r) -> r.status == ReplicaStatus.READY)
                            .thenComparingInt(r -> r.inFlight)
                            .thenComparing(Comparator.comparingInt((Replica r) -> r.index)
                                    .reversed()))
                    .limit(serving.size() - desired)
                    .forEach(this::beginStop);
        }
    }

    /** The lowest index no replica holds, so that logs stay as few as the most replicas ever run at once. */
    private int freeIndex() {
        for (int index = 0; ; index++) {
            int candidate = index;
            if (replicas.stream().noneMatch(r -> r.index == candidate)) {
                return candidate;
            }
        }
    }

    /** Starts a replica's process (again). Under the lock. */
    private void start(Replica replica) {
        replica.retry = Optional.empty();
        WorkerProcess worker;
        try {
            worker = launcher.start(
                    model,
                    options,
                    limits,
                    launcher.replicaLog(name, replica.index),
                    Optional.of(replica.label()),
                    ready -> {});
        } catch (RuntimeException e) {
            replica.status = ReplicaStatus.FAILED;
            replica.failedLoads++;
            replica.error = Optional.of(Objects.requireNonNullElse(e.getMessage(), e.toString()));
            announce(replica);
            retryLater(replica);
            return;
        }
        replica.worker = Optional.of(worker);
        replica.status = ReplicaStatus.STARTING;
        announce(replica);
        // each stage is told the load's and the process's ends; neither stage's own end has anything more to say
        var _ = worker.link.whenComplete((link, failure) -> loaded(replica, worker, Optional.ofNullable(failure)));
        var _ = worker.process.onExit().thenRun(() -> ended(replica, worker));
    }

    private void loaded(Replica replica, WorkerProcess worker, Optional<Throwable> failure) {
        lock.lock();
        try {
            if (closing || replica.worker.orElse(null) != worker || replica.status != ReplicaStatus.STARTING) {
                return;
            }
            if (failure.isEmpty()) {
                replica.status = ReplicaStatus.READY;
                replica.failedLoads = 0;
                replica.error = Optional.empty();
            } else {
                replica.status = ReplicaStatus.FAILED;
                replica.failedLoads++;
                replica.error = Optional.of(Objects.requireNonNullElse(
                        failure.get().getMessage(), failure.get().toString()));
                worker.process.destroyForcibly(); // alive only when contact was lost: it would not be reached
                retryLater(replica);
            }
            announce(replica);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void ended(Replica replica, WorkerProcess worker) {
        var _ = worker.link.thenAccept(WorkerLink::close); // a link that failed has nothing to close
        lock.lock();
        try {
            if (replica.worker.orElse(null) != worker) {
                return;
            }
            if (replica.status == ReplicaStatus.STOPPING) {
                replicas.remove(replica);
                changed.signalAll();
            } else if (!closing && replica.status == ReplicaStatus.READY) {
                replica.status = ReplicaStatus.FAILED;
                replica.error = Optional.of("the worker stopped ("
                        + WorkerProcess.exitReason(worker.process.exitValue()) + "); see its log, logs/"
                        + launcher.replicaLog(name, replica.index).getFileName());
                LOG.warn("replica {} of {}: {}", replica.label(), model.id(), replica.error.get());
                announce(replica);
                changed.signalAll();
                retryLater(replica);
            }
            // a replica still loading fails through its link, which says why; a failed one has its retry planned
        } finally {
            lock.unlock();
        }
    }

    /** Plans a replica's next start: at once after a crash, later after each failed load in a row. Under the lock. */
    private void retryLater(Replica replica) {
        long delay = replica.failedLoads == 0
                ? 0
                : Math.min(LONGEST_RETRY.toMillis(), FIRST_RETRY.toMillis() << Math.min(20, replica.failedLoads - 1));
        replica.retry = Optional.of(upkeep.schedule(() -> restart(replica), delay, TimeUnit.MILLISECONDS));
    }

    private void restart(Replica replica) {
        lock.lock();
        try {
            if (!closing && replica.status == ReplicaStatus.FAILED && replicas.contains(replica)) {
                start(replica);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Takes a replica out of service; its process stops once its calls are done. Under the lock. */
    private void beginStop(Replica replica) {
        replica.status = ReplicaStatus.STOPPING;
        replica.retry.ifPresent(retry -> retry.cancel(false));
        announce(replica);
        if (replica.worker.isEmpty() || !replica.worker.get().process.isAlive()) {
            replicas.remove(replica);
        } else if (replica.inFlight == 0) {
            WorkerProcess worker = replica.worker.get();
            Thread.ofVirtual().name("arbor-replica-stop-" + replica.label()).start(worker::stop);
        }
    }

    private void announce(Replica replica) {
        ReplicaState state = replica.state();
        announcements.execute(() -> {
            try {
                listener.changed(state);
            } catch (RuntimeException e) {
                LOG.warn("the listener of replica set {} failed on {}", name, state, e);
            }
        });
    }

    @Override
    public Scoring.Answer score(Scoring.Request request) {
        requireNonNull(request, "request");
        return call(
                Capability.SCORE,
                WorkerProtocol.score(request),
                settings.answerTimeout(),
                delta -> {},
                WorkerProtocol::answer);
    }

    @Override
    public Embeddings embed(List<String> inputs, Duration patience) {
        requireNonNull(inputs, "inputs");
        Duration eachPart = eachPart(patience);
        return call(
                Capability.EMBED,
                WorkerProtocol.embed(inputs, eachPart),
                eachPart,
                delta -> {},
                WorkerProtocol::embeddings);
    }

    @Override
    public Generation generate(GenerationRequest request, Duration patience, Consumer<String> deltas) {
        requireNonNull(request, "request");
        requireNonNull(deltas, "deltas");
        return call(
                Capability.GENERATE,
                WorkerProtocol.generate(request),
                eachPart(patience),
                deltas,
                WorkerProtocol::generation);
    }

    /** The caller's patience, within the model's own time to answer. */
    private Duration eachPart(Duration patience) {
        return patience.compareTo(settings.answerTimeout()) < 0 ? patience : settings.answerTimeout();
    }

    private <T> T call(
            Capability capability,
            byte[] request,
            Duration eachPart,
            Consumer<String> deltas,
            Function<JsonNode, T> read) {
        Duration timeout = settings.answerTimeout();
        if (!capabilities.contains(capability)) {
            throw ApiException.of(
                    ErrorCode.MODEL_CAPABILITY_UNSUPPORTED,
                    "model",
                    "Model " + model.id() + " (engine " + model.engine() + ") cannot "
                            + capability.name().toLowerCase(Locale.ROOT) + "; it can "
                            + String.join(
                                    ", ",
                                    capabilities.stream()
                                            .map(c -> c.name().toLowerCase(Locale.ROOT))
                                            .toList())
                            + ".");
        }
        Lease lease = leastBusy();
        Replica replica = lease.replica();
        WorkerProcess worker = lease.worker();
        try {
            return read.apply(WorkerProtocol.exchange(
                    worker.link.resultNow(),
                    request,
                    timeout,
                    eachPart,
                    deltas,
                    "Model " + model.id() + " (replica " + replica.label() + ")"));
        } catch (IOException e) {
            throw crashed(replica, worker);
        } finally {
            done(replica);
        }
    }

    /** A call's replica and the process it runs in, as they were when the call was counted on it. */
    private record Lease(Replica replica, WorkerProcess worker) {}

    /** The ready replica with the fewest calls in flight, counted as one more; waits while none is ready. */
    private Lease leastBusy() {
        long deadline = System.nanoTime() + settings.loadTimeout().toNanos();
        lock.lock();
        try {
            while (true) {
                if (closing) {
                    throw ApiException.of(
                            ErrorCode.MODEL_EJECTED, "model", "The replicas of " + model.id() + " were stopped.");
                }
                Optional<Replica> best = Optional.empty();
                for (int i = 0; i < replicas.size(); i++) {
                    Replica candidate = replicas.get((int) ((turn + i) % replicas.size()));
                    // a process that just ended may not have been seen to yet
                    boolean alive =
                            candidate.worker.map(w -> w.process.isAlive()).orElse(false);
                    if (candidate.status == ReplicaStatus.READY
                            && alive
                            && (best.isEmpty() || candidate.inFlight < best.get().inFlight)) {
                        best = Optional.of(candidate);
                    }
                }
                if (best.isPresent()) {
                    turn++;
                    best.get().inFlight++;
                    return new Lease(best.get(), best.get().worker.orElseThrow());
                }
                List<Replica> serving = replicas.stream()
                        .filter(r -> r.status != ReplicaStatus.STOPPING)
                        .toList();
                if (serving.isEmpty()) {
                    throw ApiException.of(
                            ErrorCode.MODEL_NOT_LOADED,
                            "model",
                            "The replica set " + name + " of " + model.id() + " has no replicas; scale it up.");
                }
                if (serving.stream().allMatch(r -> r.failedLoads > 0)) {
                    throw ApiException.of(
                            ErrorCode.MODEL_LOAD_FAILED,
                            "model",
                            "Model " + model.id() + " could not load: "
                                    + serving.getFirst().error.orElse("no reason given"));
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw ApiException.of(
                            ErrorCode.MODEL_LOAD_TIMEOUT,
                            "model",
                            "No replica of " + model.id() + " was ready after "
                                    + settings.loadTimeout().toSeconds() + " seconds; try again later.");
                }
                changed.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a replica", e);
        } finally {
            lock.unlock();
        }
    }

    /** A call ended: a stopping replica whose last call this was stops now. */
    private void done(Replica replica) {
        lock.lock();
        try {
            replica.inFlight--;
            if (replica.status == ReplicaStatus.STOPPING && replica.inFlight == 0 && !closing) {
                replica.worker.ifPresent(worker -> Thread.ofVirtual()
                        .name("arbor-replica-stop-" + replica.label())
                        .start(worker::stop));
            }
        } finally {
            lock.unlock();
        }
    }

    private ApiException crashed(Replica replica, WorkerProcess worker) {
        try {
            worker.process.waitFor(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        lock.lock();
        try {
            if (closing) {
                return ApiException.of(
                        ErrorCode.MODEL_EJECTED,
                        "model",
                        "The replicas of " + model.id() + " were stopped while this call ran.");
            }
        } finally {
            lock.unlock();
        }
        String how = worker.process.isAlive()
                ? "stopped answering"
                : "stopped while answering (" + WorkerProcess.exitReason(worker.process.exitValue()) + ")";
        return ApiException.of(
                ErrorCode.MODEL_CRASHED,
                "model",
                "Replica " + replica.label() + " of " + model.id() + " " + how
                        + "; it is being replaced, and a retry goes to a live replica.");
    }

    /** Ends the calls that ran past their time, on every replica. */
    void closeLate(long nowNanos) {
        List<WorkerProcess> workers;
        lock.lock();
        try {
            workers = replicas.stream().flatMap(r -> r.worker.stream()).toList();
        } finally {
            lock.unlock();
        }
        for (WorkerProcess worker : workers) {
            if (worker.link.state() == Future.State.SUCCESS) {
                worker.link.resultNow().closeLate(nowNanos);
            }
        }
    }

    @Override
    public void close() {
        List<WorkerProcess> workers = new ArrayList<>();
        lock.lock();
        try {
            if (closing) {
                return;
            }
            closing = true;
            ticking.cancel(false);
            for (Replica replica : replicas) {
                replica.retry.ifPresent(retry -> retry.cancel(false));
                replica.status = ReplicaStatus.STOPPING;
                announce(replica);
                replica.worker.ifPresent(workers::add);
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        var stopping = workers.stream()
                .map(worker -> Thread.ofVirtual().name("arbor-replica-stop").start(worker::stop))
                .toList();
        for (Thread thread : stopping) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        lock.lock();
        try {
            replicas.clear();
        } finally {
            lock.unlock();
        }
        announcements.shutdown();
        closed.run();
        LOG.info("replica set {} of {} closed", name, model.id());
    }
}
