package dev.arbor.events.deliveries;

import dev.arbor.testing.TestPostgres;
import java.util.Map;

class WebhookIngestOnPostgresTest extends WebhookIngestContract {
    @Override
    protected Map<String, String> database() {
        return Map.of("ARBOR_DATABASE_URL", TestPostgres.newDatabaseUrl());
    }
}
