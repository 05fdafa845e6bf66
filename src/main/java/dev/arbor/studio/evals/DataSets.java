package dev.arbor.studio.evals;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problem;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.examples.ExampleStore;
import dev.arbor.studio.feedback.Feedback;
import dev.arbor.studio.feedback.FeedbackStore;
import dev.arbor.studio.history.DecisionInput;
import dev.arbor.studio.history.HistoryQuery;
import dev.arbor.studio.history.HistoryStore;
import dev.arbor.studio.history.StoredDecision;
import dev.arbor.studio.templates.Templates;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The labelled items of an eval's data set: the template's examples, labelled decisions in history, or items sent
 * inline. Each item keeps only the labels of the questions measured; an item left with none is dropped, and a data set
 * left with no item is refused (400 {@code no_labelled_items}, naming the data set).
 */
final class DataSets {
    /**
     * One labelled item.
     *
     * @param source where it came from: an example id, a decision id, or {@code inline[i]}
     * @param input what the decision reads: {@code variables}, {@code state}, {@code media} as sent to a decision
     * @param expected the labels by question, as stored or sent
     */
    record Item(String source, Optional<String> split, ObjectNode input, ObjectNode expected) {
        Item {
            requireNonNull(source, "source");
            requireNonNull(split, "split");
            requireNonNull(input, "input");
            requireNonNull(expected, "expected");
        }
    }

    /** What an item's decision reads; kept media of examples and decisions are not read again (see docs/studio.md). */
    private static final List<String> KEPT_INPUT = List.of("variables", "state");

    private static final List<String> SENT_INPUT = List.of("variables", "state", "media");

    private final ExampleStore examples;
    private final HistoryStore history;
    private final FeedbackStore feedback;
    private final Templates templates;
    private final Clock clock;

    DataSets(ExampleStore examples, HistoryStore history, FeedbackStore feedback, Templates templates, Clock clock) {
        this.examples = requireNonNull(examples, "examples");
        this.history = requireNonNull(history, "history");
        this.feedback = requireNonNull(feedback, "feedback");
        this.templates = requireNonNull(templates, "templates");
        this.clock = requireNonNull(clock, "clock");
    }

    /**
     * @param templateId the eval's template, when it has one
     * @param questions the questions measured
     */
    List<Item> items(EvalRequest.DataSet dataSet, Optional<String> templateId, Set<String> questions) {
        List<Item> items = found(dataSet, templateId, questions);
        if (items.isEmpty()) {
            throw ApiException.of(
                    ErrorCode.NO_LABELLED_ITEMS,
                    dataSet.param(),
                    "`" + dataSet.param() + "` holds no item with a label for the questions measured ("
                            + String.join(", ", questions) + "); label some (expected answers or feedback) first.");
        }
        return items;
    }

    /** The data set's labelled items, none when it holds none. */
    List<Item> found(EvalRequest.DataSet dataSet, Optional<String> templateId, Set<String> questions) {
        return switch (dataSet) {
            case EvalRequest.Examples sent -> examples(sent, templateId, questions);
            case EvalRequest.History sent -> history(sent, templateId, questions);
            case EvalRequest.Inline sent -> inline(sent, questions);
        };
    }

    private List<Item> examples(EvalRequest.Examples sent, Optional<String> templateId, Set<String> questions) {
        if (templateId.isEmpty()) {
            throw ApiException.of(
                    ErrorCode.INVALID_FIELD,
                    "examples",
                    "`examples` are a template's; an inline `definition` has none (send `inline` items).");
        }
        var items = new ArrayList<Item>();
        for (ExampleStore.Labelled example : examples.labelled(templateId.get())) {
            boolean kept = sent.split().map(example.split()::equals).orElse(true)
                    && (sent.tags().isEmpty() || sent.tags().stream().anyMatch(example.tags()::contains))
                    && (sent.ids().isEmpty() || sent.ids().contains(example.id()));
            if (kept) {
                labelled(
                                example.id(),
                                Optional.of(example.split()),
                                example.input(),
                                KEPT_INPUT,
                                example.expected(),
                                questions)
                        .ifPresent(items::add);
            }
        }
        return items;
    }

    private List<Item> history(EvalRequest.History sent, Optional<String> templateId, Set<String> questions) {
        var filter = new LinkedHashMap<>(sent.filter());
        filter.put("labelled", "true");
        templateId.ifPresent(id -> filter.putIfAbsent("template", id));
        HistoryQuery query;
        try {
            query = history.query(filter, templates, clock.instant());
        } catch (ApiException e) {
            throw ApiException.of(e.problems().stream()
                    .map(p -> new Problem(
                            p.code(),
                            p.param() == null ? "history.filter" : ParamPath.key("history.filter", p.param()),
                            p.message()))
                    .toList());
        }
        var items = new ArrayList<Item>();
        history.eachPage(query, page -> {
            for (StoredDecision decision : page) {
                if (items.size() < sent.limit()) {
                    fromDecision(decision, questions).ifPresent(items::add);
                }
            }
        });
        return items;
    }

    /** A decision whose input history kept, unredacted and without sensitive values, with its feedback labels. */
    private Optional<Item> fromDecision(StoredDecision decision, Set<String> questions) {
        if (decision.input().isEmpty() || decision.input().get().isRedacted()) {
            return Optional.empty();
        }
        DecisionInput stored = decision.input().get();
        ObjectNode input = Json.object();
        Optional<ObjectNode> kept = stored.keptVariables();
        if (kept.isPresent() && decision.templateId().isPresent()) {
            ObjectNode variables = kept.get();
            for (JsonNode value : variables) {
                if (value.has("$redacted")) {
                    return Optional.empty(); // a sensitive value was never kept, so this input cannot be read again
                }
            }
            input.set("variables", variables);
        } else {
            input.set("state", stored.state());
        }
        ObjectNode expected = Json.object();
        for (Feedback entry : feedback.list(decision.id())) {
            JsonNode label = entry.expected();
            if (entry.labelsQuestion() && label != null && !label.isNull()) {
                expected.set(entry.question(), label);
            }
        }
        return labelled(decision.id(), Optional.empty(), input, KEPT_INPUT, expected, questions);
    }

    private static List<Item> inline(EvalRequest.Inline sent, Set<String> questions) {
        var items = new ArrayList<Item>();
        for (int i = 0; i < sent.items().size(); i++) {
            JsonNode item = sent.items().get(i);
            Optional<String> split =
                    item.hasNonNull("split") ? Optional.of(item.get("split").asText()) : Optional.empty();
            labelled(
                            ParamPath.index("inline.items", i),
                            split,
                            (ObjectNode) item,
                            SENT_INPUT,
                            (ObjectNode) item.get("expected"),
                            questions)
                    .ifPresent(items::add);
        }
        return items;
    }

    private static Optional<Item> labelled(
            String source,
            Optional<String> split,
            ObjectNode input,
            List<String> fields,
            ObjectNode expected,
            Set<String> questions) {
        ObjectNode kept = Json.object();
        expected.properties().forEach(e -> {
            if (questions.contains(e.getKey()) && !e.getValue().isNull()) {
                kept.set(e.getKey(), e.getValue());
            }
        });
        if (kept.isEmpty()) {
            return Optional.empty();
        }
        ObjectNode read = Json.object();
        fields.forEach(field -> {
            if (input.hasNonNull(field)) {
                read.set(field, input.get(field));
            }
        });
        return Optional.of(new Item(source, split, read, kept));
    }
}
