package dev.arbor.inference.steps;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Finds personal data and secrets in a text: e-mail addresses, phone numbers (written as such), card numbers (that pass the Luhn check),
 * IBANs (that pass their mod-97 check), national ids (US social security numbers, UK national insurance numbers), IP
 * addresses, and secrets (API keys by their known prefixes, and long high-entropy tokens). Patterns run on RE2/J, so a
 * text of any shape is scanned in linear time; a number that only looks like a card or an IBAN is not one.
 */
final class PiiScanner {
    /** What is found, in the order a span claimed by two is given to the first. */
    enum Kind {
        SECRET,
        EMAIL,
        IBAN,
        CARD,
        NATIONAL_ID,
        IP,
        PHONE;

        String wire() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** One finding: its kind and where it is. */
    record Hit(Kind kind, int start, int end) {}

    private static final Pattern EMAIL =
            Pattern.compile("[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)*\\.[A-Za-z]{2,}");
    private static final Pattern CARD = Pattern.compile("\\b\\d(?:[ -]?\\d){12,18}\\b");
    private static final Pattern IBAN = Pattern.compile("\\b[A-Z]{2}\\d{2}(?: ?[A-Z0-9]){11,30}\\b");
    private static final Pattern SSN = Pattern.compile("\\b(\\d{3})-(\\d{2})-(\\d{4})\\b");
    private static final Pattern NINO =
            Pattern.compile("\\b[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\\d{2} ?\\d{2} ?\\d{2} ?[A-D]\\b");
    private static final Pattern IPV4 = Pattern.compile(
            "\\b(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\b");
    private static final Pattern IPV6 = Pattern.compile("\\b(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}\\b");
    /**
     * A phone number written as one: with its country code ({@code +44 20 7946 0958}), an area code in parentheses
     * ({@code (020) 7946 0958}), or the 3-3-4 groups of North America ({@code 415-555-0132}); a bare run of digits is
     * too often something else.
     */
    private static final Pattern PHONE =
            Pattern.compile("\\+\\d{1,3}[ .-]?(?:\\(\\d{1,4}\\)[ .-]?)?\\d{1,4}(?:[ .-]?\\d{2,4}){1,4}"
                    + "|\\(\\d{2,4}\\)[ .-]?\\d{3,4}[ .-]?\\d{3,4}"
                    + "|\\b\\d{3}[.-]\\d{3}[.-]\\d{4}\\b");

    private static final Pattern KNOWN_SECRET = Pattern.compile("\\b(?:sk-[A-Za-z0-9_-]{20,}|ghp_[A-Za-z0-9]{36}"
            + "|github_pat_[A-Za-z0-9_]{22,}|AKIA[0-9A-Z]{16}|xox[abprs]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35}"
            + "|arb_[A-Za-z0-9_]{16,}|glpat-[A-Za-z0-9_-]{20,})");
    private static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9+/_=-]{32,}");
    /** Bits per character above which a long token of letters and digits reads as a random secret. */
    private static final double SECRET_ENTROPY = 4.0;

    private PiiScanner() {}

    /** The findings of these kinds, in text order, none overlapping another. */
    static List<Hit> find(String text, Set<Kind> kinds) {
        var hits = new ArrayList<Hit>();
        for (Kind kind : Kind.values()) {
            if (kinds.contains(kind)) {
                for (Hit hit : candidates(kind, text)) {
                    if (hits.stream().noneMatch(h -> h.start() < hit.end() && hit.start() < h.end())) {
                        hits.add(hit);
                    }
                }
            }
        }
        hits.sort(Comparator.comparingInt(Hit::start));
        return hits;
    }

    /** The text with each finding replaced by {@code [REDACTED:<kind>]}. */
    static String redact(String text, List<Hit> hits) {
        var out = new StringBuilder(text.length());
        int at = 0;
        for (Hit hit : hits) {
            out.append(text, at, hit.start())
                    .append("[REDACTED:")
                    .append(hit.kind().wire())
                    .append(']');
            at = hit.end();
        }
        return out.append(text, at, text.length()).toString();
    }

