package dev.arbor.studio.work;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.json.Json;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.jdbi.v3.core.statement.Update;

/**
 * The status changes of one kind of the studio's background work (evals, fits) in its table, which has the columns
 * {@code id}, {@code status}, {@code error}, {@code started_at}, {@code completed_at} and {@code server_instance}.
 */
public final class WorkRows {
    private final Database database;
    private final String table;

    /** @param table the work's table, a constant of the store that owns it */
    public WorkRows(Database database, String table) {
        this.database = requireNonNull(database, "database");
        this.table = requireNonNull(table, "table");
    }

    /** Queued to in progress; false when it was cancelled first. */
    public boolean start(String id, long now) {
        return database.write(handle -> handle.createUpdate("UPDATE " + table + " SET status = 'in_progress', "
                                + "started_at = :now WHERE id = :id AND status = 'queued'")
                        .bind("id", id)
                        .bind("now", now)
                        .execute()
                == 1);
    }

    /**
     * Finishes an unfinished work; false when it had finished already (a cancel came first).
     *
     * @param results what the work leaves besides its status and error: {@code column = :parameter, } each
     * @param bindResults binds those parameters
     */
    public boolean finish(
            String id,
            WorkStatus status,
            String results,
            UnaryOperator<Update> bindResults,
            Optional<ObjectNode> error,
            long now) {
        return database.write(handle -> bindResults
                        .apply(handle.createUpdate("UPDATE " + table + " SET status = :status, " + results
                                + "error = :error, completed_at = :now WHERE id = :id AND status IN (<unfinished>)"))
                        .bind("status", status.wire())
                        .bind("error", error.map(Json::writeString).orElse(null))
                        .bind("now", now)
                        .bind("id", id)
                        .bindList("unfinished", WorkStatus.UNFINISHED)
                        .execute()
                == 1);
    }

    /** Fails the unfinished works whose server is not registered (it stopped); returns how many. */
    public int failUnfinishedOfUnregistered(ObjectNode error, long now) {
        return database.write(handle -> handle.createUpdate("UPDATE " + table + " SET status = 'failed', error = "
                        + ":error, completed_at = :now WHERE status IN (<unfinished>) AND (server_instance IS NULL OR "
                        + "server_instance NOT IN (SELECT id FROM server_instances))")
                .bind("error", Json.writeString(error))
                .bind("now", now)
                .bindList("unfinished", WorkStatus.UNFINISHED)
                .execute());
    }

    /** A JSON object column, empty when null. */
    public static Optional<ObjectNode> object(ResultSet rs, String column) throws SQLException {
        return Optional.ofNullable(rs.getString(column)).map(t -> (ObjectNode) Json.read(t));
    }
}
