package dev.arbor.events;

import dev.arbor.testing.TestPostgres;
import java.util.Map;

class SharedConnectionsOnPostgresTest extends SharedConnectionContract {
    @Override
    protected Map<String, String> database() {
        return Map.of("ARBOR_DATABASE_URL", TestPostgres.newDatabaseUrl());
    }
}
