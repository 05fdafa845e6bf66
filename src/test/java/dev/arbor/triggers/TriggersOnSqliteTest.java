package dev.arbor.triggers;

import java.util.Map;

class TriggersOnSqliteTest extends TriggerContract {
    @Override
    protected Map<String, String> database() {
        return Map.of();
    }
}
