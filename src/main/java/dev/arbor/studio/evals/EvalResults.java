package dev.arbor.studio.evals;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * An eval's results, as stored and shown: per target and question the metrics, and per model the comparison of each
 * version with the one before it. A measure is null where there was nothing to measure.
 */
record EvalResults(List<TargetResults> targets, List<VersionComparison> comparisons) {
    EvalResults {
        targets = List.copyOf(targets);
        comparisons = List.copyOf(comparisons);
    }

    /**
     * One target's results.
     *
     * @param version the template version measured; null for an inline definition
     * @param model the model that answered (else the one asked for), if any
     * @param measuredOn {@code test} when the data set has both splits, else {@code all}
     * @param fittedOn {@code calibration} when the data set has both splits, else {@code all}
     * @param questions the metrics of each question some item labels
     */
    record TargetResults(
            int index,
            @Nullable Integer version,
            @Nullable String model,
            int items,
            long failed,
            @JsonProperty("measured_on") String measuredOn,
            @JsonProperty("fitted_on") String fittedOn,
            Map<String, QuestionMetrics> questions) {
        TargetResults {
            questions = Collections.unmodifiableMap(new LinkedHashMap<>(questions));
        }
    }

    /**
     * One question's metrics: those every question has, the calibration of single answers (all but multi), and the
     * measures of its type (at most one of the last five).
     */
    record QuestionMetrics(
            String type,
            int n,
            int correct,
            @JsonProperty("unfit_labels") long unfitLabels,
            @Nullable Double accuracy,
            @JsonUnwrapped @Nullable Calibrated calibration,
            @JsonUnwrapped @Nullable Confusion confusion,
            @JsonUnwrapped @Nullable Levels levels,
            @JsonUnwrapped @Nullable Selections selections,
            @JsonUnwrapped @Nullable Rankings rankings,
            @JsonUnwrapped @Nullable Estimates estimates) {}

    /** How well single answers' certainties match how often they are right, and what fitting would change. */
    record Calibrated(
            @Nullable Double brier,
            @JsonProperty("log_loss") @Nullable Double logLoss,
            @Nullable Double ece,
            List<Bin> reliability,
            @JsonProperty("confident_mistakes") int confidentMistakes,
            Temperature temperature,
            @JsonProperty("act_threshold") Threshold actThreshold) {
        Calibrated {
            reliability = List.copyOf(reliability);
        }
    }

    /** One bin of the reliability diagram. */
    record Bin(
            double from,
            double to,
            int n,
            @Nullable Double confidence,
            @Nullable Double accuracy) {}

    /**
     * The temperature in use and the one fitted ({@code fitted} null when nothing was fitted on).
     *
     * @param n how many labelled answers it was fitted on
     */
    record Temperature(
            double current,
            int n,
            @Nullable Double fitted,

            @JsonProperty("log_loss_current") @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable
            Double logLossCurrent,

            @JsonProperty("log_loss_fitted") @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable
            Double logLossFitted) {}

    /** The act threshold in use and the one suggested within the error budget, with its coverage and error. */
    record Threshold(
            double current,
            @JsonProperty("error_budget") double errorBudget,
            @Nullable Double suggested,

            @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable
            Double coverage,

            @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable
            Double error) {}

    /** Choice and yes/no: answers counted by label, then by answer. */
    record Confusion(Map<String, Map<String, Integer>> confusion) {}

    /** Score: how often the level was within one of the label's, and the mean distance in levels. */
    record Levels(
            @JsonProperty("within_one") @Nullable Double withinOne,
            @JsonProperty("mae_levels") @Nullable Double maeLevels) {}

    /** Multi: F1 over the options and the share of answers that selected exactly the labelled ones. */
    record Selections(
            @Nullable Double f1,
            @JsonProperty("exact_match") @Nullable Double exactMatch) {}

    /** Rank: how many labels were rankings, and the mean Kendall tau against them. */
    record Rankings(
            int ranked,
            @JsonProperty("kendall_tau") @Nullable Double kendallTau) {}

    /** Number: the mean absolute error, and how often the label was within the answer's range. */
    record Estimates(
            @Nullable Double mae,
            @JsonProperty("within_range") @Nullable Double withinRange) {}

    /** One model's version against the version before it, question by question. */
    record VersionComparison(
            String model,
            @JsonProperty("from_version") int fromVersion,
            @JsonProperty("to_version") @Nullable Integer toVersion,
            @JsonProperty("from_target") int fromTarget,
            @JsonProperty("to_target") int toTarget,
            Map<String, Paired> questions) {
        VersionComparison {
            questions = Collections.unmodifiableMap(new LinkedHashMap<>(questions));
        }
    }

    /** The items both versions answered with a label: fixed, broken, and the exact McNemar p of the difference. */
    record Paired(
            int n,
            int fixed,
            int broken,
            @JsonProperty("mcnemar_p") double mcnemarP) {}
}
