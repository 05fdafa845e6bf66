package dev.arbor.inference.spend;

import java.util.Map;

class SpendOnSqliteTest extends SpendContract {
    @Override
    protected Map<String, String> database() {
        return Map.of();
    }
}
