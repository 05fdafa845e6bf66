package dev.arbor.studio.stats;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.secrets.Digests;
import dev.arbor.studio.feedback.FeedbackStore;
import dev.arbor.studio.history.DecisionStatus;
import dev.arbor.studio.history.HistoryStore;
import dev.arbor.studio.history.StoredDecision;
import dev.arbor.studio.questions.Answer;
import dev.arbor.studio.questions.Rounding;
import dev.arbor.studio.templates.Templates;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * How two versions of a template answered. Decisions are paired by their input (the variables when both versions
 * take variables, else the situation), the latest completed decision per input and version; per question it
 * reports whether the answers still compare, each version's distribution, certainty, act rate and accuracy, and
 * for paired inputs how often the versions agree and which answers flipped.
 */
final class Comparisons {
    private static final Set<String> NOT_PAIRED = Set.of("added", "removed", "incomparable");
    private static final int SAMPLE = 20;

    private final HistoryStore decisions;
    private final FeedbackStore feedback;
    private final Templates templates;
    private final Clock clock;

    Comparisons(HistoryStore decisions, FeedbackStore feedback, Templates templates, Clock clock) {
        this.decisions = requireNonNull(decisions, "decisions");
        this.feedback = requireNonNull(feedback, "feedback");
        this.templates = requireNonNull(templates, "templates");
        this.clock = requireNonNull(clock, "clock");
    }

    /** One version's latest completed decision per input, with the labels of each. */
    private record Side(
            int version, Map<String, StoredDecision> byInput, Map<String, Map<String, Boolean>> correct, int failed) {}

    /**
     * Compares the two versions {@code sent} names ("a,b"), or the latest two when it names none; refuses
     * {@code versions} when it is malformed, names one version twice, or the template has one version.
     */
    TemplateComparison compare(String id, Optional<String> sent) {
        String[] versions = versions(id, sent);
        Templates.Comparison comparison = templates.compare(id, versions[0], versions[1]);
        if (comparison.from() == comparison.to()) {
            throw ApiException.of(
                    ErrorCode.INVALID_PARAMETER,
                    "versions",
                    "Compare two different versions; both " + "name version " + comparison.from() + ".");
        }
        boolean byVariables = comparison.fromDefinition().declaresVariables()
                && comparison.toDefinition().declaresVariables();
        Side older = side(comparison, comparison.from(), byVariables);
        Side newer = side(comparison, comparison.to(), byVariables);

        var keys = new LinkedHashSet<String>();
        keys.addAll(comparison.fromDefinition().questions().keySet());
        keys.addAll(comparison.toDefinition().questions().keySet());
        var questions = new LinkedHashMap<String, TemplateComparison.Question>();
        for (String key : keys) {
            String comparability =
                    comparison.questions().path(key).path("comparability").asText("identical");
            var byVersion = new LinkedHashMap<String, TemplateComparison.Summary>();
            byVersion.put(Integer.toString(older.version()), summary(older, key));
            byVersion.put(Integer.toString(newer.version()), summary(newer, key));
            questions.put(
                    key,
                    new TemplateComparison.Question(
                            comparability,
                            byVersion,
                            NOT_PAIRED.contains(comparability) ? null : paired(older, newer, key)));
        }
        var operational = new LinkedHashMap<String, TemplateComparison.Operational>();
        for (Side side : List.of(older, newer)) {
            operational.put(
                    Integer.toString(side.version()),
                    new TemplateComparison.Operational(side.byInput().size(), side.failed()));
        }
        return new TemplateComparison(
                comparison.id(),
                List.of(comparison.from(), comparison.to()),
                byVariables ? "variables" : "state",
                questions,
                operational);
    }

    private String[] versions(String id, Optional<String> sent) {
        if (sent.isEmpty()) {
            int latest = templates.latestVersion(id);
            if (latest < 2) {
                throw ApiException.of(
                        ErrorCode.INVALID_PARAMETER,
                        "versions",
                        "Template '" + id + "' has one " + "version; there is nothing to compare it with.");
            }
            return new String[] {Integer.toString(latest - 1), Integer.toString(latest)};
        }
        String[] parts = sent.get().split(",");
        if (parts.length != 2 || parts[0].isBlank() || parts[1].isBlank()) {
            throw ApiException.of(
                    ErrorCode.INVALID_PARAMETER,
                    "versions",
                    "`versions` names two versions, such as " + "1,2 or stable,latest.");
        }
        return new String[] {parts[0].trim(), parts[1].trim()};
    }

