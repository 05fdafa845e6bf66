package dev.arbor.studio.definitions;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * What callers may change of a template's questions on one decision: extra questions (up to a number), options added
 * to questions, questions skipped.
 *
 * @param questions whether a decision may ask extra questions
 * @param maxQuestions how many extra questions a decision may ask
 * @param options the questions a decision may add options to
 * @param skip the questions a decision may skip
 */
public record ExtensionPolicy(boolean questions, int maxQuestions, QuestionList options, QuestionList skip) {
    /** How many extra questions a decision may ask when the definition does not say. */
    public static final int DEFAULT_MAX_QUESTIONS = 16;

    public ExtensionPolicy {
        requireNonNull(options, "options");
        requireNonNull(skip, "skip");
    }

    /** The rules of a definition that gives none: extra questions allowed, nothing added to or skipped. */
    static ExtensionPolicy defaults() {
        return new ExtensionPolicy(
                true, DEFAULT_MAX_QUESTIONS, QuestionList.keys(List.of()), QuestionList.keys(List.of()));
    }

    /**
     * Some of a template's questions, or all of them ({@code true} on the wire).
     *
     * @param keys the questions named, when not all
     */
    public record QuestionList(boolean all, List<String> keys) {
        public QuestionList {
            keys = List.copyOf(keys);
        }

        static QuestionList every() {
            return new QuestionList(true, List.of());
        }

        static QuestionList keys(List<String> keys) {
            return new QuestionList(false, keys);
        }

        public boolean allows(String key) {
            return all || keys.contains(key);
        }

        /** Whether {@code after} allows less than this list did. */
        boolean narrowedIn(QuestionList after) {
            if (all) {
                return !after.all;
            }
            return !after.all && !after.keys.containsAll(keys);
        }
    }
}
