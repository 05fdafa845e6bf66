package dev.arbor.deployments;

import dev.arbor.testing.TestPostgres;
import java.util.Map;

class DeploymentsOnPostgresTest extends DeploymentContract {
    @Override
    protected Map<String, String> database() {
        return Map.of("ARBOR_DATABASE_URL", TestPostgres.newDatabaseUrl());
    }
}