    private Side side(Templates.Comparison comparison, int version, boolean byVariables) {
        var query = decisions.query(Map.of("template", comparison.id() + "@" + version), templates, clock.instant());
        var byInput = new LinkedHashMap<String, StoredDecision>();
        int[] failed = {0};
        decisions.eachPage(
                query,
                page -> page.forEach(decision -> {
                    if (decision.status() == DecisionStatus.FAILED) {
                        failed[0]++;
                    }
                    if (decision.status() != DecisionStatus.COMPLETED
                            || decision.input().isEmpty()) {
                        return;
                    }
                    JsonNode input = byVariables
                            ? decision.input().get().variables()
                            : decision.input().get().state();
                    String key = Digests.sha256Hex(Json.writeString(input).getBytes(StandardCharsets.UTF_8));
                    byInput.putIfAbsent(key, decision); // newest first: the first seen is the latest
                }));
        var ids = byInput.values().stream().map(StoredDecision::id).toList();
        var correct = new HashMap<String, Map<String, Boolean>>();
        for (int from = 0; from < ids.size(); from += 500) {
            correct.putAll(feedback.correctness(ids.subList(from, Math.min(ids.size(), from + 500))));
        }
        return new Side(version, byInput, correct, failed[0]);
    }

    private static TemplateComparison.Summary summary(Side side, String key) {
        int n = 0;
        int acted = 0;
        int labelled = 0;
        int right = 0;
        double certainty = 0;
        var counts = new TreeMap<String, Integer>();
        for (StoredDecision decision : side.byInput().values()) {
            Optional<Answer> given = answer(decision, key);
            if (given.isEmpty()) {
                continue;
            }
            Answer answer = given.get();
            n++;
            certainty += answer.gate().certainty();
            acted += answer.gate().act() ? 1 : 0;
            counts.merge(answer.line(), 1, Integer::sum);
            Boolean correct =
                    side.correct().getOrDefault(decision.id(), Map.of()).get(key);
            if (correct != null) {
                labelled++;
                right += correct ? 1 : 0;
            }
        }
        var distribution = new LinkedHashMap<String, Double>();
        int total = n;
        counts.forEach((value, count) -> distribution.put(value, Rounding.round((double) count / total, 4)));
        return new TemplateComparison.Summary(
                n,
                distribution,
                n == 0 ? 0 : Rounding.round(certainty / n, 4),
                n == 0 ? 0 : Rounding.round((double) acted / n, 4),
                new TemplateComparison.Labels(
                        labelled, labelled == 0 ? null : Rounding.round((double) right / labelled, 4)));
    }

    /** Inputs both versions answered: how often they agree, and the commonest flips. */
    private static TemplateComparison.Paired paired(Side older, Side newer, String key) {
        int n = 0;
        int agree = 0;
        var flips = new LinkedHashMap<String, Integer>();
        var sample = new ArrayList<List<String>>();
        for (var entry : older.byInput().entrySet()) {
            StoredDecision other = newer.byInput().get(entry.getKey());
            Optional<Answer> before = answer(entry.getValue(), key);
            if (other == null || before.isEmpty()) {
                continue;
            }
            Optional<Answer> after = answer(other, key);
            if (after.isEmpty()) {
                continue;
            }
            n++;
            String from = before.get().line();
            String to = after.get().line();
            if (from.equals(to)) {
                agree++;
            } else {
                flips.merge(from + "\u0000" + to, 1, Integer::sum);
            }
            if (sample.size() < SAMPLE) {
                sample.add(List.of(entry.getValue().id(), other.id()));
            }
        }
        List<TemplateComparison.Flip> commonest = flips.entrySet().stream()
                .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
                .limit(SAMPLE)
                .map(e -> {
                    String[] pair = e.getKey().split("\u0000", 2);
                    return new TemplateComparison.Flip(pair[0], pair[1], e.getValue());
                })
                .toList();
        return new TemplateComparison.Paired(n, n == 0 ? 0 : Rounding.round((double) agree / n, 4), commonest, sample);
    }

    /** A decision's answer to one question, when it gave one. */
    private static Optional<Answer> answer(StoredDecision decision, String key) {
        return decision.decided().answered().map(a -> a.answers().get(key));
    }
}
