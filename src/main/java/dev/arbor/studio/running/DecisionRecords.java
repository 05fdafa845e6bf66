package dev.arbor.studio.running;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.studio.files.StudioFile;
import dev.arbor.studio.files.StudioFiles;
import dev.arbor.studio.history.Decided;
import dev.arbor.studio.history.DecisionInput;
import dev.arbor.studio.history.DecisionStatus;
import dev.arbor.studio.history.StoreLevel;
import dev.arbor.studio.history.StoredDecision;
import dev.arbor.studio.planning.MediaInput;
import dev.arbor.studio.planning.Plan;
import dev.arbor.studio.planning.Planner;
import dev.arbor.studio.questions.Rounding;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a decision is recorded as, typed values in and JSON out: the decision as the API shows it, the row history
 * keeps of it, and what history keeps of its input.
 */
final class DecisionRecords {
    private final StudioFiles files;

    DecisionRecords(StudioFiles files) {
        this.files = requireNonNull(files, "files");
    }

    /**
     * Answers and timings of one run: {@code totalMillis} from arrival (or, in the background, from the end of
     * the queue, plus the queue) to the answers, before they are recorded.
     */
    record Ran(
            Answers.Result answers,
            int inputTokens,
            double queueMillis,
            double loadMillis,
            double modelMillis,
            double totalMillis) {}

    /** A decision at the moment it is written: its status, its times, and its answers or its error. */
    record Step(
            DecisionStatus status,
            long created,
            Optional<Long> completed,
            Optional<Ran> ran,
            Optional<ApiException> error) {
        static Step queued(long created) {
            return new Step(DecisionStatus.QUEUED, created, Optional.empty(), Optional.empty(), Optional.empty());
        }

        static Step completed(long created, long completed, Ran ran) {
            return new Step(
                    DecisionStatus.COMPLETED, created, Optional.of(completed), Optional.of(ran), Optional.empty());
        }

        static Step failed(long created, long completed, ApiException error) {
            return new Step(
                    DecisionStatus.FAILED, created, Optional.of(completed), Optional.empty(), Optional.of(error));
        }
    }

    Decided decided(Plan plan, Source source, String id, Step step) {
        Optional<Ran> ran = step.ran();
        return new Decided(
                id,
                step.status(),
                step.created() / 1000,
                step.completed().map(completed -> completed / 1000),
                plan.template()
                        .map(t -> new Decided.Template(
                                t.id(), t.version(), t.reference(), t.resolvedFrom(), source.attribution())),
                plan.model(),
                plan.modelRequested(),
                plan.extensions(),
                ran.map(Ran::answers)
                        .map(answers -> new Decided.Answered(
                                answers.answers(), answers.act(), answers.needsReview(), answers.raw())),
                plan.settings().shown(),
                ran.map(Ran::inputTokens).filter(t -> t > 0).orElse(plan.estimatedTokens()),
                ran.map(r -> new Decided.Timing(
                                Rounding.round(r.queueMillis(), 3),
                                Rounding.round(r.loadMillis(), 3),
                                Rounding.round(r.modelMillis(), 3),
                                Rounding.round(r.totalMillis(), 3)))
                        .orElse(Decided.Timing.NONE),
                plan.warnings(),
                new Decided.Caller(source.surface(), source.endpoint(), source.requestId()),
                source.rerunOf(),
                plan.store(),
                step.error()
                        .map(error -> Decided.Failure.of(
                                error.code(), error.problems().getFirst().message())));
    }

    StoredDecision record(Plan plan, Source source, Step step, Decided decided, Optional<DecisionInput> input) {
        Optional<Ran> ran = step.ran();
        return new StoredDecision(
                decided.id(),
                step.status(),
                plan.store() == StoreLevel.NONE ? StoreLevel.FULL : plan.store(),
                source.surface(),
                source.endpoint(),
                source.requestId(),
                plan.template().map(t -> t.id()),
                plan.template().map(t -> t.version()),
                plan.model(),
                ran.map(r -> r.answers().act()),
                ran.map(r -> r.answers().minCertainty()),
                step.error().map(error -> error.code().code()),
                false,
                plan.metadata(),
                source.rerunOf(),
                step.created(),
                step.completed(),
                ran.map(r -> Rounding.round(r.totalMillis(), 3)),
                decided,
                input,
                ran.map(r -> r.answers().rows()).orElse(List.of()),
                plan.secrets(),
                input.map(i -> searchText(plan)));
    }

    private static final int MAX_SEARCH_TEXT = 200_000;

    /** What search finds a decision by: its situation as stored (sensitive values masked) and its text variables. */
    private static String searchText(Plan plan) {
        var text = new StringBuilder(plan.storedSituation());
        plan.storedVariables()
                .ifPresent(variables -> variables.properties().forEach(e -> {
                    if (e.getValue().isTextual() && !e.getValue().textValue().startsWith("data:")) {
                        text.append('\n').append(e.getValue().textValue());
                    }
                }));
        return text.length() > MAX_SEARCH_TEXT ? text.substring(0, MAX_SEARCH_TEXT) : text.toString();
    }

    /**
     * What the decision read, as history keeps it: sensitive values as HMACs and markers, media as hashes, and, when
     * {@code keepMedia}, as files (a new one for bytes sent inline; the upload itself for a file id). Sensitive
     * media are never kept.
     */
    DecisionInput input(Plan plan, boolean keepMedia) {
        var items = new ArrayList<DecisionInput.Media>();
        var keptIds = new HashMap<String, String>();
        for (MediaInput item : plan.media()) {
            boolean sensitive = item.variable().map(v -> plan.secrets().has(v)).orElse(false);
            boolean kept = keepMedia && !sensitive;
            Optional<MediaInput.InlineBytes> inline =
                    item.inline() ? Optional.of(item.inlineBytes()) : Optional.empty();
            Optional<StudioFile> file =
                    kept ? Optional.of(item.file().orElseGet(() -> item.keep(files))) : Optional.empty();
            Optional<String> fileId = file.map(StudioFile::id);
            items.add(new DecisionInput.Media(
                    item.type(),
                    fileId,
                    sensitive ? Optional.empty() : item.name(),
                    item.variable(),
                    item.contentType(),
                    inline.map(MediaInput.InlineBytes::size)
                            .orElseGet(() -> item.file().orElseThrow().bytes()),
                    sensitive
                            ? plan.secrets().path(item.variable().orElseThrow()).asText()
                            : "sha256:"
                                    + inline.map(MediaInput.InlineBytes::sha256)
                                            .orElseGet(() ->
                                                    item.file().orElseThrow().sha256()),
                    kept));
            if (kept) {
                item.variable().ifPresent(v -> keptIds.put(v, fileId.orElseThrow()));
            }
        }
        return new DecisionInput(
                plan.storedVariables()
                        .<JsonNode>map(v -> withMediaMarkers(v, plan, keptIds))
                        .orElse(NullNode.getInstance()),
                plan.storedState(),
                items,
                Planner.questionsJson(plan.questions()),
                TextNode.valueOf(plan.storedSituation()),
                List.of());
    }

    /** A media variable reads as the file history kept, or says that its bytes were not kept. */
    private static ObjectNode withMediaMarkers(ObjectNode variables, Plan plan, Map<String, String> keptIds) {
        ObjectNode copy = variables.deepCopy();
        for (MediaInput item : plan.media()) {
            item.variable()
                    .filter(v -> copy.path(v).isTextual() && !plan.secrets().has(v))
                    .ifPresent(v ->
                            copy.put(v, keptIds.containsKey(v) ? keptIds.get(v) : "[" + item.type() + " not kept]"));
        }
        return copy;
    }
}
