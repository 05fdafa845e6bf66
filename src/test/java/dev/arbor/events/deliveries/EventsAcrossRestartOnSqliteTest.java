package dev.arbor.events.deliveries;

import dev.arbor.platform.db.Database;
import java.nio.file.Path;
import java.util.Map;

class EventsAcrossRestartOnSqliteTest extends EventsAcrossRestartContract {
    @Override
    Map<String, String> database() {
        return Map.of();
    }

    @Override
    Database open(Map<String, String> env, Path dataDir) {
        return Database.openSqlite(dataDir.resolve("arbor.db"));
    }
}
