package dev.arbor.connectors.oauth;

import java.util.Map;

class PerUserAuthorizationOnSqliteTest extends PerUserAuthorizationContract {
    @Override
    protected Map<String, String> database() {
        return Map.of();
    }
}
