package dev.arbor.studio.evals;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.templates.Templates;
import dev.arbor.studio.work.WorkStatus;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code POST /v1/studio/evals/{id}/apply}: writes one target's fitted temperature and suggested act threshold, per
 * question, into a new version of the eval's template (source {@code eval_apply}), for the model that answered. A
 * question needs at least {@code min_n} labelled answers to fit on (default {@value #DEFAULT_MIN_N}, at least
 * {@value #LOWEST_MIN_N}); below that the apply is refused with the counts, since a temperature fitted on a handful
 * of labels follows their noise.
 */
final class EvalApply {
    static final int DEFAULT_MIN_N = 30;
    static final int LOWEST_MIN_N = 10;

    private final EvalStore store;
    private final Templates templates;

    EvalApply(EvalStore store, Templates templates) {
        this.store = requireNonNull(store, "store");
        this.templates = requireNonNull(templates, "templates");
    }

    /**
     * What an apply asks for, as its body's fields read.
     *
     * @param target the index of the eval's target whose fits are written
     * @param asked the questions to write, if not every fitted one
     * @param minN the fewest labelled answers a question needs
     * @param note the new version's note, if the caller wrote one
     */
    record Request(int target, Optional<List<String>> asked, int minN, Optional<String> note) {
        Request {
            requireNonNull(asked, "asked");
            requireNonNull(note, "note");
        }
    }

    Applied apply(String id, Request request) {
        int index = request.target();
        Optional<List<String>> asked = request.asked();
        int minN = request.minN();
        Optional<String> note = request.note();
        EvalStore.Stored eval = store.find(id).orElseThrow(() -> Evals.notFound(id));
        if (eval.templateId().isEmpty()) {
            throw ApiException.of(
                    ErrorCode.EVAL_HAS_NO_TEMPLATE,
                    "eval_id",
                    "Eval " + id + " measured an inline definition; there is no template to write its settings into.");
        }
        if (eval.status() != WorkStatus.COMPLETED || eval.results().isEmpty()) {
            throw ApiException.of(
                    ErrorCode.EVAL_NOT_COMPLETED,
                    "eval_id",
                    "Eval " + id + " is " + eval.status().wire() + "; only a completed eval has settings to apply.");
        }
        JsonNode targets = eval.results().get().path("targets");
        if (index >= targets.size()) {
            throw ApiException.of(
                    ErrorCode.INVALID_FIELD,
                    "target",
                    "`target` is " + index + ", but eval " + id + " has " + targets.size() + " target(s), from 0.");
        }
        JsonNode target = targets.get(index);
        String model = target.path("model").asText("");
        JsonNode measured = target.path("questions");
        var counts = new LinkedHashMap<String, Integer>();
        var settings = new LinkedHashMap<String, Map<String, Double>>();
        List<String> questions = asked.orElseGet(() -> {
            var all = new ArrayList<String>();
            measured.fieldNames().forEachRemaining(all::add);
            return all;
        });
        for (int i = 0; i < questions.size(); i++) {
            String question = questions.get(i);
            JsonNode metrics = measured.path(question);
            if (asked.isPresent() && !metrics.isObject()) {
                String param = ParamPath.index("questions", i);
                throw ApiException.of(
                        ErrorCode.UNKNOWN_QUESTION,
                        param,
                        "`" + param + "` is '" + question + "', which this eval did not measure.");
            }
            JsonNode fitted = metrics.path("temperature").path("fitted");
            if (!metrics.path("temperature").isObject()) {
                continue; // multi answers have no single temperature to fit
            }
            counts.put(question, metrics.path("temperature").path("n").asInt());
            if (fitted.isNumber()) {
                var own = new LinkedHashMap<String, Double>();
                own.put("temperature", fitted.doubleValue());
                JsonNode threshold = metrics.path("act_threshold").path("suggested");
                if (threshold.isNumber()) {
                    own.put("act_threshold", threshold.doubleValue());
                }
                settings.put(question, own);
            }
        }
        if (counts.isEmpty() || counts.values().stream().anyMatch(n -> n < minN) || model.isEmpty()) {
            ObjectNode shown = Json.object();
            counts.forEach(shown::put);
            throw ApiException.of(
                            ErrorCode.TOO_FEW_LABELS,
                            "min_n",
                            "Fitted settings are applied only where at least " + minN + " labelled answers were "
                                    + "fitted on; this target has " + (counts.isEmpty() ? "none" : counts)
                                    + ". Label more examples, or apply fewer `questions`.")
                    .withField("labels", shown)
                    .withField("min_n", minN);
        }
        Templates.Written written = templates.writeModelSettings(
                eval.templateId().get(),
                model,
                settings,
                note.orElse("Fitted by eval " + id + " (target " + index + ", " + model + ")"),
                "eval_apply");
        return new Applied(id, eval.templateId().get(), written.version(), written.created(), model, settings, counts);
    }

    /**
     * What an apply wrote: the template's version (new, or the same when nothing changed), the settings written per
     * question, and the labelled answers each was fitted on.
     */
    @JsonPropertyOrder({"object", "eval", "template", "version", "created", "model", "settings", "labels"})
    record Applied(
            String eval,
            String template,
            int version,
            boolean created,
            String model,
            Map<String, Map<String, Double>> settings,
            Map<String, Integer> labels) {
        Applied {
            settings = Collections.unmodifiableMap(new LinkedHashMap<>(settings));
            labels = Collections.unmodifiableMap(new LinkedHashMap<>(labels));
        }

        @JsonProperty("object")
        String object() {
            return "eval.applied";
        }
    }
}
