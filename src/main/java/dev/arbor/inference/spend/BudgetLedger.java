package dev.arbor.inference.spend;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One request's reservation in the budgets that apply to it: settled once, with the request's real usage when it ends
 * (a failure settles nothing spent, which releases the reservation).
 */
public final class BudgetLedger {
    /** A budget period the reservation holds a part of. */
    record Line(String budgetId, long periodStart) {}

    /** The reservation of a request no budget applies to. */
    public static final BudgetLedger NONE = new BudgetLedger(null, List.of(), 0, 0);

    private final @org.jspecify.annotations.Nullable BudgetStore store;
    private final List<Line> lines;
    private final long picos;
    private final long tokens;
    private final AtomicBoolean settled = new AtomicBoolean();

    BudgetLedger(@org.jspecify.annotations.Nullable BudgetStore store, List<Line> lines, long picos, long tokens) {
        this.store = store;
        this.lines = List.copyOf(requireNonNull(lines, "lines"));
        this.picos = picos;
        this.tokens = tokens;
    }

    /** Replaces the reservation with what the request really spent; only the first call counts. */
    public void settle(long spentTokens, long spentPicos) {
        if (store == null || lines.isEmpty() || !settled.compareAndSet(false, true)) {
            return;
        }
        store.settle(lines, picos, tokens, spentPicos, spentTokens);
    }
}
