package dev.arbor.studio.history;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.db.Dialect;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.http.QueryParam;
import dev.arbor.studio.templates.Templates;
import io.javalin.http.Context;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.jdbi.v3.core.statement.SqlStatement;

/**
 * The filters of {@code GET /v1/studio/decisions}, read from the query string: a comma means "any of" within a
 * filter, and all filters must hold. Each becomes a condition on the decisions table (or an {@code EXISTS} on its
 * answers), with its values bound, never spliced into the SQL.
 */
public final class HistoryQuery {
    private static final Pattern WORD = Pattern.compile("[\\p{L}\\p{N}]+");
    private static final Pattern METADATA_KEY = Pattern.compile("[A-Za-z0-9_.:-]{1,64}");
    private static final Pattern RELATIVE = Pattern.compile("-(\\d+(?:\\.\\d+)?)([smhdw])");
    private static final Map<String, String> LISTS = Map.of(
            "model",
            "model",
            "status",
            "status",
            "surface",
            "surface",
            "endpoint",
            "endpoint",
            "request_id",
            "request_id",
            "rerun_of",
            "rerun_of");
    /** Surfaces history leaves out unless {@code surface} names them (or is {@code all}): the evals' decisions. */
    public static final List<String> HIDDEN_SURFACES = List.of("eval");

    private static final Map<String, QueryParam> DECLARED =
            HistoryShapes.FILTERS.stream().collect(Collectors.toUnmodifiableMap(QueryParam::name, param -> param));

    /** A condition and the values it binds. */
    record Condition(String sql, Map<String, Object> binds) {}

    private final List<Condition> conditions = new ArrayList<>();
    private final Problems problems = new Problems();
    private int next;
    private boolean searchesText;

    /** Whether a filter searches the full text (which may first need its index caught up). */
    boolean searchesText() {
        return searchesText;
    }

    /** The SQL condition of every filter together ({@code 1 = 1} when there is none). */
    String where() {
        return conditions.isEmpty()
                ? "1 = 1"
                : String.join(" AND ", conditions.stream().map(Condition::sql).toList());
    }

    /** Binds the values of {@link #where()}. */
    void bindTo(SqlStatement<?> statement) {
        conditions.forEach(c -> statement.bindMap(c.binds()));
    }

    /**
     * The query parameters of a request, each with its first value, less the ones an endpoint reads itself: a
     * declared filter ({@link HistoryShapes#FILTERS}) read through its declaration, any other name as sent (the named
     * filters such as {@code metadata.<key>}; one that is no filter is refused by {@link #parse}).
     */
    public static Map<String, String> params(Context ctx, List<QueryParam> except) {
        Set<String> own = except.stream().map(QueryParam::name).collect(Collectors.toSet());
        var params = new LinkedHashMap<String, String>();
        for (String name : ctx.queryParamMap().keySet()) {
            if (!own.contains(name)) {
                Optional.ofNullable(DECLARED.get(name))
                        .map(param -> param.read(ctx))
                        .orElseGet(() -> Optional.ofNullable(ctx.queryParam(name)))
                        .ifPresent(value -> params.put(name, value));
            }
        }
        return params;
    }

    /**
     * @param params each query parameter with its first value
     * @param dialect how this database reads JSON keys and searches text
     * @param searchable whether this database has its full-text index (400 {@code search_unavailable} for
     *     {@code q} without it)
     */
    static HistoryQuery parse(
            Map<String, String> params, Templates templates, Instant now, Dialect dialect, boolean searchable) {
        var query = new HistoryQuery();
        params.forEach((name, value) -> query.read(name, value, templates, now, dialect, searchable));
        if (!params.containsKey("surface")) {
            var binds = query.new Binds();
            binds.add("surface NOT IN (" + binds.list(HIDDEN_SURFACES) + ")");
        }
        query.problems.throwIfAny();
        return query;
    }

    /** Keeps decisions that read the sensitive value whose HMAC this is, in that variable. */
    public void secret(String variable, String hmac) {
        var binds = new Binds();
        binds.add("EXISTS (SELECT 1 FROM studio_decision_secrets s WHERE s.decision_seq = studio_decisions.seq AND "
                + "s.variable = " + binds.one(variable) + " AND s.hmac = " + binds.one(hmac) + ")");
    }

    /** Names parameters for one condition and keeps their values. */
    private final class Binds {
        final Map<String, Object> values = new LinkedHashMap<>();

