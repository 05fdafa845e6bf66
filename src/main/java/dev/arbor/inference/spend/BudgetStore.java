package dev.arbor.inference.spend;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.db.Columns;
import dev.arbor.platform.db.Database;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.ZoneId;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import org.jdbi.v3.core.Handle;

/** The SQL of budgets and of what their periods spent and reserved. */
final class BudgetStore {
    private final Database database;

    BudgetStore(Database database) {
        this.database = requireNonNull(database, "database");
    }

    /** What a budget's period has spent and reserved. */
    record Standing(long spentPicos, long spentTokens, long reservedPicos, long reservedTokens) {
        static final Standing NONE = new Standing(0, 0, 0, 0);
    }

    List<Budget> all() {
        return database.read(handle -> handle.createQuery("SELECT * FROM budgets ORDER BY created_at, id")
                .map((rs, ctx) -> row(rs))
                .list());
    }

    void insert(Budget budget) {
        database.update(handle -> handle.createUpdate(
                        "INSERT INTO budgets (id, project_id, scope, scope_id, usd_picos, tokens, period, time_zone, "
                                + "created_at) VALUES (:id, :project, :scope, :scopeId, :usd, :tokens, :period, :zone, "
                                + ":created)")
                .bind("id", budget.id())
                .bind("project", budget.projectId())
                .bind("scope", budget.scope().wire())
                .bind("scopeId", budget.scopeId())
                .bind("usd", boxed(budget.usdPicos()))
                .bind("tokens", boxed(budget.tokens()))
                .bind("period", budget.period().wire())
                .bind("zone", budget.zone().getId())
                .bind("created", budget.createdAtMillis())
                .execute());
    }

    boolean delete(String id) {
        return database.write(handle -> handle.createUpdate("DELETE FROM budgets WHERE id = :id")
                        .bind("id", id)
                        .execute())
                > 0;
    }

    Standing standing(String budgetId, long periodStart) {
        return database.read(handle -> find(handle, budgetId, periodStart, false))
                .orElse(Standing.NONE);
    }

    /**
     * Reserves {@code picos} and {@code tokens} in each budget's current period, in one transaction holding each
     * period's row lock (budgets in id order: one lock order, no deadlock); refused, with nothing reserved, through
     * {@code refuse} when one of them could be passed.
     */
    void reserve(List<Budget> budgets, long nowMillis, long picos, long tokens, Refusal refuse) {
        database.write(handle -> {
            for (Budget budget : budgets) {
                long start = budget.periodStart(nowMillis);
                handle.createUpdate("INSERT INTO budget_periods (budget_id, period_start, spent_picos, spent_tokens, "
                                + "reserved_picos, reserved_tokens) VALUES (:id, :start, 0, 0, 0, 0) "
                                + "ON CONFLICT (budget_id, period_start) DO NOTHING")
                        .bind("id", budget.id())
                        .bind("start", start)
                        .execute();
                Standing now = find(handle, budget.id(), start, true).orElse(Standing.NONE);
                boolean overUsd = budget.usdPicos().isPresent()
                        && now.spentPicos() + now.reservedPicos() + picos
                                > budget.usdPicos().getAsLong();
                boolean overTokens = budget.tokens().isPresent()
                        && now.spentTokens() + now.reservedTokens() + tokens
                                > budget.tokens().getAsLong();
                if (overUsd || overTokens) {
                    throw refuse.of(budget, nowMillis);
                }
                handle.createUpdate("UPDATE budget_periods SET reserved_picos = reserved_picos + :picos, "
                                + "reserved_tokens = reserved_tokens + :tokens WHERE budget_id = :id AND "
                                + "period_start = :start")
                        .bind("picos", picos)
                        .bind("tokens", tokens)
                        .bind("id", budget.id())
                        .bind("start", start)
                        .execute();
            }
            return null;
        });
    }

    /** Why a reservation is refused: the exception the request ends with. */
    @FunctionalInterface
    interface Refusal {
        RuntimeException of(Budget budget, long nowMillis);
    }

    /** Turns reservations into what was spent: each period's reservation goes, its real usage is added. */
    void settle(List<BudgetLedger.Line> lines, long reservedPicos, long reservedTokens, long picos, long tokens) {
        database.update(handle -> {
            for (BudgetLedger.Line line : lines) {
                handle.createUpdate("UPDATE budget_periods SET reserved_picos = reserved_picos - :rp, "
                                + "reserved_tokens = reserved_tokens - :rt, spent_picos = spent_picos + :p, "
                                + "spent_tokens = spent_tokens + :t WHERE budget_id = :id AND period_start = :start")
                        .bind("rp", reservedPicos)
                        .bind("rt", reservedTokens)
                        .bind("p", picos)
                        .bind("t", tokens)
                        .bind("id", line.budgetId())
                        .bind("start", line.periodStart())
                        .execute();
            }
        });
    }

    private Optional<Standing> find(Handle handle, String budgetId, long start, boolean lock) {
        return handle.createQuery("SELECT spent_picos, spent_tokens, reserved_picos, reserved_tokens FROM "
                        + "budget_periods WHERE budget_id = :id AND period_start = :start"
                        + (lock ? database.dialect().forUpdate() : ""))
                .bind("id", budgetId)
                .bind("start", start)
                .map((rs, ctx) -> new Standing(
                        rs.getLong("spent_picos"),
                        rs.getLong("spent_tokens"),
                        rs.getLong("reserved_picos"),
                        rs.getLong("reserved_tokens")))
                .findOne();
    }

    private static Budget row(ResultSet rs) throws SQLException {
        return new Budget(
                rs.getString("id"),
                rs.getString("project_id"),
                Budget.Scope.valueOf(rs.getString("scope").toUpperCase(Locale.ROOT)),
                rs.getString("scope_id"),
                optional(Columns.optionalLong(rs, "usd_picos")),
                optional(Columns.optionalLong(rs, "tokens")),
                Budget.Period.valueOf(rs.getString("period").toUpperCase(Locale.ROOT)),
                ZoneId.of(rs.getString("time_zone")),
                rs.getLong("created_at"));
    }

    private static OptionalLong optional(Optional<Long> value) {
        return value.map(OptionalLong::of).orElse(OptionalLong.empty());
    }

    private static @org.jspecify.annotations.Nullable Long boxed(OptionalLong value) {
        return value.isPresent() ? value.getAsLong() : null;
    }
}
