package dev.arbor.pipelines.runs;

import java.util.Map;

class RunsOnSqliteTest extends RunContract {
    @Override
    Map<String, String> environment() {
        return Map.of();
    }
}
