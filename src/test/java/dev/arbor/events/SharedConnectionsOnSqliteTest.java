package dev.arbor.events;

import java.util.Map;

class SharedConnectionsOnSqliteTest extends SharedConnectionContract {
    @Override
    protected Map<String, String> database() {
        return Map.of();
    }
}
