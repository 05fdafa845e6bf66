package dev.arbor.platform.errors;

import static java.util.Objects.requireNonNull;

import java.util.Collection;
import java.util.Optional;

/** The hint an error gives for a misspelt name: the closest of the names that would have been right. */
public final class DidYouMean {
    private static final double LEAST_ALIKE = 0.6;

    private DidYouMean() {}

    /** The closest candidate by similarity ratio, when it is at least 0.6 alike. */
    public static Optional<String> closest(String name, Collection<String> candidates) {
        requireNonNull(name, "name");
        String best = null;
        double bestRatio = LEAST_ALIKE;
        for (String candidate : candidates) {
            double ratio = similarity(name, candidate);
            if (ratio >= bestRatio) {
                best = candidate;
                bestRatio = ratio;
            }
        }
        return Optional.ofNullable(best);
    }

    /** " Did you mean `x`?" or nothing. */
    public static String hint(String name, Collection<String> candidates) {
        return closest(name, candidates).map(c -> " Did you mean `" + c + "`?").orElse("");
    }

    /** 2 × matching characters / total characters, matching by longest common substrings (as difflib does). */
    static double similarity(String a, String b) {
        if (a.isEmpty() && b.isEmpty()) {
            return 1.0;
        }
        return 2.0 * matches(a, b) / (a.length() + b.length());
    }

    private static int matches(String a, String b) {
        if (a.isEmpty() || b.isEmpty()) {
            return 0;
        }
        int bestLength = 0;
        int bestA = 0;
        int bestB = 0;
        int[][] lengths = new int[a.length() + 1][b.length() + 1];
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                if (a.charAt(i - 1) == b.charAt(j - 1)) {
                    lengths[i][j] = lengths[i - 1][j - 1] + 1;
                    if (lengths[i][j] > bestLength) {
                        bestLength = lengths[i][j];
                        bestA = i - bestLength;
                        bestB = j - bestLength;
                    }
                }
            }
        }
        if (bestLength == 0) {
            return 0;
        }
        return bestLength
                + matches(a.substring(0, bestA), b.substring(0, bestB))
                + matches(a.substring(bestA + bestLength), b.substring(bestB + bestLength));
    }
}
