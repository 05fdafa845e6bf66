package dev.arbor.platform.config;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The variables the server is configured by, read as typed values: blank counts as unset, and a value that does not
 * read as its type is a {@link ConfigException} that names the variable.
 */
public final class Environment {
    private final Map<String, String> values;

    public Environment(Map<String, String> values) {
        this.values = Map.copyOf(values);
    }

    public Optional<String> text(String name) {
        String value = values.get(name);
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
    }

    /** {@code 1}, {@code true}, {@code yes}, {@code on} or their opposites; {@code fallback} when unset. */
    public boolean flag(String name, boolean fallback) {
        return text(name)
                .map(value -> switch (value.toLowerCase(Locale.ROOT)) {
                    case "1", "true", "yes", "on" -> true;
                    case "0", "false", "no", "off" -> false;
                    default -> throw new ConfigException(name + " must be 1 or 0, not '" + value + "'");
                })
                .orElse(fallback);
    }

    /** A comma-separated list, trimmed, without empty entries; {@code fallback} when the variable is absent. */
    public List<String> list(String name, List<String> fallback) {
        if (!values.containsKey(name)) {
            return fallback;
        }
        return text(name)
                .map(v -> Arrays.stream(v.split(","))
                        .map(String::trim)
                        .filter(s -> !s.isEmpty())
                        .toList())
                .orElse(List.of());
    }

    /** A whole number of seconds, at least one; {@code fallbackSeconds} when unset. */
    public Duration seconds(String name, long fallbackSeconds) {
        return Duration.ofSeconds(whole(name, 1, "seconds").orElse(fallbackSeconds));
    }

    /** A whole number of {@code unit}, at least {@code least}. */
    public Optional<Long> whole(String name, long least, String unit) {
        return text(name).map(value -> whole(name, value, least, unit));
    }

    /** {@code value}, one of variable {@code name}'s values, as a whole number of {@code unit}, at least {@code least}. */
    public static long whole(String name, String value, long least, String unit) {
        try {
            long number = Long.parseLong(value);
            if (number >= least) {
                return number;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new ConfigException(
                name + " must be a whole number of " + unit + ", at least " + least + ", not '" + value + "'");
    }

    /** A whole number of {@code unit} that fits an int, at least one. */
    public Optional<Integer> count(String name, String unit) {
        return whole(name, 1, unit).map(number -> (int) Math.min(number, Integer.MAX_VALUE));
    }

    /** An absolute http or https URL without a query or fragment, its trailing slash dropped. */
    public Optional<String> webUrl(String name) {
        return text(name).map(value -> {
            java.net.URI uri;
            try {
                uri = new java.net.URI(value);
            } catch (java.net.URISyntaxException e) {
                throw new ConfigException(name + " must be an absolute http or https URL, not " + value);
            }
            boolean web = "http".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme());
            if (!web || uri.getHost() == null || uri.getQuery() != null || uri.getFragment() != null) {
                throw new ConfigException(
                        name + " must be an absolute http or https URL without a query, not " + value);
            }
            return value.endsWith("/") ? value.substring(0, value.length() - 1) : value;
        });
    }
}
