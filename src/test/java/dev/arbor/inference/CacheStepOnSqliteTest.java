package dev.arbor.inference;

import java.util.Map;

class CacheStepOnSqliteTest extends CacheStepContract {
    @Override
    protected Map<String, String> database() {
        return Map.of();
    }
}
