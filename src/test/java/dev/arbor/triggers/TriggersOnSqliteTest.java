package dev.arbor.triggers;

import java.util.Map;

class TriggersOnSqliteTest extends TriggerContract {
    @Override
    Map<String, String> database() {
        return Map.of();
    }
}
