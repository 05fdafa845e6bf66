package dev.arbor.routers;

import dev.arbor.testing.TestPostgres;
import java.util.Map;

class RoutersOnPostgresTest extends RouterContract {
    @Override
    protected Map<String, String> database() {
        return Map.of("ARBOR_DATABASE_URL", TestPostgres.newDatabaseUrl());
    }
}
