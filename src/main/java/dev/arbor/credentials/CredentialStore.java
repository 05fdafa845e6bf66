package dev.arbor.credentials;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.db.Paging;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.secrets.SecretBox;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Optional;
import org.jdbi.v3.core.statement.StatementContext;

/** The credentials table: names and dates in the clear, each value sealed with its own id as context. */
final class CredentialStore {
    private static final String COLUMNS = "id, name, description, created_at, updated_at";

    /** A credential without its value. */
    record Stored(String id, String name, String description, long createdAt, long updatedAt) {}

    private final Database database;
    private final SecretBox secrets;
    private final Clock clock;

    CredentialStore(Database database, SecretBox secrets, Clock clock) {
        this.database = requireNonNull(database, "database");
        this.secrets = requireNonNull(secrets, "secrets");
        this.clock = requireNonNull(clock, "clock");
    }

    /** Stores a new credential; a name taken already is {@code credential_exists}. */
    Stored create(String name, String value, String description) {
        String id = Ids.next("cred");
        long now = clock.millis();
        database.update(handle -> {
            if (handle.createQuery("SELECT count(*) FROM credentials WHERE name = :name")
                            .bind("name", name)
                            .mapTo(Integer.class)
                            .one()
                    > 0) {
                throw ApiException.of(
                        ErrorCode.CREDENTIAL_EXISTS,
                        "name",
                        "A credential is named '" + name + "' already; names are unique.");
            }
            handle.createUpdate("INSERT INTO credentials (id, name, description, sealed, created_at, updated_at) "
                            + "VALUES (:id, :name, :description, :sealed, :now, :now)")
                    .bind("id", id)
                    .bind("name", name)
                    .bind("description", description)
                    .bind("sealed", secrets.seal(value, context(id)))
                    .bind("now", now)
                    .execute();
        });
        return find(id);
    }

    /** A page of the credentials, newest first. */
    Paging.Result<Stored> list(Page page) {
        return database.read(handle -> Paging.newestFirst(
                handle,
                COLUMNS,
                "credentials WHERE 1 = 1",
                page,
                CredentialStore::row,
                cursor -> handle.createQuery("SELECT count(*) FROM credentials WHERE id = :id")
                                .bind("id", cursor)
                                .mapTo(Integer.class)
                                .one()
                        > 0,
                query -> {}));
    }

    /** The credential with this id; {@code credential_not_found} when there is none. */
    Stored find(String id) {
        return database.read(handle -> handle.createQuery("SELECT " + COLUMNS + " FROM credentials WHERE id = :id")
                        .bind("id", id)
                        .map(CredentialStore::row)
                        .findOne())
                .orElseThrow(() -> ApiException.of(
                        ErrorCode.CREDENTIAL_NOT_FOUND, "credential_id", "There is no credential '" + id + "'."));
    }

    /** Replaces a credential's value, and its description when one is given. */
    Stored replace(Stored stored, String value, Optional<String> description) {
        database.update(handle -> handle.createUpdate("UPDATE credentials SET sealed = :sealed, "
                        + "description = :description, updated_at = :now WHERE id = :id")
                .bind("sealed", secrets.seal(value, context(stored.id())))
                .bind("description", description.orElse(stored.description()))
                .bind("now", clock.millis())
                .bind("id", stored.id())
                .execute());
        return find(stored.id());
    }

    void delete(String id) {
        database.update(handle -> handle.createUpdate("DELETE FROM credentials WHERE id = :id")
                .bind("id", id)
                .execute());
    }

    /** The value of a credential named by id or name; empty when there is none. */
    Optional<String> open(String reference) {
        return database.read(handle -> handle.createQuery(
                        "SELECT id, sealed FROM credentials WHERE id = :ref " + "OR name = :ref")
                .bind("ref", reference)
                .map((rs, ctx) -> secrets.open(rs.getString("sealed"), context(rs.getString("id"))))
                .findFirst());
    }

    /** Whether a credential has this id or name. */
    boolean exists(String reference) {
        return database.read(
                handle -> handle.createQuery("SELECT count(*) FROM credentials WHERE id = :ref OR name = :ref")
                                .bind("ref", reference)
                                .mapTo(Integer.class)
                                .one()
                        > 0);
    }

    private static String context(String id) {
        return "credential " + id;
    }

    private static Stored row(ResultSet rs, StatementContext ctx) throws SQLException {
        return new Stored(
                rs.getString("id"),
                rs.getString("name"),
                rs.getString("description"),
                rs.getLong("created_at"),
                rs.getLong("updated_at"));
    }
}
