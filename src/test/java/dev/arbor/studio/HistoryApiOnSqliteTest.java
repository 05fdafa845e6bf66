package dev.arbor.studio;

import java.util.Map;

class HistoryApiOnSqliteTest extends HistoryApiContract {
    @Override
    Map<String, String> environment() {
        return Map.of("ARBOR_TEST_MODELS", "1");
    }
}
