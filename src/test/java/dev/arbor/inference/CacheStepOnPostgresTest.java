package dev.arbor.inference;

import dev.arbor.testing.TestPostgres;
import java.util.Map;

class CacheStepOnPostgresTest extends CacheStepContract {
    @Override
    protected Map<String, String> database() {
        return Map.of("ARBOR_DATABASE_URL", TestPostgres.newDatabaseUrl());
    }
}
