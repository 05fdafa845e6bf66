package dev.arbor.access;

import dev.arbor.testing.TestPostgres;
import java.util.Map;

class CurrentProjectOnPostgresTest extends CurrentProjectContract {
    @Override
    protected Map<String, String> database() {
        return Map.of("ARBOR_DATABASE_URL", TestPostgres.newDatabaseUrl());
    }
}
