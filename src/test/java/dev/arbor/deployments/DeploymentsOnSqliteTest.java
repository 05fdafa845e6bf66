package dev.arbor.deployments;

import java.util.Map;

class DeploymentsOnSqliteTest extends DeploymentContract {
    @Override
    protected Map<String, String> database() {
        return Map.of();
    }
}
