package dev.arbor.connectors.oauth;

import dev.arbor.testing.TestPostgres;
import java.util.Map;

class PerUserAuthorizationOnPostgresTest extends PerUserAuthorizationContract {
    @Override
    protected Map<String, String> database() {
        return Map.of("ARBOR_DATABASE_URL", TestPostgres.newDatabaseUrl());
    }
}