        String one(Object value) {
            String name = "p" + next++;
            values.put(name, requireNonNull(value, "value"));
            return ":" + name;
        }

        String list(List<?> items) {
            return String.join(", ", items.stream().map(this::one).toList());
        }

        void add(String sql) {
            conditions.add(new Condition(sql, Map.copyOf(values)));
        }
    }

    private static final String ANSWER =
            "EXISTS (SELECT 1 FROM studio_decision_answers a WHERE a.decision_seq = " + "studio_decisions.seq AND ";

    private static final String FEEDBACK =
            "EXISTS (SELECT 1 FROM studio_feedback f WHERE f.decision_id = " + "studio_decisions.id";

    private void read(
            String name, String value, Templates templates, Instant now, Dialect dialect, boolean searchable) {
        var binds = new Binds();
        if (name.equals("surface") && value.equals("all")) {
            return; // every surface, the hidden ones too
        }
        if (LISTS.containsKey(name)) {
            binds.add(LISTS.get(name) + " IN (" + binds.list(values(value)) + ")");
            return;
        }
        switch (name) {
            case "template" -> template(value, templates, binds);
            case "version" ->
                integers(name, value)
                        .ifPresent(versions -> binds.add("template_version IN (" + binds.list(versions) + ")"));
            case "act", "pinned" -> flag(name, value).ifPresent(flag -> binds.add(name + " = " + binds.one(flag)));
            case "labelled" -> flag(name, value).ifPresent(flag -> binds.add((flag ? "" : "NOT ") + FEEDBACK + ")"));
            case "correct" ->
                flag(name, value)
                        .ifPresent(flag -> binds.add(
                                flag
                                        ? FEEDBACK + " AND f.correct = " + binds.one(true) + ") AND NOT " + FEEDBACK
                                                + " AND f.correct = " + binds.one(false) + ")"
                                        : FEEDBACK + " AND f.correct = " + binds.one(false) + ")"));
            case "created_after" -> time(name, value, now).ifPresent(at -> binds.add("created_at >= " + binds.one(at)));
            case "created_before" -> time(name, value, now).ifPresent(at -> binds.add("created_at < " + binds.one(at)));
            case "needs_review" ->
                binds.add(ANSWER + "a.question_key IN (" + binds.list(values(value)) + ") AND a.act = "
                        + binds.one(false) + ")");
            case "q" -> {
                if (!searchable) {
                    problems.add(
                            ErrorCode.SEARCH_UNAVAILABLE,
                            "q",
                            "This database has no full-text index (its "
                                    + "SQLite lacks FTS5, or the index was lost in a copy), so `q` cannot search; the other "
                                    + "filters work.");
                    return;
                }
                List<String> words = new ArrayList<>();
                Matcher matcher = WORD.matcher(value);
                while (matcher.find()) {
                    words.add(matcher.group());
                }
                if (!words.isEmpty()) {
                    searchesText = true;
                    binds.add(dialect.fullTextMatch(
                            "studio_decisions", "seq", "search_text", binds.one(dialect.fullTextQuery(words))));
                }
            }
            case "limit", "after", "before", "view", "include" -> {} // paging and shape, read elsewhere
            default -> prefixed(name, value, dialect, binds);
        }
    }

    private void prefixed(String name, String value, Dialect dialect, Binds binds) {
        int dot = name.indexOf('.');
        String prefix = dot < 0 ? name : name.substring(0, dot);
        String key = dot < 0 ? "" : name.substring(dot + 1);
        if (key.isEmpty()
                || !List.of("metadata", "answer", "certainty_below", "certainty_above")
                        .contains(prefix)) {
            problems.add(ErrorCode.INVALID_PARAMETER, name, "`" + name + "` is not a filter of the decision list.");
            return;
        }
        switch (prefix) {
            case "metadata" -> {
                if (!METADATA_KEY.matcher(key).matches()) {
                    problems.add(
                            ErrorCode.INVALID_PARAMETER,
                            name,
                            "Metadata keys are 1 to 64 characters of letters, " + "digits and _ . : -.");
                    return;
                }
                binds.add(dialect.jsonText("metadata", binds.one(key)) + " = " + binds.one(value));
            }
            case "answer" -> {
                List<String> answers = values(value).stream()
                        .map(v -> switch (v.toLowerCase(Locale.ROOT)) {
                            case "true" -> "yes";
                            case "false" -> "no";
                            default -> v;
                        })
                        .toList();
                binds.add(ANSWER + "a.question_key = " + binds.one(key) + " AND a.answer IN (" + binds.list(answers)
                        + "))");
            }
            default ->
                number(name, value)
                        .ifPresent(bound -> binds.add(ANSWER + "a.question_key = " + binds.one(key)
                                + " AND a.certainty " + (prefix.equals("certainty_below") ? "<" : ">") + " "
                                + binds.one(bound)
                                + ")"));
        }
    }

