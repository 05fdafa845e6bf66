package dev.arbor.studio.stats;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.history.Decided;
import dev.arbor.studio.history.DecisionStatus;
import dev.arbor.studio.history.StoredDecision;
import dev.arbor.studio.questions.Answer;
import dev.arbor.studio.questions.Probabilities;
import dev.arbor.studio.questions.Rounding;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Statistics over the decisions a filter matches, per group: how many, how many failed, how often they acted,
 * latency, and per question the answers' distribution, mean certainty, act rate and — from feedback — accuracy.
 * A what-if recomputes the gate from the stored raw probabilities under another temperature or act threshold, so
 * a threshold can be chosen before it is set. Answers the caller extended or added are left out unless asked for.
 */
final class Stats {
    static final Set<String> GROUPS = Set.of("template", "version", "model", "status", "surface", "day", "hour");
    private static final DateTimeFormatter DAY =
            DateTimeFormatter.ofPattern("yyyy-MM-dd").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter HOUR =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:00").withZone(ZoneOffset.UTC);

    /** A what-if: another temperature, another act threshold, or both. */
    record WhatIf(Optional<Double> temperature, Optional<Double> actThreshold) {
        boolean any() {
            return temperature.isPresent() || actThreshold.isPresent();
        }
    }

    private final List<String> groupBy;
    private final boolean includeExtended;
    private final WhatIf whatIf;
    private final Map<String, Group> groups = new TreeMap<>();

    Stats(List<String> groupBy, boolean includeExtended, WhatIf whatIf) {
        this.groupBy = List.copyOf(groupBy);
        this.includeExtended = includeExtended;
        this.whatIf = whatIf;
    }

    static List<String> groupBy(Optional<String> param) {
        String value = param.orElse("");
        if (value.isBlank()) {
            return List.of();
        }
        var names = new ArrayList<String>();
        for (String name : value.split(",")) {
            String trimmed = name.trim();
            if (!GROUPS.contains(trimmed)) {
                throw ApiException.of(
                        ErrorCode.INVALID_PARAMETER,
                        "group_by",
                        "`group_by` takes "
                                + String.join(", ", GROUPS.stream().sorted().toList()) + "; not '" + trimmed + "'.");
            }
            names.add(trimmed);
        }
        return names;
    }

    /** Counts one decision, with the correctness of each labelled question. */
    void add(StoredDecision decision, Map<String, Boolean> correct) {
        group(key(decision)).add(decision, correct);
    }

    // Totals kept in SQL (see TemplateStats), added to the same groups.

    /** {@code n} decisions of the group with this status, {@code acted} of them acting. */
    void addCounted(ObjectNode key, DecisionStatus status, long n, long acted) {
        Group group = group(key);
        group.count += n;
        if (status == DecisionStatus.FAILED) {
            group.failed += n;
        }
        if (status == DecisionStatus.COMPLETED) {
            group.completed += n;
            group.acted += acted;
        }
    }

    /** The group's latency percentiles, read by position from an index. */
    void setLatency(ObjectNode key, double p50, double p95) {
        group(key).latency = Optional.of(new double[] {p50, p95});
    }

    /**
     * Answer rows of one question: {@code first} rows (one per decision) carry its certainty and gate; every row with
     * an answer counts towards the distribution.
     */
    void addAnswers(
            ObjectNode key,
            String question,
            boolean first,
            String origin,
            @Nullable String answer,
            long n,
            long certaintyE4,
            long acted,
            boolean dynamic) {
        Question stats = group(key).questions.computeIfAbsent(question, k -> new Question());
        if (!includes(origin)) {
            stats.excluded += first ? n : 0;
            return;
        }
        if (first) {
            stats.runs += n;
            stats.certaintyE4 += certaintyE4;
            stats.acted += acted;
        }
        if (answer != null) {
            stats.distribution.merge(answer, n, Long::sum);
        }
        stats.dynamic |= dynamic;
    }

