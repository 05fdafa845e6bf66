package dev.arbor.connectors.agents;

import java.util.Map;

class CallAuditOnSqliteTest extends CallAuditContract {
    @Override
    protected Map<String, String> database() {
        return Map.of();
    }
}
