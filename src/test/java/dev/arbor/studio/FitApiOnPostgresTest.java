package dev.arbor.studio;

import dev.arbor.testing.TestPostgres;
import java.util.Map;

class FitApiOnPostgresTest extends FitApiContract {
    @Override
    Map<String, String> environment() {
        return Map.of("ARBOR_DATABASE_URL", TestPostgres.newDatabaseUrl(), "ARBOR_TEST_MODELS", "1");
    }
}
