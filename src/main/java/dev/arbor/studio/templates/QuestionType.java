package dev.arbor.studio.templates;

import java.util.Locale;
import java.util.Optional;

/** The six question types, with the limits on their options. */
enum QuestionType {
    CHOICE(1, 1000, "Which option best fits?", true),
    SCORE(1, 1000, "Where does this fall on the scale?", false),
    NOUL(0, 2, "Is this true?", false),
    MULTI(1, 64, "Which of these apply?", true),
    RANK(2, 1000, "Which option fits best?", true),
    NUMBER(2, 64, "Which value is most likely?", true);

    private final int minOptions;
    private final int maxOptions;
    private final String defaultInstructions;
    private final boolean extensible;

    QuestionType(int minOptions, int maxOptions, String defaultInstructions, boolean extensible) {
        this.minOptions = minOptions;
        this.maxOptions = maxOptions;
        this.defaultInstructions = defaultInstructions;
        this.extensible = extensible;
    }

    String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    int minOptions() {
        return minOptions;
    }

    int maxOptions() {
        return maxOptions;
    }

    String defaultInstructions() {
        return defaultInstructions;
    }

    /** Whether callers may add options per decision (score levels and yes/no sides are fixed). */
    boolean extensible() {
        return extensible;
    }

    /** Whether its options may come whole from an {@code options} variable. */
    boolean takesOptionsVariable() {
        return this == CHOICE || this == MULTI || this == RANK;
    }

    static Optional<QuestionType> parse(String text) {
        for (QuestionType type : values()) {
            if (type.wire().equals(text)) {
                return Optional.of(type);
            }
        }
        return Optional.empty();
    }

    static String names() {
        return "choice, score, noul, multi, rank, number";
    }
}
