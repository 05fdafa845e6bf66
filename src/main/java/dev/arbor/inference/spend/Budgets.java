package dev.arbor.inference.spend;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.db.Database;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Budgets and their enforcement. A request reserves, before anything is sent upstream, the most it may cost (its body's
 * bytes as an upper bound of its prompt's tokens, plus its {@code max_tokens} or {@link #DEFAULT_COMPLETION_TOKENS},
 * at its endpoint's price) in every budget of its key, project and router, in one database transaction that holds
 * each budget period's row lock; a budget that could be passed refuses it (429 {@code budget_exceeded}) with nothing
 * reserved. When the request ends its reservation is replaced by its real usage. So concurrent requests, on one server
 * or on several sharing PostgreSQL, never spend past a budget, except by what an upstream reports beyond what was
 * reserved: completion tokens past the default for a request that set no {@code max_tokens}, and unpriced requests,
 * which count tokens but no USD. The budgets themselves are read from memory, reloaded when another server changes
 * them; a request none applies to costs no database work.
 */
public final class Budgets {
    /** What a request that sets no {@code max_tokens} reserves for its completion. */
    public static final long DEFAULT_COMPLETION_TOKENS = 4_096;

    /** Whose request it is: the key, project and router its budgets are looked for by. */
    public record Charge(Optional<String> keyId, Optional<String> projectId, Optional<String> routerId) {}

    private final BudgetStore store;
    private final Clock clock;
    private volatile Map<String, List<Budget>> byScope = Map.of();

    public Budgets(Database database, Clock clock) {
        this.store = new BudgetStore(requireNonNull(database, "database"));
        this.clock = requireNonNull(clock, "clock");
        reload();
    }

    /** Reads the budgets again (another server, or this one, changed them). */
    public void reload() {
        byScope = store.all().stream().collect(Collectors.groupingBy(b -> key(b.scope(), b.scopeId())));
    }

    private static String key(Budget.Scope scope, String id) {
        return scope.wire() + ":" + id;
    }

    /** The budgets that apply to {@code charge}, in id order. */
    private List<Budget> applying(Charge charge) {
        Map<String, List<Budget>> now = byScope;
        if (now.isEmpty()) {
            return List.of();
        }
        var found = new ArrayList<Budget>();
        charge.keyId().ifPresent(id -> found.addAll(now.getOrDefault(key(Budget.Scope.KEY, id), List.of())));
        charge.projectId().ifPresent(id -> found.addAll(now.getOrDefault(key(Budget.Scope.PROJECT, id), List.of())));
        charge.routerId().ifPresent(id -> found.addAll(now.getOrDefault(key(Budget.Scope.ROUTER, id), List.of())));
        found.sort(Comparator.comparing(Budget::id));
        return found;
    }

    /** Whether any budget applies to {@code charge} (so that a request none applies to estimates nothing). */
    public boolean apply(Charge charge) {
        return !applying(charge).isEmpty();
    }

    /**
     * Reserves {@code tokens} and {@code picos} in every budget of {@code charge}; 429 {@code budget_exceeded} naming
     * the first budget that could be passed, and when it resets.
     */
    public BudgetLedger reserve(Charge charge, long tokens, long picos) {
        List<Budget> budgets = applying(charge);
        if (budgets.isEmpty()) {
            return BudgetLedger.NONE;
        }
        long now = clock.millis();
        store.reserve(budgets, now, picos, tokens, Budgets::exceeded);
        return new BudgetLedger(
                store,
                budgets.stream()
                        .map(b -> new BudgetLedger.Line(b.id(), b.periodStart(now)))
                        .toList(),
                picos,
                tokens);
    }

    static ApiException exceeded(Budget budget, long nowMillis) {
        Optional<Instant> resets = budget.resetsAt(nowMillis);
        ApiException refusal = ApiException.of(
                        ErrorCode.BUDGET_EXCEEDED,
                        null,
                        "This request could go past " + budget.describe() + "; nothing was sent to the model. "
                                + resets.map(at -> "The budget resets at " + at + ".")
                                        .orElse("It is a total budget: it does not reset."))
                .withField("budget_id", budget.id())
                // the official clients retry a 429 at once unless told not to: a budget does not come back in seconds
                .withHeader("x-should-retry", "false");
        if (resets.isPresent()) {
            long seconds = Math.max(1, (resets.get().toEpochMilli() - nowMillis + 999) / 1000);
            refusal = refusal.withField("resets_at", resets.get().getEpochSecond())
                    .withHeader("retry-after", Long.toString(seconds));
        }
        return refusal;
    }

    List<Budget> ofProjects(Optional<java.util.Set<String>> projects) {
        return byScope.values().stream()
                .flatMap(List::stream)
                .filter(b -> projects.map(ids -> ids.contains(b.projectId())).orElse(true))
                .sorted(Comparator.comparing(Budget::createdAtMillis).thenComparing(Budget::id))
                .toList();
    }

    /** The budgets of inference key {@code keyId}, oldest first. */
    List<Budget> ofKey(String keyId) {
        return byScope.getOrDefault(key(Budget.Scope.KEY, keyId), List.of()).stream()
                .sorted(Comparator.comparing(Budget::createdAtMillis).thenComparing(Budget::id))
                .toList();
    }

    Optional<Budget> find(String id) {
        return byScope.values().stream()
                .flatMap(List::stream)
                .filter(b -> b.id().equals(id))
                .findFirst();
    }

    Budget create(Budget budget) {
        store.insert(budget);
        reload();
        return budget;
    }

    boolean delete(String id) {
        boolean deleted = store.delete(id);
        reload();
        return deleted;
    }

    BudgetStore.Standing standing(Budget budget) {
        return store.standing(budget.id(), budget.periodStart(clock.millis()));
    }

    long nowMillis() {
        return clock.millis();
    }
}
