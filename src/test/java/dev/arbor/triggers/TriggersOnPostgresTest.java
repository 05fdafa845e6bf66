package dev.arbor.triggers;

import dev.arbor.testing.TestPostgres;
import java.util.Map;

class TriggersOnPostgresTest extends TriggerContract {
    @Override
    protected Map<String, String> database() {
        return Map.of("ARBOR_DATABASE_URL", TestPostgres.newDatabaseUrl());
    }
}
