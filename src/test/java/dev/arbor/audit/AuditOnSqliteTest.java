package dev.arbor.audit;

import java.util.Map;

class AuditOnSqliteTest extends AuditContract {
    @Override
    protected Map<String, String> database() {
        return Map.of();
    }
}