    /** One label on a completed decision's answer. */
    void addLabel(ObjectNode key, String question, String origin, boolean correct) {
        Question stats = group(key).questions.get(question);
        if (stats != null && includes(origin)) {
            stats.labelled++;
            stats.right += correct ? 1 : 0;
        }
    }

    private boolean includes(String origin) {
        return includeExtended
                || origin.equals(dev.arbor.studio.questions.Question.Origin.TEMPLATE.wire())
                || origin.equals(dev.arbor.studio.questions.Question.Origin.ADHOC.wire());
    }

    private Group group(ObjectNode key) {
        return groups.computeIfAbsent(Json.writeString(key), k -> new Group(key));
    }

    private ObjectNode key(StoredDecision decision) {
        ObjectNode key = Json.object();
        for (String name : groupBy) {
            Instant created = Instant.ofEpochMilli(decision.createdAtMillis());
            switch (name) {
                case "template" -> key.put(name, decision.templateId().orElse(null));
                case "version" -> {
                    if (decision.templateVersion().isPresent()) {
                        key.put(name, decision.templateVersion().get());
                    } else {
                        key.putNull(name);
                    }
                }
                case "model" -> key.put(name, decision.model().orElse(null));
                case "status" -> key.put(name, decision.status().wire());
                case "surface" -> key.put(name, decision.surface());
                case "day" -> key.put(name, DAY.format(created));
                default -> key.put(name, HOUR.format(created));
            }
        }
        return key;
    }

    /** The statistics as the API shows them. */
    Report report() {
        return new Report(
                "decision.stats",
                groupBy,
                whatIf.any()
                        ? new WhatIfAsked(
                                whatIf.temperature().orElse(null),
                                whatIf.actThreshold().orElse(null))
                        : null,
                groups.values().stream().map(Group::report).toList());
    }

    /** What {@code GET .../stats} answers. */
    record Report(
            String object,
            @JsonProperty("group_by") List<String> groupBy,
            @JsonProperty("what_if") @Nullable WhatIfAsked whatIf,
            List<GroupReport> groups) {
        Report {
            groupBy = List.copyOf(groupBy);
            groups = List.copyOf(groups);
        }

        /**
         * Grouped by version of one template: the first version is the reference, and each question of a later one
         * says whether its answers still compare with it ({@code comparability} by question key, from the reference
         * version's number and the later one's; {@code identical} where it says nothing).
         */
        Report comparedByVersion(BiFunction<Integer, Integer, Map<String, String>> comparability) {
            if (groups.isEmpty() || !groups.getFirst().key.path("version").isInt()) {
                return this;
            }
            int reference = groups.getFirst().key.path("version").intValue();
            var compared = new ArrayList<GroupReport>();
            compared.add(groups.getFirst().withComparability(q -> "reference"));
            for (GroupReport group : groups.subList(1, groups.size())) {
                if (group.key.path("version").isInt()) {
                    Map<String, String> by = comparability.apply(
                            reference, group.key.path("version").intValue());
                    compared.add(group.withComparability(q -> by.getOrDefault(q, "identical")));
                } else {
                    compared.add(group);
                }
            }
            return new Report(object, groupBy, whatIf, compared);
        }
    }

    /** The what-if asked for. */
    record WhatIfAsked(
            @Nullable Double temperature,
            @JsonProperty("act_threshold") @Nullable Double actThreshold) {}

    /** One group's statistics. */
    record GroupReport(
            ObjectNode key,
            long count,
            long failed,
            @JsonProperty("act_rate") double actRate,
            @JsonProperty("latency_ms") Latency latencyMs,
            Map<String, QuestionReport> questions,

            @JsonProperty("what_if") @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable
            GroupWhatIf whatIf) {
        GroupReport {
            key = key.deepCopy();
            questions = Collections.unmodifiableMap(new LinkedHashMap<>(questions));
        }

        @Override
        public ObjectNode key() {
            return key.deepCopy();
        }

        private GroupReport withComparability(Function<String, String> comparability) {
            var compared = new LinkedHashMap<String, QuestionReport>();
            questions.forEach((q, report) -> compared.put(q, report.withComparability(comparability.apply(q))));
            return new GroupReport(key, count, failed, actRate, latencyMs, compared, whatIf);
        }
    }

