package dev.arbor.models;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What a model can run: the media it reads, the primitive question types it answers, and its limits.
 *
 * @param types primitive types: {@code choice}, {@code score}, {@code noul} (the other question types reduce to
 *     these)
 * @param maxOptions most options of one primitive question
 * @param maxQuestions most primitive questions in one decision (a multi question counts once per option)
 * @param contextTokens how much text the model reads
 */
public record ModelFacts(
        Set<String> modalities,
        Set<String> types,
        int maxOptions,
        int maxQuestions,
        int contextTokens,
        List<String> notes) {
    public ModelFacts {
        modalities = Set.copyOf(requireNonNull(modalities, "modalities"));
        types = Set.copyOf(requireNonNull(types, "types"));
        notes = List.copyOf(requireNonNull(notes, "notes"));
    }

    /** What a question set asks of a model, as the studio works it out from a template or a request. */
    public record Needs(
            Set<String> types, int largestOptions, int primitiveQuestions, Set<String> modalities, int contextTokens) {
        public Needs {
            types = Set.copyOf(types);
            modalities = Set.copyOf(modalities);
        }
    }

    /** One reason a model cannot run a decision, with the contract's detail code (the input's length is none). */
    public record Problem(String code, String message) {}

    public List<Problem> problems(Needs needs) {
        var problems = new ArrayList<Problem>();
        for (String type : needs.types().stream().sorted().toList()) {
            if (!types.contains(type)) {
                problems.add(new Problem("type_not_supported", "It does not answer " + type + " questions."));
            }
        }
        if (needs.largestOptions() > maxOptions) {
            problems.add(new Problem(
                    "too_many_options",
                    "A question has " + needs.largestOptions() + " options; it reads at most " + maxOptions + "."));
        }
        if (needs.primitiveQuestions() > maxQuestions) {
            problems.add(new Problem(
                    "too_many_questions",
                    "The decision has " + needs.primitiveQuestions()
                            + " questions once multi questions are split; it answers at most " + maxQuestions + "."));
        }
        for (String modality : needs.modalities().stream().sorted().toList()) {
            if (!modalities.contains(modality)) {
                problems.add(new Problem("modality_not_supported", "It does not read " + modality + "."));
            }
        }
        return List.copyOf(problems);
    }

    /**
     * Says when the longest input {@code needs} allows is more than the model reads. That is never a reason the model
     * cannot run it: a decision on it runs, reading the start, with a {@code state_may_be_truncated} warning.
     */
    public Optional<String> truncation(Needs needs) {
        return needs.contextTokens() > contextTokens
                ? Optional.of("The input may be about " + needs.contextTokens() + " tokens; it reads " + contextTokens
                        + ", so the end of a long one is cut.")
                : Optional.empty();
    }
}
