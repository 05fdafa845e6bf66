package dev.arbor.models.runtime;

import static java.util.Objects.requireNonNull;

import dev.arbor.models.engines.EngineKind;
import dev.arbor.models.engines.ReplicaSet;
import dev.arbor.models.engines.Scoring;
import dev.arbor.models.workers.WorkerLink;
import dev.arbor.models.workers.WorkerProtocol;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.timers.Repeating;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each loaded model in its own worker process, reached over a Unix socket, so that a crash is an answer
 * ({@code model_crashed}) rather than a dead server, and ejecting a model gives its memory back. Decisions wait for
 * a model that is loading (auto-load starts it), up to the load timeout.
 */
public final class ModelRuntime implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ModelRuntime.class);
    /** A load that failed this recently is reported again rather than retried on every request. */
    private static final Duration RETRY_FAILED_LOAD_AFTER = Duration.ofSeconds(60);
    /** How often answers past their time are looked for: a timeout fires up to this late. */
    private static final long LATE_CHECK_MILLIS = 100;

    /**
     * How long things may take, whether decisions may start a model themselves, when an unused model goes
     * ({@code idleEject}, zero for never), and how much memory the workers together may hold ({@code memoryBudget}
     * in bytes: past it the least recently used go, the last one always stays).
     */
    public record Settings(
            Duration loadTimeout, Duration answerTimeout, boolean autoLoad, Duration idleEject, long memoryBudget) {
        public static final Settings DEFAULT = new Settings(
                Duration.ofMinutes(15), Duration.ofMinutes(10), true, Duration.ofMinutes(30), machineMemory() * 3 / 4);

        public Settings with(boolean autoLoadOn, Duration loadTimeoutNow, Duration answerTimeoutNow) {
            return new Settings(loadTimeoutNow, answerTimeoutNow, autoLoadOn, idleEject, memoryBudget);
        }

        public Settings withEjection(Duration idle, long budget) {
            return new Settings(loadTimeout, answerTimeout, autoLoad, idle, budget);
        }

        private static long machineMemory() {
            var os = ManagementFactory.getOperatingSystemMXBean();
            return os instanceof com.sun.management.OperatingSystemMXBean machine
                    ? machine.getTotalMemorySize()
                    : Runtime.getRuntime().maxMemory() * 4;
        }
    }

    private final RunnableModels models;
    private final WorkerProcess.Launcher launcher;
    private final Settings settings;
    private final MeterRegistry meters;
    private final Meter.MeterProvider<Timer> loads;
    private final Map<String, WorkerHandle> workers = new ConcurrentHashMap<>();
    /** The open replica sets by name; apart from the workers above, which ejection and the budget act on. */
    private final Map<String, Replicas> replicaSets = new ConcurrentHashMap<>();

    private final Set<String> meteredModels = ConcurrentHashMap.newKeySet();
    /** Restarts replicas and takes their autoscaling steps: short tasks, that never wait on a process. */
    private final ScheduledExecutorService replicaUpkeep = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("arbor-replica-upkeep").factory());

    private final ScheduledExecutorService housekeeping = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("arbor-model-housekeeping").factory());
    /** Ends waits for answers that take too long; apart from housekeeping, which may wait on a stopping worker. */
    private final ScheduledExecutorService deadlines = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("arbor-model-deadlines").factory());

    /**
     * @param dataDir where worker logs ({@code logs/}) and native-library caches ({@code cache/}) go
     * @param meters where loads are counted and timed ({@code arbor_model_loads_seconds}, by model and outcome) and
     *               each loaded model's worker memory is shown ({@code arbor_model_worker_resident_bytes})
     */
    public ModelRuntime(RunnableModels models, Path dataDir, Settings settings, MeterRegistry meters) {
        this.models = requireNonNull(models, "models");
        this.launcher = new WorkerProcess.Launcher(dataDir.resolve("logs"), dataDir.resolve("cache"));
        this.settings = requireNonNull(settings, "settings");
        this.meters = requireNonNull(meters, "meters");
        this.loads = Timer.builder("arbor.model.loads")
                .description("Model loads by model and outcome (loaded, failed, ejected), with their time")
                .serviceLevelObjectives(
                        Duration.ofSeconds(1),
                        Duration.ofSeconds(5),
                        Duration.ofSeconds(15),
                        Duration.ofSeconds(60),
                        Duration.ofMinutes(5))
                .withRegistry(meters);
    }

    /** Starts the timers that end late answers and eject idle models and models over the memory budget. */
    public void start() {
        Repeating.every(
                deadlines,
                Duration.ofMillis(LATE_CHECK_MILLIS),
                Duration.ofMillis(LATE_CHECK_MILLIS),
                "ending late answers",
                this::endLateAnswers);
        long every = settings.idleEject().isZero()
                ? 30_000
                : Math.max(200, Math.min(30_000, settings.idleEject().toMillis() / 2));
        Repeating.every(
                housekeeping,
                Duration.ofMillis(every),
                Duration.ofMillis(every),
                "model housekeeping",
                this::ejectIdleAndOverBudget);
    }

    private void endLateAnswers() {
        long now = System.nanoTime();
        for (WorkerHandle handle : workers.values()) {
            if (handle.worker.link.state() == Future.State.SUCCESS) {
                handle.worker.link.resultNow().closeLate(now);
            }
        }
        replicaSets.values().forEach(set -> set.closeLate(now));
    }

    /**
     * Ejects models nobody asked for in the idle time, then, while the workers hold more memory than the budget,
     * the least recently used (the last one stays: a budget too small for one model would otherwise eject all).
     */
    private void ejectIdleAndOverBudget() {
        try {
            long now = System.currentTimeMillis();
            var loaded = workers.entrySet().stream()
                    .filter(e ->
                            e.getValue().worker.link.isDone() && !e.getValue().failed())
                    .sorted(Comparator.comparingLong(e -> e.getValue().lastUsedMillis))
                    .toList();
            var kept = new ArrayList<Map.Entry<String, WorkerHandle>>();
            for (var entry : loaded) {
                if (!settings.idleEject().isZero()
                        && now - entry.getValue().lastUsedMillis
                                > settings.idleEject().toMillis()) {
                    LOG.info(
                            "ejecting {}: unused for {} s",
                            entry.getKey(),
                            settings.idleEject().toSeconds());
                    eject(entry.getKey());
                } else {
                    kept.add(entry);
                }
            }
            long held = kept.stream()
                    .mapToLong(e -> residentBytes(e.getValue().worker.process))
                    .sum();
            for (int i = 0; held > settings.memoryBudget() && i < kept.size() - 1; i++) {
                long freed = residentBytes(kept.get(i).getValue().worker.process);
                LOG.info(
                        "ejecting {}: the workers hold {} MB, over the budget of {} MB",
                        kept.get(i).getKey(),
                        held >> 20,
                        settings.memoryBudget() >> 20);
                eject(kept.get(i).getKey());
                held -= freed;
            }
        } catch (RuntimeException e) {
            LOG.warn("model housekeeping failed; it runs again shortly", e);
        }
    }

    /** The memory a process holds (Linux: resident set size); zero where that cannot be read. */
    private static long residentBytes(Process process) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
        return 0;
    }

    /** The studio's worker for a model, and how it has been used. */
    private static final class WorkerHandle {
        /** Set once, as the worker starts, before the handle is shared. */
        @SuppressWarnings("NullAway.Init")
        WorkerProcess worker;

        volatile long lastUsedMillis = System.currentTimeMillis();
        volatile boolean ejected;
        /** The worker's resident memory as a gauge, from its load until it goes. */
        volatile Optional<Gauge> memory = Optional.empty();

        long startedAtMillis() {
            return worker.startedAtMillis;
        }

        long loadedAtMillis() {
            return worker.loadedAtMillis;
        }

        boolean failed() {
            return worker.link.isCompletedExceptionally() && !ejected;
        }
    }

    /** Lets go of a worker that is gone or going: its socket, and its memory gauge. */
    private void forget(WorkerHandle handle) {
        // a link that failed has nothing to close; closing one does not throw, so the stage has nothing to report
        var _ = handle.worker.link.thenAccept(WorkerLink::close);
        handle.memory.ifPresent(meters::remove);
    }

    /**
     * Where a model's worker stands: {@code status} is {@code not_loaded}, {@code loading}, {@code loaded} or
     * {@code failed} (with why, in {@code error}); {@code workerPid} while its process runs.
     */
    public record WorkerState(String status, Optional<Long> workerPid, Optional<String> error) {}

    public WorkerState workerState(String modelId) {
        WorkerHandle handle = workers.get(modelId);
        if (handle == null) {
            return new WorkerState("not_loaded", Optional.empty(), Optional.empty());
        }
        Optional<Long> pid =
                handle.worker.process.isAlive() ? Optional.of(handle.worker.process.pid()) : Optional.empty();
        if (handle.failed()) {
            return new WorkerState(
                    "failed",
                    pid,
                    Optional.ofNullable(handle.worker.link.exceptionNow().getMessage()));
        }
        return new WorkerState(
                handle.worker.link.isDone() && handle.worker.process.isAlive() ? "loaded" : "loading",
                pid,
                Optional.empty());
    }

    /**
     * Where a model stands at run time: {@code loaded}, {@code loading}, {@code failed}, or (no worker) its files'
     * status in the registry, {@code filesStatus}.
     */
    public String status(String modelId, String filesStatus) {
        String worker = workerState(modelId).status();
        return worker.equals("not_loaded") ? filesStatus : worker;
    }

    /** Starts loading a model unless it is loaded or loading; returns at once. */
    public void load(String modelId, Map<String, String> options) {
        RunnableModel model = downloaded(models.runnable(modelId, "model_id"), "model_id");
        workers.compute(model.id(), (id, existing) -> {
            if (existing != null && !existing.failed() && existing.worker.process.isAlive()) {
                return existing;
            }
            return replace(existing, model, options);
        });
    }

    /** Stops a model's worker; requests waiting for it get {@code model_ejected}. Returns whether one ran. */
    public boolean eject(String modelId) {
        WorkerHandle handle = workers.remove(modelId);
        if (handle == null) {
            return false;
        }
        handle.ejected = true;
        handle.worker.link.completeExceptionally(new IllegalStateException("ejected"));
        handle.worker.stop();
        forget(handle);
        return true;
    }

    /** The process id of a model's worker, when one runs. */
    public Optional<Long> workerPid(String modelId) {
        return Optional.ofNullable(workers.get(modelId))
                .filter(h -> h.worker.process.isAlive())
                .map(h -> h.worker.process.pid());
    }

    /** The last lines of a model's worker log. */
    public List<String> logs(String modelId, int lines) {
        Path log = launcher.workerLog(modelId);
        if (!Files.exists(log)) {
            return List.of();
        }
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return List.copyOf(all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Asks a model to score; loads it first when auto-load is on. Failures end in the contract's codes:
     * {@code model_not_loaded}, {@code model_load_failed}, {@code model_load_timeout}, {@code model_ejected},
     * {@code model_crashed}, {@code model_timeout}, {@code model_rejected_input}.
     */
    public Scoring.Answer score(String modelId, Scoring.Request request) {
        return score(modelId, request, () -> {});
    }

    /**
     * {@link #score(String, Scoring.Request)}, calling {@code atModel} once the model is ready and just before the
     * request goes to it: a caller that may be cancelled marks there the point after which it no longer can, and
     * may throw to give up instead.
     */
    public Scoring.Answer score(String modelId, Scoring.Request request, Runnable atModel) {
        RunnableModel model = downloaded(models.runnable(modelId, "model"), "model");
        WorkerHandle handle = ready(model);
        WorkerLink link = awaitLink(model, handle);
        atModel.run();
        return ask(model, handle, link, request);
    }

    /**
     * Asks a model for the embeddings of texts, loading it as {@link #score(String, Scoring.Request)} does; a model
     * whose engine cannot embed is 400 {@code model_capability_unsupported}.
     */
    public ReplicaSet.Embeddings embed(String modelId, List<String> inputs) {
        requireNonNull(inputs, "inputs");
        checkEmbeds(modelId);
        RunnableModel model = downloaded(models.runnable(modelId, "model"), "model");
        WorkerHandle handle = ready(model);
        WorkerLink link = awaitLink(model, handle);
        handle.lastUsedMillis = System.currentTimeMillis();
        try {
            return WorkerProtocol.embeddings(WorkerProtocol.exchange(
                    link, WorkerProtocol.embed(inputs), settings.answerTimeout(), delta -> {}, "Model " + model.id()));
        } catch (IOException e) {
            throw crashed(model, handle);
        }
    }

    /** Refuses a model whose engine cannot embed: 400 {@code model_capability_unsupported}, 404 when unknown. */
    public void checkEmbeds(String modelId) {
        RunnableModel model = models.runnable(modelId, "model");
        boolean embeds = EngineKind.of(model.engine())
                .map(kind -> kind.capabilities().contains(ReplicaSet.Capability.EMBED))
                .orElse(false);
        if (!embeds) {
            throw ApiException.of(
                    ErrorCode.MODEL_CAPABILITY_UNSUPPORTED,
                    "model",
                    "Model " + modelId + " (engine " + model.engine() + ") cannot embed; a fitted head learns from "
                            + "embeddings, so fit with an embedding model.");
        }
    }

    /** The model when its files are all here; 409 {@code model_not_downloaded} otherwise. */
    private static RunnableModel downloaded(RunnableModel model, String param) {
        if (!model.downloaded()) {
            throw ApiException.of(
                    ErrorCode.MODEL_NOT_DOWNLOADED,
                    param,
                    "Model " + model.id() + " is "
                            + model.status().replace('_', ' ')
                            + model.error().map(e -> " (" + e + ")").orElse("")
                            + "; download it (POST /models/" + model.id() + "/download) before it can run.");
        }
        return model;
    }

    /** Whether decisions may start loading a model themselves. */
    public boolean autoLoad() {
        return settings.autoLoad();
    }

    /** The model whose load finished last among those still loaded: the one a decision naming none runs on. */
    public Optional<String> lastLoaded() {
        return workers.entrySet().stream()
                .filter(e -> e.getValue().loadedAtMillis() > 0
                        && e.getValue().worker.process.isAlive()
                        && !e.getValue().ejected)
                .max(Comparator.comparingLong(e -> e.getValue().loadedAtMillis()))
                .map(Map.Entry::getKey);
    }

    private WorkerHandle ready(RunnableModel model) {
        WorkerHandle handle = workers.get(model.id());
        if (handle != null
                && handle.failed()
                && System.currentTimeMillis() - handle.startedAtMillis() < RETRY_FAILED_LOAD_AFTER.toMillis()) {
            return handle;
        }
        if (handle != null && !handle.failed() && (handle.worker.process.isAlive() || !handle.worker.link.isDone())) {
            return handle;
        }
        if (!settings.autoLoad()) {
            throw ApiException.of(
                    ErrorCode.MODEL_NOT_LOADED,
                    "model",
                    "Model " + model.id() + " is not loaded and " + "auto-load is off; load it first (POST /models/"
                            + model.id() + "/load).");
        }
        return workers.compute(
                model.id(),
                (id, existing) -> existing == null
                                || existing.failed()
                                || (existing.worker.link.isDone() && !existing.worker.process.isAlive())
                        ? replace(existing, model, Map.of())
                        : existing);
    }

    /** Starts a worker in place of one that failed or ended (or of none). */
    private WorkerHandle replace(WorkerHandle ended, RunnableModel model, Map<String, String> options) {
        if (ended != null) {
            forget(ended);
        }
        return start(model, options);
    }

    private WorkerLink awaitLink(RunnableModel model, WorkerHandle handle) {
        long waitedMillis = System.currentTimeMillis() - handle.startedAtMillis();
        long left = Math.max(1, settings.loadTimeout().toMillis() - waitedMillis);
        try {
            return handle.worker.link.get(left, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw ApiException.of(
                    ErrorCode.MODEL_LOAD_TIMEOUT,
                    "model",
                    "Model " + model.id() + " is still loading " + "after "
                            + settings.loadTimeout().toMinutes() + " minutes; try again later.");
        } catch (ExecutionException e) {
            if (handle.ejected) {
                throw ApiException.of(
                        ErrorCode.MODEL_EJECTED,
                        "model",
                        "Model " + model.id() + " was ejected while this request waited for it.");
            }
            throw ApiException.of(
                    ErrorCode.MODEL_LOAD_FAILED,
                    "model",
                    "Model " + model.id() + " could not load: "
                            + requireNonNull(e.getCause()).getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a model", e);
        }
    }

    private Scoring.Answer ask(RunnableModel model, WorkerHandle handle, WorkerLink link, Scoring.Request request) {
        handle.lastUsedMillis = System.currentTimeMillis();
        try {
            return WorkerProtocol.answer(WorkerProtocol.exchange(
                    link, WorkerProtocol.score(request), settings.answerTimeout(), delta -> {}, "Model " + model.id()));
        } catch (IOException e) {
            throw crashed(model, handle);
        }
    }

    private ApiException crashed(RunnableModel model, WorkerHandle handle) {
        try {
            handle.worker.process.waitFor(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (handle.ejected) {
            return ApiException.of(
                    ErrorCode.MODEL_EJECTED, "model", "Model " + model.id() + " was ejected while it answered.");
        }
        if (workers.remove(model.id(), handle)) {
            forget(handle);
        }
        String how = handle.worker.process.isAlive()
                ? "stopped answering"
                : "stopped while answering (" + WorkerProcess.exitReason(handle.worker.process.exitValue()) + ")";
        LOG.warn("worker for {} {}", model.id(), how);
        return ApiException.of(
                ErrorCode.MODEL_CRASHED,
                "model",
                "Model " + model.id() + " " + how + "; the next decision starts it again.");
    }

    private WorkerHandle start(RunnableModel model, Map<String, String> options) {
        var handle = new WorkerHandle();
        handle.worker = launcher.start(
                model,
                options,
                ReplicaSet.WorkerLimits.NONE,
                launcher.workerLog(model.id()),
                Optional.empty(),
                ready -> loaded(model, handle, ready));
        // the load's own failure is the worker's to report; recording the time cannot fail
        var _ = handle.worker.link.whenComplete((link, failure) -> recordLoad(model, handle));
        return handle;
    }

    /** A worker that became ready is used from now, and its memory shown. */
    private void loaded(RunnableModel model, WorkerHandle handle, WorkerProcess ready) {
        handle.lastUsedMillis = ready.loadedAtMillis;
        handle.memory = Optional.of(Gauge.builder("arbor.model.worker.resident", ready, w -> residentBytes(w.process))
                .description("The resident memory of a loaded model's worker process")
                .baseUnit("bytes")
                .tag("model", model.id())
                .register(meters));
        if (handle.ejected) {
            forget(handle); // ejected as it became ready: the eject let go before the gauge was there
        }
    }

    private void recordLoad(RunnableModel model, WorkerHandle handle) {
        String outcome =
                handle.ejected ? "ejected" : handle.worker.link.isCompletedExceptionally() ? "failed" : "loaded";
        loads.withTags("model", model.id(), "outcome", outcome)
                .record(System.currentTimeMillis() - handle.startedAtMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Starts {@code replicas} worker processes of a downloaded model behind one least-busy entry point, and returns
     * at once: they load in the background, and calls wait for the first ready one. They stand apart from the
     * studio's one worker per model (no idle ejection, outside the memory budget) until the caller closes the set.
     * {@code name} names their logs ({@code logs/replica-<name>-<index>.log}), their processes and their metrics
     * ({@code arbor_model_replicas}, {@code arbor_model_replicas_in_flight}, tagged {@code set}); it must be unique
     * among the open sets. 404 {@code model_not_found} or 409 {@code model_not_downloaded} (param {@code model_id})
     * for a model that cannot run.
     */
    public ReplicaSet replicas(String modelId, String name, int replicas, ReplicaSet.Listener listener) {
        return replicas(modelId, name, replicas, ReplicaSet.WorkerLimits.NONE, listener);
    }

    /** {@link #replicas(String, String, int, ReplicaSet.Listener)} with what each replica's process may use. */
    public ReplicaSet replicas(
            String modelId, String name, int replicas, ReplicaSet.WorkerLimits limits, ReplicaSet.Listener listener) {
        return replicas(
                modelId, name, replicas, listener, Map.of(), requireNonNull(limits, "limits"), Clock.systemUTC());
    }

    /** The set of {@link #replicas(String, String, int, ReplicaSet.Listener)} with load options and a test's clock. */
    Replicas replicas(
            String modelId,
            String name,
            int replicas,
            ReplicaSet.Listener listener,
            Map<String, String> options,
            Clock clock) {
        return replicas(modelId, name, replicas, listener, options, ReplicaSet.WorkerLimits.NONE, clock);
    }

    /**
     * {@link #replicas(String, String, int, ReplicaSet.Listener)} with load options for the workers (as
     * {@link #load} takes them) and a clock for autoscaling that tests move.
     */
    private Replicas replicas(
            String modelId,
            String name,
            int replicas,
            ReplicaSet.Listener listener,
            Map<String, String> options,
            ReplicaSet.WorkerLimits limits,
            Clock clock) {
        requireNonNull(name, "name");
        requireNonNull(listener, "listener");
        if (replicas < 0) {
            throw new IllegalArgumentException("a replica set cannot have " + replicas + " replicas");
        }
        RunnableModel model = downloaded(models.runnable(modelId, "model_id"), "model_id");
        Replicas set = replicaSets.compute(name, (key, open) -> {
            if (open != null) {
                throw new IllegalStateException("a replica set named " + name + " is open already");
            }
            return new Replicas(
                    model,
                    name,
                    options,
                    limits,
                    launcher,
                    settings,
                    replicaUpkeep,
                    clock,
                    listener,
                    () -> replicaSets.remove(key));
        });
        meterReplicasOf(model.id());
        set.scale(replicas);
        return set;
    }

    /**
     * {@code arbor_model_replicas} by model and status and {@code arbor_model_replicas_in_flight} by model, summed
     * over the model's replica sets: a set is a project's deployment, whose id has no place in a label. Registered
     * with a model's first set and kept (at 0) after its last: the models bound the series.
     */
    private void meterReplicasOf(String modelId) {
        if (!meteredModels.add(modelId)) {
            return;
        }
        for (ReplicaSet.ReplicaStatus status : ReplicaSet.ReplicaStatus.values()) {
            Gauge.builder(
                            "arbor.model.replicas",
                            this,
                            runtime -> runtime.sumOverSets(modelId, set -> set.count(status)))
                    .description("Replicas of a model's replica sets (its deployments on this machine) by status")
                    .tag("model", modelId)
                    .tag("status", status.name().toLowerCase(Locale.ROOT))
                    .register(meters);
        }
        Gauge.builder(
                        "arbor.model.replicas.in.flight",
                        this,
                        runtime -> runtime.sumOverSets(modelId, Replicas::inFlight))
                .description("Calls in flight on a model's replica sets")
                .tag("model", modelId)
                .register(meters);
    }

    private int sumOverSets(String modelId, ToIntFunction<Replicas> count) {
        return replicaSets.values().stream()
                .filter(set -> set.modelId().equals(modelId))
                .mapToInt(count)
                .sum();
    }

    /** Stops every worker and every replica set. */
    @Override
    public void close() {
        housekeeping.shutdownNow();
        deadlines.shutdownNow();
        List.copyOf(replicaSets.values()).forEach(Replicas::close);
        replicaUpkeep.shutdownNow();
        List.copyOf(workers.keySet()).forEach(this::eject);
    }
}
