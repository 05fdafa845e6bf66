package dev.arbor.pipelines;

import dev.arbor.testing.TestPostgres;
import java.util.Map;

class WebhooksOnPostgresTest extends WebhookContract {
    @Override
    Map<String, String> environment() {
        return Map.of("ARBOR_DATABASE_URL", TestPostgres.newDatabaseUrl());
    }
}
