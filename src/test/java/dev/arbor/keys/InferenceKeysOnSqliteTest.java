package dev.arbor.keys;

import java.util.Map;

class InferenceKeysOnSqliteTest extends InferenceKeysContract {
    @Override
    protected Map<String, String> database() {
        return Map.of();
    }
}
