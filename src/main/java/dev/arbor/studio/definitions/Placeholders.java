package dev.arbor.studio.definitions;

import dev.arbor.platform.errors.DidYouMean;
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

    public static List<String> names(String text) {
        var names = new ArrayList<String>();
        Matcher matcher = PLACEHOLDER.matcher(text);
        while (matcher.find()) {
            names.add(matcher.group(1));
        }
        return names;
    }

    /** The variable name when the whole string is one placeholder. */
    public static Optional<String> whole(String text) {
        Matcher matcher = WHOLE.matcher(text);
        return matcher.matches() ? Optional.of(matcher.group(1)) : Optional.empty();
    }

    /** " Did you mean `x`?" or nothing. */
    public static String didYouMean(String name, Collection<String> candidates) {
        return DidYouMean.hint(name, candidates);
    }
}
