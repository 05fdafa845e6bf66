package dev.arbor.audit;

import dev.arbor.testing.TestPostgres;
import java.util.Map;

class AuditOnPostgresTest extends AuditContract {
    @Override
    protected Map<String, String> database() {
        return Map.of("ARBOR_DATABASE_URL", TestPostgres.newDatabaseUrl());
    }
}
