package dev.arbor.connectors.sessions;

import dev.arbor.testing.TestPostgres;
import java.util.Map;

class KeptSessionsOnPostgresTest extends KeptSessionsContract {
    @Override
    protected Map<String, String> database() {
        return Map.of("ARBOR_DATABASE_URL", TestPostgres.newDatabaseUrl());
    }
}
