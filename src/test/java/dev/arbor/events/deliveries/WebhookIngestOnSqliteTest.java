package dev.arbor.events.deliveries;

import java.util.Map;

class WebhookIngestOnSqliteTest extends WebhookIngestContract {
    @Override
    protected Map<String, String> database() {
        return Map.of();
    }
}