    /** {@code id} (every version, a deleted template's too), {@code id@N} or {@code id@alias}, {@code none}. */
    private void template(String value, Templates templates, Binds binds) {
        var parts = new ArrayList<String>();
        var ids = new ArrayList<String>();
        for (String reference : values(value)) {
            if (reference.equals("none")) {
                parts.add("template_id IS NULL");
            } else if (reference.contains("@")) {
                Templates.Resolved resolved;
                try {
                    resolved = templates.resolve(reference);
                } catch (ApiException e) {
                    throw ApiException.of(
                            e.code(), "template", e.problems().getFirst().message());
                }
                parts.add("(template_id = " + binds.one(resolved.id()) + " AND template_version = "
                        + binds.one(resolved.version()) + ")");
            } else {
                ids.add(reference);
            }
        }
        if (!ids.isEmpty()) {
            parts.add("template_id IN (" + binds.list(ids) + ")");
        }
        if (!parts.isEmpty()) {
            binds.add("(" + String.join(" OR ", parts) + ")");
        }
    }

    private static List<String> values(String value) {
        return Arrays.stream(value.split(","))
                .map(String::trim)
                .filter(v -> !v.isEmpty())
                .toList();
    }

    private Optional<List<Integer>> integers(String name, String value) {
        var numbers = new ArrayList<Integer>();
        for (String v : values(value)) {
            try {
                numbers.add(Integer.parseInt(v));
            } catch (NumberFormatException e) {
                problems.add(
                        ErrorCode.INVALID_PARAMETER, name, "`" + name + "` takes version numbers, not '" + v + "'.");
                return Optional.empty();
            }
        }
        return Optional.of(numbers);
    }

    private Optional<Boolean> flag(String name, String value) {
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "true", "1", "yes" -> Optional.of(true);
            case "false", "0", "no" -> Optional.of(false);
            default -> {
                problems.add(
                        ErrorCode.INVALID_PARAMETER, name, "`" + name + "` is true or false, not '" + value + "'.");
                yield Optional.empty();
            }
        };
    }

    private Optional<Double> number(String name, String value) {
        try {
            double number = Double.parseDouble(value.trim());
            if (Double.isFinite(number)) {
                return Optional.of(number);
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        problems.add(ErrorCode.INVALID_PARAMETER, name, "`" + name + "` is a number, not '" + value + "'.");
        return Optional.empty();
    }

    /** Unix seconds, RFC 3339 (without an offset: UTC), or relative to now: {@code -7d}, {@code -1.5h}. */
    Optional<Long> time(String name, String value, Instant now) {
        String text = value.trim();
        Matcher relative = RELATIVE.matcher(text);
        if (relative.matches()) {
            double amount = Double.parseDouble(relative.group(1));
            long unit = switch (relative.group(2)) {
                case "s" -> 1_000L;
                case "m" -> 60_000L;
                case "h" -> 3_600_000L;
                case "d" -> 86_400_000L;
                default -> 604_800_000L;
            };
            return Optional.of(now.toEpochMilli() - (long) (amount * unit));
        }
        try {
            double seconds = Double.parseDouble(text);
            if (Double.isFinite(seconds)) {
                return Optional.of((long) (seconds * 1000));
            }
        } catch (NumberFormatException e) {
            // not a number: a date, perhaps
        }
        try {
            return Optional.of(OffsetDateTime.parse(text).toInstant().toEpochMilli());
        } catch (DateTimeParseException e) {
            try {
                return Optional.of(
                        LocalDateTime.parse(text).toInstant(ZoneOffset.UTC).toEpochMilli());
            } catch (DateTimeParseException again) {
                problems.add(
                        ErrorCode.INVALID_PARAMETER,
                        name,
                        "`" + name + "` is Unix seconds, an RFC 3339 time " + "or a relative time such as -7d, not '"
                                + value + "'.");
                return Optional.empty();
            }
        }
    }
}
