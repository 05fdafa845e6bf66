package dev.arbor.connectors.gateways;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.db.Database;
import org.jdbi.v3.core.Handle;

/**
 * A counter of changes to gateways, tools and bindings, raised in the transaction of each: what is kept in memory
 * from them is good while the counter has not moved, on this server and on every other one sharing the database.
 */
public final class ConnectorChanges {
    private final Database database;

    public ConnectorChanges(Database database) {
        this.database = requireNonNull(database, "database");
    }

    /** Called inside the transaction of a change. */
    public static void record(Handle handle) {
        handle.createUpdate("UPDATE connector_changes SET version = version + 1 WHERE id = 1")
                .execute();
    }

    public long version() {
        return database.read(handle -> handle.createQuery("SELECT version FROM connector_changes WHERE id = 1")
                .mapTo(Long.class)
                .one());
    }
}
