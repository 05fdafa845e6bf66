package dev.arbor.pipelines;

import java.util.Map;

class RunsOnSqliteTest extends RunContract {
    @Override
    Map<String, String> environment() {
        return Map.of();
    }
}
