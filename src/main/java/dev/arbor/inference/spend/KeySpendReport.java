package dev.arbor.inference.spend;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import dev.arbor.keys.KeySpending;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.http.Schema;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;

/**
 * An inference key's spend as {@code GET /keys/{id}} shows it: today's (the UTC day) and its total, summed from its
 * usage rows by the database, and the current period of each of its budgets.
 */
public final class KeySpendReport implements KeySpending {
    private static final Schema TOTALS = Schema.object()
            .required("requests", Schema.integer())
            .required("prompt_tokens", Schema.integer())
            .required("completion_tokens", Schema.integer())
            .required("cost_usd", Schema.number())
            .required("unpriced_requests", Schema.integer());
    private static final Schema SPEND = Schema.object()
            .required("today", TOTALS)
            .required("total", TOTALS)
            .required("budgets", Schema.arrayOf(BudgetRoutes.BUDGET));

    private final SpendStore store;
    private final Budgets budgets;
    private final Clock clock;

    public KeySpendReport(Database database, Budgets budgets, Clock clock) {
        this.store = new SpendStore(requireNonNull(database, "database"));
        this.budgets = requireNonNull(budgets, "budgets");
        this.clock = requireNonNull(clock, "clock");
    }

    @JsonPropertyOrder({"requests", "prompt_tokens", "completion_tokens", "cost_usd", "unpriced_requests"})
    record TotalsJson(
            @JsonProperty("requests") long requests,
            @JsonProperty("prompt_tokens") long promptTokens,
            @JsonProperty("completion_tokens") long completionTokens,

            @JsonProperty("cost_usd") @JsonSerialize(using = PlainDecimal.class)
            BigDecimal costUsd,

            @JsonProperty("unpriced_requests") long unpricedRequests) {
        static TotalsJson of(SpendStore.Row row) {
            return new TotalsJson(
                    row.requests(), row.promptTokens(), row.completionTokens(), row.costUsd(), row.unpricedRequests());
        }
    }

    @JsonPropertyOrder({"today", "total", "budgets"})
    record SpendJson(
            @JsonProperty("today") TotalsJson today,
            @JsonProperty("total") TotalsJson total,
            @JsonProperty("budgets") List<BudgetRoutes.BudgetJson> budgets) {}

    @Override
    public Record of(String keyId) {
        long now = clock.millis();
        long today = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC)
                .atStartOfDay(ZoneOffset.UTC)
                .toInstant()
                .toEpochMilli();
        // "to" is exclusive: a row written at this very millisecond counts
        return new SpendJson(
                TotalsJson.of(store.ofKey(keyId, today, now + 1)),
                TotalsJson.of(store.ofKey(keyId, 0, now + 1)),
                budgets.ofKey(keyId).stream()
                        .map(budget -> BudgetRoutes.BudgetJson.of(budget, budgets))
                        .toList());
    }

    @Override
    public Schema schema() {
        return SPEND;
    }
}