    record Latency(double p50, double p95) {}

    /** How the group's decisions would have acted under the what-if. */
    record GroupWhatIf(
            @JsonProperty("act_rate") double actRate,
            @JsonProperty("labelled_acting") int labelledActing,
            @JsonProperty("accuracy_when_acting") @Nullable Double accuracyWhenActing) {}

    /**
     * One question's statistics within a group.
     *
     * @param distribution each answer's share, by answer; null when the options came per decision
     * @param comparability how its answers compare with the first version's, when grouped by version of one template
     */
    record QuestionReport(
            long runs,
            @JsonProperty("excluded_runs") long excludedRuns,
            @JsonProperty("mean_certainty") double meanCertainty,
            @JsonProperty("act_rate") double actRate,
            @Nullable Map<String, Double> distribution,
            long labelled,
            @Nullable Double accuracy,

            @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable
            String comparability) {
        QuestionReport {
            distribution = distribution == null ? null : Collections.unmodifiableMap(new TreeMap<>(distribution));
        }

        private QuestionReport withComparability(String how) {
            return new QuestionReport(
                    runs, excludedRuns, meanCertainty, actRate, distribution, labelled, accuracy, how);
        }
    }

    /** The running totals of one group. */
    private final class Group {
        private final ObjectNode key;
        private long count;
        private long failed;
        private long completed;
        private long acted;
        private final List<Double> latencies = new ArrayList<>();
        private Optional<double[]> latency = Optional.empty();
        private final Map<String, Question> questions = new LinkedHashMap<>();
        private int whatIfActed;
        private int whatIfLabelledActing;
        private int whatIfRightActing;

        Group(ObjectNode key) {
            this.key = key;
        }

        void add(StoredDecision decision, Map<String, Boolean> correct) {
            count++;
            if (decision.status() == DecisionStatus.FAILED) {
                failed++;
            }
            if (decision.status() != DecisionStatus.COMPLETED) {
                return;
            }
            completed++;
            decision.act().filter(Boolean::booleanValue).ifPresent(a -> acted++);
            decision.totalMs().ifPresent(latencies::add);
            Decided decided = decision.decided();
            boolean allActIfWhat = true;
            boolean allRight = true;
            boolean anyLabelled = false;
            Map<String, Answer> answers =
                    decided.answered().map(Decided.Answered::answers).orElse(Map.of());
            Map<String, Map<String, Double>> raw =
                    decided.answered().map(Decided.Answered::raw).orElse(Map.of());
            for (var entry : answers.entrySet()) {
                String q = entry.getKey();
                Answer answer = entry.getValue();
                Question stats = questions.computeIfAbsent(q, k -> new Question());
                if (!includes(answer.gate().origin().wire())) {
                    stats.excluded++;
                    continue;
                }
                stats.add(answer, Optional.ofNullable(correct.get(q)));
                if (whatIf.any()) {
                    double threshold =
                            whatIf.actThreshold().orElse(decided.settings().of(q, "act_threshold"));
                    allActIfWhat &= recalibrated(answer, Optional.ofNullable(raw.get(q))) >= threshold;
                }
                if (correct.containsKey(q)) {
                    anyLabelled = true;
                    allRight &= correct.get(q);
                }
            }
            if (whatIf.any() && allActIfWhat) {
                whatIfActed++;
                if (anyLabelled) {
                    whatIfLabelledActing++;
                    if (allRight) {
                        whatIfRightActing++;
                    }
                }
            }
        }

