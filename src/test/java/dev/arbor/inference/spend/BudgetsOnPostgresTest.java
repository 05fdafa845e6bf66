package dev.arbor.inference.spend;

import dev.arbor.testing.TestPostgres;
import java.util.Map;

class BudgetsOnPostgresTest extends BudgetsContract {
    @Override
    protected Map<String, String> database() {
        return Map.of("ARBOR_DATABASE_URL", TestPostgres.newDatabaseUrl());
    }
}