    private static List<Hit> candidates(Kind kind, String text) {
        return switch (kind) {
            case EMAIL -> matches(kind, EMAIL, text, m -> true);
            case CARD -> matches(kind, CARD, text, m -> luhn(digits(m.group())));
            case IBAN -> matches(kind, IBAN, text, m -> iban(m.group().replace(" ", "")));
            case NATIONAL_ID -> {
                List<Hit> found = new ArrayList<>(matches(kind, SSN, text, PiiScanner::ssn));
                found.addAll(matches(kind, NINO, text, m -> true));
                yield found;
            }
            case IP -> {
                List<Hit> found = new ArrayList<>(matches(kind, IPV4, text, m -> true));
                found.addAll(matches(kind, IPV6, text, m -> true));
                yield found;
            }
            case PHONE ->
                matches(kind, PHONE, text, m -> {
                    int digits = digits(m.group()).length();
                    return digits >= 9 && digits <= 15;
                });
            case SECRET -> {
                List<Hit> found = new ArrayList<>(matches(kind, KNOWN_SECRET, text, m -> true));
                found.addAll(matches(kind, TOKEN, text, m -> random(m.group())));
                yield found;
            }
        };
    }

    private interface Check {
        boolean holds(Matcher match);
    }

    private static List<Hit> matches(Kind kind, Pattern pattern, String text, Check check) {
        var found = new ArrayList<Hit>();
        Matcher matcher = pattern.matcher(text);
        while (matcher.find()) {
            if (check.holds(matcher)) {
                found.add(new Hit(kind, matcher.start(), matcher.end()));
            }
        }
        return found;
    }

    private static String digits(String text) {
        return text.replaceAll("\\D", "");
    }

    /** The Luhn check of a card number of 13 to 19 digits. */
    static boolean luhn(String digits) {
        if (digits.length() < 13 || digits.length() > 19) {
            return false;
        }
        int sum = 0;
        for (int i = 0; i < digits.length(); i++) {
            int d = digits.charAt(digits.length() - 1 - i) - '0';
            if (i % 2 == 1) {
                d *= 2;
                if (d > 9) {
                    d -= 9;
                }
            }
            sum += d;
        }
        return sum % 10 == 0;
    }

    /** An IBAN's check: its first four characters moved to the end, letters as numbers, mod 97 is 1. */
    static boolean iban(String iban) {
        if (iban.length() < 15 || iban.length() > 34) {
            return false;
        }
        String moved = iban.substring(4) + iban.substring(0, 4);
        int remainder = 0;
        for (char c : moved.toCharArray()) {
            int value = Character.isDigit(c) ? c - '0' : c - 'A' + 10;
            remainder = value > 9 ? (remainder * 100 + value) % 97 : (remainder * 10 + value) % 97;
        }
        return remainder == 1;
    }

    /** A US social security number's area, group and serial are never all zero, nor its area 666 or 9xx. */
    private static boolean ssn(Matcher match) {
        int area = Integer.parseInt(match.group(1));
        return area != 0
                && area != 666
                && area < 900
                && !match.group(2).equals("00")
                && !match.group(3).equals("0000");
    }

    /** Whether a long token has letters and digits and the entropy of a random one. */
    private static boolean random(String token) {
        if (token.chars().noneMatch(Character::isDigit) || token.chars().noneMatch(Character::isLetter)) {
            return false;
        }
        int[] counts = new int[128];
        for (char c : token.toCharArray()) {
            counts[c]++;
        }
        double entropy = 0;
        for (int count : counts) {
            if (count > 0) {
                double p = (double) count / token.length();
                entropy -= p * Math.log(p) / Math.log(2);
            }
        }
        return entropy >= SECRET_ENTROPY;
    }
}
