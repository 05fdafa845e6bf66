package dev.arbor.platform.patterns;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import java.util.Optional;

/**
 * Regular expressions that users write (router content rules, studio variables' patterns, the {@code regex_replace}
 * filter of templates) run on RE2/J, whose matching takes time linear in the text: a pattern that makes a
 * backtracking engine try every way ({@code ^(a+)+$} against {@code aaaa…a!}) answers at once. RE2's syntax has no
 * backreferences ({@code \1}) or lookaround ({@code (?=…)}, {@code (?<!…)}): such a pattern is refused where it is
 * saved. Our own patterns stay on java.util.regex.
 */
public final class UserPatterns {
    private UserPatterns() {}

    /**
     * Why RE2 cannot run {@code pattern}, as the end of a sentence that names the field ("is not a pattern RE2 can
     * run: …"); empty when it can.
     */
    public static Optional<String> refusal(String pattern) {
        try {
            Pattern.compile(pattern);
            return Optional.empty();
        } catch (PatternSyntaxException e) {
            return Optional.of("is not a regular expression RE2 can run (" + e.getDescription()
                    + (e.getPattern().isEmpty() ? "" : ": `" + e.getPattern() + "`")
                    + "); patterns are RE2 syntax, without backreferences or lookaround");
        }
    }
}