        /** The certainty a question would have had under the what-if temperature (or its own). */
        private double recalibrated(Answer answer, Optional<Map<String, Double>> raw) {
            if (whatIf.temperature().isEmpty() || raw.isEmpty()) {
                return answer.gate().certainty();
            }
            double temperature = whatIf.temperature().get();
            if (answer instanceof Answer.Multi) {
                double least = 1.0;
                for (double yes : raw.get().values()) {
                    double[] two = Probabilities.calibrate(new double[] {1 - yes, yes}, temperature);
                    least = Math.min(least, Math.max(two[0], two[1]));
                }
                return least;
            }
            var values = new ArrayList<>(raw.get().values());
            double[] p = Probabilities.calibrate(Probabilities.clean(values, values.size()), temperature);
            return Arrays.stream(p).max().orElse(0);
        }

        GroupReport report() {
            var byQuestion = new LinkedHashMap<String, QuestionReport>();
            questions.forEach((q, stats) -> {
                if (stats.runs > 0 || includeExtended) {
                    byQuestion.put(q, stats.report());
                }
            });
            return new GroupReport(
                    key,
                    count,
                    failed,
                    completed == 0 ? 0 : Rounding.round((double) acted / completed, 4),
                    new Latency(
                            latency.map(l -> l[0]).orElseGet(() -> percentile(0.50)),
                            latency.map(l -> l[1]).orElseGet(() -> percentile(0.95))),
                    byQuestion,
                    whatIf.any()
                            ? new GroupWhatIf(
                                    completed == 0 ? 0 : Rounding.round((double) whatIfActed / completed, 4),
                                    whatIfLabelledActing,
                                    whatIfLabelledActing == 0
                                            ? null
                                            : Rounding.round((double) whatIfRightActing / whatIfLabelledActing, 4))
                            : null);
        }

        private double percentile(double rank) {
            double[] sorted =
                    latencies.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            return Stats.percentile(sorted.length, rank, i -> sorted[(int) i]);
        }
    }

    /**
     * Linear interpolation between the closest ranks of {@code n} sorted values, one decimal; {@code at} reads the
     * value at a position.
     */
    static double percentile(long n, double rank, java.util.function.LongToDoubleFunction at) {
        if (n == 0) {
            return 0;
        }
        double position = rank * (n - 1);
        long low = (long) Math.floor(position);
        long high = (long) Math.ceil(position);
        double lowValue = at.applyAsDouble(low);
        double value = lowValue + (at.applyAsDouble(high) - lowValue) * (position - low);
        return Math.round(value * 10) / 10.0;
    }

    /** One question's totals within a group. */
    private static final class Question {
        long runs;
        long excluded;
        long acted;
        /** Certainties as decisions show them (four decimals), in ten-thousandths: sums that never drift. */
        long certaintyE4;

        long labelled;
        long right;
        boolean dynamic;
        final Map<String, Long> distribution = new HashMap<>();

        void add(Answer answer, Optional<Boolean> correct) {
            runs++;
            certaintyE4 += Math.round(answer.gate().certainty() * 10_000);
            if (answer.gate().act()) {
                acted++;
            }
            dynamic |= answer.gate().dynamicOptions();
            if (answer instanceof Answer.Multi multi) {
                multi.selected().forEach(option -> distribution.merge(option, 1L, Long::sum));
            } else {
                distribution.merge(answer.word(), 1L, Long::sum);
            }
            correct.ifPresent(c -> {
                labelled++;
                if (c) {
                    right++;
                }
            });
        }

        QuestionReport report() {
            Map<String, Double> shares = null;
            if (!dynamic) {
                var byValue = new TreeMap<String, Double>();
                distribution.forEach((value, n) -> byValue.put(value, Rounding.round((double) n / runs, 4)));
                shares = byValue;
            }
            return new QuestionReport(
                    runs,
                    excluded,
                    runs == 0 ? 0 : Rounding.round(certaintyE4 / 10_000.0 / runs, 4),
                    runs == 0 ? 0 : Rounding.round((double) acted / runs, 4),
                    shares,
                    labelled,
                    labelled == 0 ? null : Rounding.round((double) right / labelled, 4),
                    null);
        }
    }
}
