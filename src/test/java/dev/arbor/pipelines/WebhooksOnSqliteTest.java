package dev.arbor.pipelines;

import java.util.Map;

class WebhooksOnSqliteTest extends WebhookContract {
    @Override
    Map<String, String> environment() {
        return Map.of();
    }
}
