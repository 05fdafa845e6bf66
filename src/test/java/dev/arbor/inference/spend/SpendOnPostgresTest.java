package dev.arbor.inference.spend;

import dev.arbor.testing.TestPostgres;
import java.util.Map;

class SpendOnPostgresTest extends SpendContract {
    @Override
    protected Map<String, String> database() {
        return Map.of("ARBOR_DATABASE_URL", TestPostgres.newDatabaseUrl());
    }
}
