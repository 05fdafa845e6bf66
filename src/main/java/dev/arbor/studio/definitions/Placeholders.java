package dev.arbor.studio.definitions;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code {{name}}} placeholders: where they are, and the closest declared name for a misspelt one. */
public final class Placeholders {
    /** {@code {{ name }}} with optional inner spaces, unless escaped as {@code \{{}. */
    static final Pattern PLACEHOLDER = Pattern.compile("(?<!\\\\)\\{\\{\\s*([^{}\\s]+)\\s*}}");

    private static final Pattern WHOLE = Pattern.compile("^\\s*\\{\\{\\s*([^{}\\s]+)\\s*}}\\s*$");

    private Placeholders() {}

    static List<String> names(String text) {
        var names = new ArrayList<String>();
        Matcher matcher = PLACEHOLDER.matcher(text);
        while (matcher.find()) {
            names.add(matcher.group(1));
        }
        return names;
    }

    /** The variable name when the whole string is one placeholder. */
    static Optional<String> whole(String text) {
        Matcher matcher = WHOLE.matcher(text);
        return matcher.matches() ? Optional.of(matcher.group(1)) : Optional.empty();
    }

    /** The closest candidate by similarity ratio, when it is at least 0.6 alike. */
    static Optional<String> closest(String name, Collection<String> candidates) {
        String best = null;
        double bestRatio = 0.6;
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
    public static String didYouMean(String name, Collection<String> candidates) {
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
