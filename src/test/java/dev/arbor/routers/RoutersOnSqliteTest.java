package dev.arbor.routers;

import java.util.Map;

class RoutersOnSqliteTest extends RouterContract {
    @Override
    protected Map<String, String> database() {
        return Map.of();
    }
}
