package dev.arbor.connectors.sessions;

import java.util.Map;

class KeptSessionsOnSqliteTest extends KeptSessionsContract {
    @Override
    protected Map<String, String> database() {
        return Map.of();
    }
}
