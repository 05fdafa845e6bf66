package dev.arbor.events.deliveries;

import dev.arbor.platform.db.Database;
import dev.arbor.testing.TestPostgres;
import java.nio.file.Path;
import java.util.Map;

class EventsAcrossRestartOnPostgresTest extends EventsAcrossRestartContract {
    @Override
    Map<String, String> database() {
        return Map.of("ARBOR_DATABASE_URL", TestPostgres.newDatabaseUrl());
    }

    @Override
    Database open(Map<String, String> env, Path dataDir) {
        return Database.openPostgres(env.get("ARBOR_DATABASE_URL"));
    }
}
