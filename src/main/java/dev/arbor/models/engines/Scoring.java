package dev.arbor.models.engines;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * What an engine is asked and what it answers: primitive questions ({@code choice}, {@code score}, {@code noul})
 * in, one probability per option out. The studio reduces its six question types to these before asking.
 */
public final class Scoring {
    private Scoring() {}

    /** The three question types every engine answers; the studio reduces its six to these. */
    public enum Primitive {
        CHOICE,
        SCORE,
        NOUL;

        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The wire names of all three. */
        public static Set<String> wires() {
            return Arrays.stream(values()).map(Primitive::wire).collect(Collectors.toUnmodifiableSet());
        }
    }

    /** One option: its key, the label the model reads, and an optional description. */
    public record Option(String key, String label, @Nullable String description) {
        public Option {
            requireNonNull(key, "key");
            requireNonNull(label, "label");
        }

        /** An option without a description. */
        public Option(String key, String label) {
            this(key, label, null);
        }
    }

    public record Question(String key, String type, String instructions, List<Option> options) {
        public Question {
            requireNonNull(key, "key");
            requireNonNull(type, "type");
            requireNonNull(instructions, "instructions");
            options = List.copyOf(options);
        }
    }

    /** @param media the media types attached (their bytes travel separately) */
    public record Request(String state, List<String> media, List<Question> questions) {
        public Request {
            requireNonNull(state, "state");
            media = List.copyOf(media);
            questions = List.copyOf(questions);
        }
    }

    /** Probabilities per question key, in option order. */
    public record Answer(Map<String, List<Double>> probabilities, int inputTokens) {
        public Answer {
            probabilities = Map.copyOf(probabilities);
        }
    }
}
