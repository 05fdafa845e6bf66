package dev.arbor.studio;

import java.util.Map;

class FitApiOnSqliteTest extends FitApiContract {
    @Override
    Map<String, String> environment() {
        return Map.of("ARBOR_TEST_MODELS", "1");
    }
}
