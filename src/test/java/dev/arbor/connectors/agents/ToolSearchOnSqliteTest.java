package dev.arbor.connectors.agents;

import java.util.Map;

class ToolSearchOnSqliteTest extends ToolSearchContract {
    @Override
    protected Map<String, String> database() {
        return Map.of();
    }
}
