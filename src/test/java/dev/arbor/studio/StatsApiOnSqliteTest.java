package dev.arbor.studio;

import java.util.Map;

class StatsApiOnSqliteTest extends StatsApiContract {
    @Override
    Map<String, String> environment() {
        return Map.of("ARBOR_TEST_MODELS", "1");
    }
}
