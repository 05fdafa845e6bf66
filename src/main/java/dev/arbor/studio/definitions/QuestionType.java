package dev.arbor.studio.definitions;

import dev.arbor.models.engines.Scoring;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The six question types, with the limits on their options and the primitive type an engine answers for each: the
 * one place where six become three (multi asks one yes/no per option, rank a choice, number a scale).
 */
public enum QuestionType {
    CHOICE(1, 1000, "Which option best fits?", true, Scoring.Primitive.CHOICE),
    SCORE(1, 1000, "Where does this fall on the scale?", false, Scoring.Primitive.SCORE),
    NOUL(0, 2, "Is this true?", false, Scoring.Primitive.NOUL),
    MULTI(1, 64, "Which of these apply?", true, Scoring.Primitive.NOUL),
    RANK(2, 1000, "Which option fits best?", true, Scoring.Primitive.CHOICE),
    NUMBER(2, 64, "Which value is most likely?", true, Scoring.Primitive.SCORE);

    private final int minOptions;
    private final int maxOptions;
    private final String defaultInstructions;
    private final boolean extensible;
    private final Scoring.Primitive primitive;

    QuestionType(
            int minOptions,
            int maxOptions,
            String defaultInstructions,
            boolean extensible,
            Scoring.Primitive primitive) {
        this.minOptions = minOptions;
        this.maxOptions = maxOptions;
        this.defaultInstructions = defaultInstructions;
        this.extensible = extensible;
        this.primitive = primitive;
    }

    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    public int minOptions() {
        return minOptions;
    }

    public int maxOptions() {
        return maxOptions;
    }

    public String defaultInstructions() {
        return defaultInstructions;
    }

    /** Whether callers may add options per decision (score levels and yes/no sides are fixed). */
    public boolean extensible() {
        return extensible;
    }

    /** The primitive type an engine answers for this type (for multi: for each of its options). */
    public Scoring.Primitive primitive() {
        return primitive;
    }

    /** Whether its options may come whole from an {@code options} variable. */
    public boolean takesOptionsVariable() {
        return this == CHOICE || this == MULTI || this == RANK;
    }

    public static Optional<QuestionType> parse(String text) {
        for (QuestionType type : values()) {
            if (type.wire().equals(text)) {
                return Optional.of(type);
            }
        }
        return Optional.empty();
    }

    /** The wire names of all six, in declaration order. */
    public static List<String> wires() {
        return Arrays.stream(values()).map(QuestionType::wire).toList();
    }

    public static String names() {
        return String.join(", ", wires());
    }
}
