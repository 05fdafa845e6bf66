package dev.arbor.inference.spend;

import java.util.Map;

class BudgetsOnSqliteTest extends BudgetsContract {
    @Override
    protected Map<String, String> database() {
        return Map.of();
    }
}
