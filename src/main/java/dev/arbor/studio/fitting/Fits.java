package dev.arbor.studio.fitting;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.models.runtime.ModelRuntime;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.db.Paging;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.instances.ServerInstances;
import dev.arbor.platform.instances.StoppedServerWork;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.secrets.Digests;
import dev.arbor.studio.decisions.Decisions;
import dev.arbor.studio.definitions.TemplateDefinition;
import dev.arbor.studio.evals.Evals;
import dev.arbor.studio.heads.Heads;
import dev.arbor.studio.planning.DecisionRequest;
import dev.arbor.studio.questions.Labels;
import dev.arbor.studio.questions.Question;
import dev.arbor.studio.templates.Templates;
import dev.arbor.studio.work.WorkError;
import dev.arbor.studio.work.WorkStatus;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fitted heads ({@code POST /v1/studio/templates/{id}/fit}): per question, a calibrated logistic head trained on the
 * model's embeddings of the template's calibration examples and feedback-labelled decisions (never its test split),
 * in the background on this machine. A completed fit writes a new template version whose settings name the heads for
 * the model; decisions on that version answer those questions with them.
 */
public final class Fits implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Fits.class);
    private static final int EMBED_BATCH = 16;
    /** How long deleting a running fit waits for it to stop (it stops between embedding batches and fits). */
    private static final long STOP_WAIT_SECONDS = 60;

    private final FitStore store;
    private final Templates templates;
    private final Decisions decisions;
    private final Evals evals;
    private final ModelRuntime runtime;
    private final ServerInstances instances;
    private final Clock clock;
    private final boolean readOnly;
    private final StoppedServerWork stopped;
    private final Heads heads;
    private final Map<String, Running> running = new ConcurrentHashMap<>();
    private final ExecutorService background = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("arbor-fit-", 0).factory());
    private volatile boolean closing;

    /** A fit this server runs: the flag that stops it, and when it ended (however it ended). */
    private record Running(AtomicBoolean cancelled, CompletableFuture<Void> ended) {}

    /** A fit ready to run: its labelled items and the questions with their definitions. */
    private record Job(String id, String reference, List<Evals.Labelled> items, List<Question> questions) {}

    public Fits(
            Database database,
            Heads heads,
            Clock clock,
            Templates templates,
            Decisions decisions,
            Evals evals,
            ModelRuntime runtime,
            ServerInstances instances) {
        this.store = new FitStore(database);
        this.heads = requireNonNull(heads, "heads");
        this.templates = requireNonNull(templates, "templates");
        this.decisions = requireNonNull(decisions, "decisions");
        this.evals = requireNonNull(evals, "evals");
        this.runtime = requireNonNull(runtime, "runtime");
        this.instances = requireNonNull(instances, "instances");
        this.clock = requireNonNull(clock, "clock");
        this.readOnly = database.readOnly();
        this.stopped = new StoppedServerWork(instances, "fits", this::failUnfinished);
    }

    public void addRoutes(Routes routes) {
        new FitRoutes(this).addTo(routes);
    }

    /** Fails the fits that stopped servers left queued or running, as evals do. */
    public void start() {
        if (!readOnly) {
            stopped.start();
        }
    }

    private int failUnfinished() {
        return store.failUnfinishedOfUnregistered(
                WorkError.of(
                        ErrorCode.INTERNAL_ERROR,
                        "The server stopped while this fit was queued or running; it was not run again. Start it again "
                                + "(POST /v1/studio/templates/{id}/fit) if it is still needed."),
                clock.millis());
    }

    /**
     * Checks a fit of a template (its questions, its labels, its model) and queues it; returns it as stored. Refuses
     * with 409 {@code too_few_labels} and the counts per question and class when a question cannot be fitted.
     */
    FitStore.Stored create(String templateId, Optional<List<String>> asked, Optional<String> model) {
        Templates.Resolved template = templates.resolve(templateId);
        List<Question> questions = questions(template.definition(), asked);
        var keys = new LinkedHashSet<String>();
        questions.forEach(q -> keys.add(q.key()));
        List<Evals.Labelled> items = evals.trainingItems(template.id(), keys);
        String reference = template.id() + "@" + template.version();
        String chosen = model.or(() -> items.isEmpty()
                        ? Optional.empty()
                        : decisions
                                .situation(input(reference, items.getFirst()))
                                .model())
                .or(() -> template.definition().model())
                .orElse("");
        if (!chosen.isEmpty()) {
            runtime.checkEmbeds(chosen);
        }
        checkLabels(questions, items);
        if (chosen.isEmpty()) {
            throw ApiException.of(
                    ErrorCode.MODEL_NOT_LOADED, "model", "No model answers this template; name one in `model`.");
        }
        String id = Ids.next("fit");
        var fit = new FitStore.Stored(
                id,
                WorkStatus.QUEUED,
                template.id(),
                template.version(),
                chosen,
                List.copyOf(keys),
                0,
                items.size() + questions.size(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                clock.millis(),
                Optional.empty(),
                Optional.empty());
        store.insert(fit, instances.id());
        submit(new Job(id, reference, items, questions));
        return find(id);
    }

    /** The questions fitted: those asked for (each a question that can have a head), else every one that can. */
    private static List<Question> questions(TemplateDefinition definition, Optional<List<String>> asked) {
        var all = new LinkedHashMap<String, Question>();
        definition
                .questions()
                .forEach((key, question) ->
                        all.put(key, Question.of(key, question.normal(), Question.Origin.TEMPLATE, false)));
        if (asked.isEmpty()) {
            return all.values().stream().filter(q -> HeadFitter.fits(q.type())).toList();
        }
        var chosen = new ArrayList<Question>();
        for (int i = 0; i < asked.get().size(); i++) {
            String key = asked.get().get(i);
            String param = ParamPath.index("questions", i);
            Question question = all.get(key);
            if (question == null) {
                throw ApiException.of(
                        ErrorCode.UNKNOWN_QUESTION,
                        param,
                        "`" + param + "` is '" + key + "', which is no question of this template.");
            }
            if (!HeadFitter.fits(question.type())) {
                throw ApiException.of(
                        ErrorCode.INVALID_FIELD,
                        param,
                        "`" + param + "` is '" + key + "', a number question; it keeps zero-shot (no head).");
            }
            chosen.add(question);
        }
        return chosen;
    }

    /**
     * Refuses a fit when any question has too few labels of some class (or one class only), with every question's
     * counts; the labels are known before anything is embedded.
     */
    private static void checkLabels(List<Question> questions, List<Evals.Labelled> items) {
        ObjectNode counts = Json.object();
        boolean shortOfLabels = questions.isEmpty();
        for (Question question : questions) {
            Map<String, Integer> perClass = counts(question, items);
            ObjectNode shown = counts.putObject(question.key());
            perClass.forEach(shown::put);
            shortOfLabels |= perClass.values().stream().anyMatch(n -> n < HeadFitter.MIN_PER_CLASS);
        }
        if (shortOfLabels) {
            throw ApiException.of(
                            ErrorCode.TOO_FEW_LABELS,
                            "template_id",
                            "A head needs at least " + HeadFitter.MIN_PER_CLASS + " labels of every class of every "
                                    + "question fitted, from calibration examples or feedback; these are the counts: "
                                    + counts + ". Label more, or fit fewer `questions`.")
                    .withField("labels", counts)
                    .withField("min_per_class", HeadFitter.MIN_PER_CLASS);
        }
    }

    /** Labels per class of one question (multi: per option, applied and {@code option:no}). */
    private static Map<String, Integer> counts(Question question, List<Evals.Labelled> items) {
        return HeadFitter.countsOf(
                question.type(), question.optionKeys(), labelled(question, items, i -> new float[1]));
    }

    /** The items' canonical labels of one question, each with its vector. */
    private static List<HeadFitter.Labelled> labelled(
            Question question, List<Evals.Labelled> items, IntFunction<float[]> vector) {
        var labelled = new ArrayList<HeadFitter.Labelled>();
        for (int i = 0; i < items.size(); i++) {
            JsonNode label = items.get(i).expected().get(question.key());
            if (label != null && Labels.checkAgainst(question, label) instanceof Labels.Canonical canonical) {
                labelled.add(new HeadFitter.Labelled(vector.apply(i), canonical.value()));
            }
        }
        return labelled;
    }

    /** The decision an item's input makes with the fit's template version. */
    private static DecisionRequest input(String reference, Evals.Labelled item) {
        ObjectNode body = item.input().deepCopy();
        body.put("template", reference);
        return DecisionRequest.parse(body);
    }

    private void submit(Job job) {
        var cancelled = new AtomicBoolean();
        var ended = new CompletableFuture<Void>();
        running.put(job.id(), new Running(cancelled, ended));
        background.execute(() -> {
            try {
                run(job, cancelled);
            } catch (Logistic.Stopped e) {
                LOG.debug("fit {} stopped", job.id());
            } catch (ApiException e) {
                if (closing || cancelled.get()) {
                    return; // a stopping server leaves it for the next start to fail; a cancel has finished it
                }
                store.finish(
                        job.id(),
                        WorkStatus.FAILED,
                        Optional.empty(),
                        Optional.empty(),
                        Optional.of(WorkError.of(e)),
                        clock.millis());
            } catch (RuntimeException e) {
                if (!closing && !cancelled.get()) {
                    LOG.error("fit {} failed", job.id(), e);
                    store.finish(
                            job.id(),
                            WorkStatus.FAILED,
                            Optional.empty(),
                            Optional.empty(),
                            Optional.of(WorkError.of(
                                    ErrorCode.INTERNAL_ERROR,
                                    "The fit failed unexpectedly ("
                                            + e.getClass().getSimpleName() + "); the server log has the details.")),
                            clock.millis());
                }
            } finally {
                running.remove(job.id());
                ended.complete(null);
            }
        });
    }

    private void run(Job job, AtomicBoolean cancelled) {
        if (!store.start(job.id(), clock.millis())) {
            return;
        }
        FitStore.Stored fit = find(job.id());
        List<float[]> vectors = embed(fit, job, cancelled);
        var written = new LinkedHashMap<String, String>();
        ObjectNode shown = Json.object();
        int done = job.items().size();
        for (Question question : job.questions()) {
            var labelled = labelled(question, job.items(), vectors::get);
            var outcome = HeadFitter.fit(
                    question.type(),
                    question.optionKeys(),
                    labelled,
                    fit.model(),
                    clock.instant(),
                    () -> cancelled.get() || closing);
            switch (outcome) {
                case HeadFitter.Fitted fitted -> {
                    String headId = Ids.next("head");
                    heads.insert(headId, job.id(), fit.templateId(), question.key(), fitted.head(), clock.millis());
                    written.put(question.key(), headId);
                    shown.putObject(question.key())
                            .put("id", headId)
                            .set("facts", fitted.head().factsJson());
                }
                case HeadFitter.Refused refused ->
                    throw ApiException.of(ErrorCode.TOO_FEW_LABELS, "template_id", refused.why());
            }
            store.progress(job.id(), ++done);
        }
        if (cancelled.get() || closing || !stillRunning(job.id())) {
            return;
        }
        Templates.Written version = templates.writeHeads(
                fit.templateId(),
                fit.model(),
                written,
                "Fitted heads (fit " + job.id() + ", " + fit.model() + ", "
                        + job.items().size() + " labelled items)",
                "fit");
        store.finish(
                job.id(),
                WorkStatus.COMPLETED,
                Optional.of(version.version()),
                Optional.of(shown),
                Optional.empty(),
                clock.millis());
    }

    /** Every item's embedding, in order: read from the cache by content hash, the rest embedded and cached. */
    private List<float[]> embed(FitStore.Stored fit, Job job, AtomicBoolean cancelled) {
        var hashes = new ArrayList<String>();
        var texts = new LinkedHashMap<String, String>();
        for (Evals.Labelled item : job.items()) {
            String text = decisions.situation(input(job.reference(), item)).text();
            String hash = Digests.sha256Hex(text);
            hashes.add(hash);
            texts.putIfAbsent(hash, text);
        }
        Map<String, float[]> known = new ConcurrentHashMap<>(store.embeddings(fit.model(), texts.keySet()));
        var missing = texts.keySet().stream().filter(h -> !known.containsKey(h)).toList();
        int done = job.items().size() - missing.size();
        for (int start = 0; start < missing.size(); start += EMBED_BATCH) {
            if (cancelled.get() || closing) {
                throw new Logistic.Stopped();
            }
            var batch = missing.subList(start, Math.min(missing.size(), start + EMBED_BATCH));
            var vectors = runtime.embed(
                            fit.model(), batch.stream().map(texts::get).toList())
                    .vectors();
            var fresh = new LinkedHashMap<String, float[]>();
            for (int i = 0; i < batch.size(); i++) {
                fresh.put(batch.get(i), vectors.get(i));
            }
            store.putEmbeddings(fit.model(), fresh);
            known.putAll(fresh);
            done += batch.size();
            store.progress(job.id(), done);
        }
        store.progress(job.id(), job.items().size());
        return hashes.stream().map(known::get).toList();
    }

    /** Cancels an unfinished fit; 409 {@code fit_finished} once it has finished. */
    FitStore.Stored cancel(String id) {
        FitStore.Stored fit = find(id);
        if (fit.status().finished()
                || !store.finish(
                        id,
                        WorkStatus.CANCELLED,
                        Optional.empty(),
                        Optional.empty(),
                        Optional.empty(),
                        clock.millis())) {
            throw ApiException.of(
                    ErrorCode.FIT_FINISHED,
                    "fit_id",
                    "Fit " + id + " is " + find(id).status().wire()
                            + "; only a queued or running fit can be cancelled.");
        }
        Optional.ofNullable(running.get(id)).ifPresent(run -> run.cancelled().set(true));
        return find(id);
    }

    /** Whether a fit is still in progress as stored (a cancel or a delete, maybe on another server, ends it). */
    private boolean stillRunning(String id) {
        return store.find(id).filter(f -> f.status() == WorkStatus.IN_PROGRESS).isPresent();
    }

    Paging.Result<FitStore.Stored> list(Page page, Optional<String> templateId, Optional<WorkStatus> status) {
        return store.list(page, templateId, status);
    }

    /**
     * Deletes a fit: an unfinished one is cancelled first, and waited for while it runs here so that it writes no
     * version after; then its record goes with every head of it that no version of its template names (those stay,
     * so that decisions on the versions keep using them). 404 {@code fit_not_found} for an unknown one.
     */
    void delete(String id) {
        FitStore.Stored fit = find(id);
        if (!fit.status().finished()) {
            store.finish(
                    id, WorkStatus.CANCELLED, Optional.empty(), Optional.empty(), Optional.empty(), clock.millis());
            Running run = running.get(id);
            if (run != null) {
                run.cancelled().set(true);
                run.ended()
                        .completeOnTimeout(null, STOP_WAIT_SECONDS, TimeUnit.SECONDS)
                        .join();
            }
        }
        store.delete(id, templates.headsInUse(fit.templateId(), store.headIds(id)));
    }

    FitStore.Stored find(String id) {
        return store.find(id)
                .orElseThrow(() -> ApiException.of(ErrorCode.FIT_NOT_FOUND, "fit_id", "There is no fit '" + id + "'."));
    }

    @Override
    public void close() {
        closing = true;
        stopped.close();
        background.shutdownNow();
    }
}
