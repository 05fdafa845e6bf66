package dev.arbor.studio.stats;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.TemplateQuestion;
import dev.arbor.studio.history.DecisionStatus;
import dev.arbor.studio.history.HistoryTotals;
import dev.arbor.studio.templates.Templates;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The statistics of one template's decisions, in all or by version, counted in SQL from narrow indexes, so that
 * they take about as long at a million decisions as at a thousand. Anything else (other filters, other groups, a
 * what-if, which needs each decision's raw probabilities) is counted by {@link Stats} over the records.
 */
final class TemplateStats {
    private static final Set<String> FILTERS = Set.of("template", "version");

    private TemplateStats() {}

    /** Whether a request is one template's statistics, in all (every version) or by version. */
    static boolean applies(Map<String, String> params, List<String> groupBy, Stats.WhatIf whatIf) {
        String template = params.getOrDefault("template", "");
        boolean byVersion = groupBy.equals(List.of("version"));
        return FILTERS.containsAll(params.keySet())
                && !template.isEmpty()
                && !template.contains(",")
                && !template.contains("@")
                && !template.equals("none")
                && !whatIf.any()
                && (byVersion || (groupBy.isEmpty() && !params.containsKey("version")));
    }

    /** Adds the template's decisions to {@code stats}, by version when {@code byVersion}. */
    static void count(
            Stats stats, HistoryTotals store, Templates templates, Map<String, String> params, boolean byVersion) {
        String template = Objects.requireNonNull(params.get("template"), "applies() requires a template");
        List<Integer> versions = params.containsKey("version")
                ? Arrays.stream(params.get("version").split(","))
                        .map(v -> Integer.valueOf(v.trim()))
                        .toList()
                : List.of();
        var keys = new TreeMap<Optional<Integer>, ObjectNode>(Comparator.comparing(v -> v.orElse(0)));
        var timed = new HashMap<Optional<Integer>, Long>();
        for (HistoryTotals.Counted counted : store.counted(template, versions)) {
            Optional<Integer> group = byVersion ? counted.version() : Optional.empty();
            ObjectNode key = keys.computeIfAbsent(group, version -> key(version, byVersion));
            stats.addCounted(key, counted.status(), counted.n(), counted.acted());
            if (counted.status() == DecisionStatus.COMPLETED) {
                timed.merge(group, counted.timed(), Long::sum);
            }
        }
        keys.forEach((version, key) -> {
            long n = timed.getOrDefault(version, 0L);
            stats.setLatency(
                    key, percentile(store, template, version, n, 0.50), percentile(store, template, version, n, 0.95));
        });
        var dynamic = new HashMap<Optional<Integer>, Map<String, TemplateQuestion>>();
        // questions in the order the newest decisions ask them, as when counted from the records
        var totals = store.answerTotals(template, versions).stream()
                .sorted(Comparator.comparing(
                                (HistoryTotals.AnswerTotal t) -> t.version().orElse(0))
                        .reversed()
                        .thenComparingInt(HistoryTotals.AnswerTotal::position))
                .toList();
        for (HistoryTotals.AnswerTotal total : totals) {
            Map<String, TemplateQuestion> questions =
                    dynamic.computeIfAbsent(total.version(), v -> questions(templates, template, v));
            stats.addAnswers(
                    Objects.requireNonNull(
                            keys.get(byVersion ? total.version() : Optional.empty()),
                            "an answered decision is a counted one"),
                    total.question(),
                    total.first(),
                    total.origin(),
                    total.answer().orElse(null),
                    total.n(),
                    total.certaintyE4(),
                    total.acted(),
                    Optional.ofNullable(questions.get(total.question()))
                            .flatMap(TemplateQuestion::optionsVariable)
                            .isPresent());
        }
        var latest = new LinkedHashMap<String, HistoryTotals.Label>();
        store.labels(template, versions)
                .forEach(label -> latest.put(label.decisionId() + "\n" + label.question(), label));
        for (HistoryTotals.Label label : latest.values()) {
            ObjectNode key = keys.get(byVersion ? label.version() : Optional.empty());
            if (key != null) {
                stats.addLabel(key, label.question(), label.origin(), label.correct());
            }
        }
    }

    /** One read of the index at the rank's lower position gives both values the interpolation needs. */
    private static double percentile(
            HistoryTotals store, String template, Optional<Integer> version, long n, double rank) {
        long low = (long) Math.floor(rank * (n - 1));
        List<Double> values = n == 0 ? List.of() : store.timedAt(template, version, low);
        return Stats.percentile(n, rank, at -> values.get((int) Math.min(at - low, values.size() - 1)));
    }

    private static ObjectNode key(Optional<Integer> version, boolean byVersion) {
        ObjectNode key = Json.object();
        if (byVersion) {
            if (version.isPresent()) {
                key.put("version", version.get());
            } else {
                key.putNull("version");
            }
        }
        return key;
    }

    /** The questions of a version as defined, to tell which take their options from a variable. */
    private static Map<String, TemplateQuestion> questions(
            Templates templates, String template, Optional<Integer> version) {
        if (version.isEmpty()) {
            return Map.of();
        }
        try {
            return templates
                    .resolve(template + "@" + version.get())
                    .definition()
                    .questions();
        } catch (ApiException e) {
            return Map.of(); // a deleted template's versions: no dynamic options to tell
        }
    }
}
