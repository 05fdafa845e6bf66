package dev.arbor.studio.stats;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What {@code GET /v1/studio/templates/{id}/compare} answers: per question, by version number, and per version the
 * decisions compared and those that failed.
 *
 * @param pairedBy {@code variables} when both versions take variables, else {@code state}
 */
@JsonPropertyOrder({"object", "template", "versions", "paired_by", "questions", "operational"})
record TemplateComparison(
        String template,
        List<Integer> versions,
        @JsonProperty("paired_by") String pairedBy,
        Map<String, Question> questions,
        Map<String, Operational> operational) {

    @JsonProperty("object")
    String object() {
        return "template.comparison";
    }

    /** One question: whether its answers still compare, each version's summary, and, when they compare, the pairs. */
    record Question(
            String comparability,
            @JsonProperty("by_version") Map<String, Summary> byVersion,

            @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable
            Paired paired) {}

    /** One version's answers to one question; {@code distribution} is each answer's share. */
    record Summary(
            int n,
            Map<String, Double> distribution,
            @JsonProperty("mean_certainty") double meanCertainty,
            @JsonProperty("act_rate") double actRate,
            Labels feedback) {}

    /** How many of the answers were labelled, and the share of those that were right (null when none was). */
    record Labels(int labelled, @Nullable Double accuracy) {}

    /** The inputs both versions answered: how often they agree, the commonest flips, and a sample of pairs. */
    record Paired(int n, double agreement, List<Flip> flips, List<List<String>> sample) {}

    record Flip(String from, String to, int n) {}

    record Operational(int n, int failed) {}
}
