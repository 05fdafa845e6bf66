package dev.arbor.inference.spend;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.Dialect;
import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The spend the usage rows add up to, summed by the database (rows are never loaded one by one, so memory stays flat
 * however many there are). Periods are computed from the row's time in UTC: a day as its epoch day, a week as the
 * epoch day of its Monday, a month as {@code YYYY-MM}.
 */
final class SpendStore {
    private static final long DAY_MILLIS = 86_400_000L;

    private final Database database;

    SpendStore(Database database) {
        this.database = requireNonNull(database, "database");
    }

    /**
     * One group's totals.
     *
     * @param group the group's value for each dimension asked, in their order ({@code null}: none, such as the key of
     *     a request made with an admin's token)
     */
    record Row(
            Map<String, @Nullable String> group,
            long requests,
            long promptTokens,
            long completionTokens,
            BigDecimal costUsd,
            long unpricedRequests) {}

    List<Row> totals(SpendQuery query) {
        if (query.projects().map(java.util.Set::isEmpty).orElse(false)) {
            return List.of();
        }
        Dialect dialect = database.dialect();
        List<String> selected = query.groupBy().stream()
                .map(d -> expression(d, dialect) + " AS g_" + d.column())
                .toList();
        String groups = query.groupBy().stream().map(d -> "g_" + d.column()).collect(Collectors.joining(", "));
        String sql = "SELECT " + (selected.isEmpty() ? "" : String.join(", ", selected) + ", ")
                + "count(*) AS requests, coalesce(sum(prompt_tokens), 0) AS prompt, "
                + "coalesce(sum(completion_tokens), 0) AS completion, coalesce(sum(cost_picousd), 0) AS cost, "
                + "sum(CASE WHEN cost_picousd IS NULL THEN 1 ELSE 0 END) AS unpriced "
                + "FROM routing_usage WHERE at >= :from AND at < :to"
                + (query.projects().isPresent() ? " AND project_id IN (<projects>)" : "")
                + (groups.isEmpty() ? "" : " GROUP BY " + groups + " ORDER BY " + groups);
        return database.read(handle -> {
            var select =
                    handle.createQuery(sql).bind("from", query.fromMillis()).bind("to", query.toMillis());
            query.projects().ifPresent(ids -> select.bindList("projects", new ArrayList<>(ids)));
            return select.map((rs, ctx) -> row(rs, query)).list();
        });
    }

    /** The totals of inference key {@code keyId}'s rows at or after {@code fromMillis} and before {@code toMillis}. */
    Row ofKey(String keyId, long fromMillis, long toMillis) {
        var query = new SpendQuery(Optional.empty(), fromMillis, toMillis, List.of());
        return database.read(handle -> handle.createQuery("SELECT count(*) AS requests, "
                        + "coalesce(sum(prompt_tokens), 0) AS prompt, coalesce(sum(completion_tokens), 0) AS completion, "
                        + "coalesce(sum(cost_picousd), 0) AS cost, "
                        + "sum(CASE WHEN cost_picousd IS NULL THEN 1 ELSE 0 END) AS unpriced "
                        + "FROM routing_usage WHERE key_id = :key AND at >= :from AND at < :to")
                .bind("key", keyId)
                .bind("from", fromMillis)
                .bind("to", toMillis)
                .map((rs, ctx) -> row(rs, query))
                .one());
    }

    private static String expression(SpendQuery.Dimension dimension, Dialect dialect) {
        String day = "(at / " + DAY_MILLIS + ")";
        return switch (dimension) {
            case DAY -> day;
            // 1970-01-01 was a Thursday: the Monday on or before an epoch day is 3 days after it, modulo 7, back
            case WEEK -> "(" + day + " - ((" + day + " + 3) % 7))";
            case MONTH ->
                dialect == Dialect.POSTGRESQL
                        ? "to_char(to_timestamp(at / 1000) AT TIME ZONE 'UTC', 'YYYY-MM')"
                        : "strftime('%Y-%m', at / 1000, 'unixepoch')";
            default -> dimension.column();
        };
    }

    private static Row row(ResultSet rs, SpendQuery query) throws SQLException {
        var group = new LinkedHashMap<String, @Nullable String>();
        for (SpendQuery.Dimension d : query.groupBy()) {
            String column = "g_" + d.column();
            group.put(
                    d.column(),
                    switch (d) {
                        case DAY, WEEK ->
                            LocalDate.ofEpochDay(rs.getLong(column)).toString();
                        default -> rs.getString(column);
                    });
        }
        return new Row(
                group,
                rs.getLong("requests"),
                rs.getLong("prompt"),
                rs.getLong("completion"),
                Price.plain(rs.getBigDecimal("cost").movePointLeft(12)),
                rs.getLong("unpriced"));
    }
}
