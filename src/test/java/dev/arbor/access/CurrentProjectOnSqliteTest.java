package dev.arbor.access;

import java.util.Map;

class CurrentProjectOnSqliteTest extends CurrentProjectContract {
    @Override
    protected Map<String, String> database() {
        return Map.of();
    }
}
