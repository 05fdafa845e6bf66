package dev.arbor.connectors.agents;

import dev.arbor.testing.TestPostgres;
import java.util.Map;

class ToolSearchOnPostgresTest extends ToolSearchContract {
    @Override
    protected Map<String, String> database() {
        return Map.of("ARBOR_DATABASE_URL", TestPostgres.newDatabaseUrl());
    }
}
