package dev.arbor.credentials;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static dev.arbor.platform.http.bodies.BodyField.Presence.REQUIRED;
import static java.util.Objects.requireNonNull;

import dev.arbor.access.Access;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.db.Paging;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Warning;
import dev.arbor.platform.http.PageParams;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodyReader;
import dev.arbor.platform.http.bodies.BodySpec;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.references.ReferenceGuard;
import dev.arbor.platform.references.Referrers;
import dev.arbor.platform.secrets.SecretBox;
import io.javalin.http.Context;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.jdbi.v3.core.statement.StatementContext;

/**
 * Named secrets that automations refer to by id or name (a pipeline step's {@code credential_ref}), so that no
 * definition or params ever hold a key. Admin routes; values are write-only, sealed at rest, and opened only by
 * {@link #open} when a step needs one.
 */
public final class Credentials {
    private static final BodyField.Text NAME = BodyField.text(REQUIRED, "name", 100)
            .matching(
                    Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}"),
                    "must be letters, digits, '.', '_' and '-', starting with a letter or digit");
    private static final BodyField.Text VALUE = BodyField.text(REQUIRED, "value", 16_384);
    private static final BodyField.Text DESCRIPTION = BodyField.text(OPTIONAL, "description", 500);
    private static final BodySpec NEW_CREDENTIAL = BodySpec.of(NAME, VALUE, DESCRIPTION);
    private static final BodySpec NEW_VALUE = BodySpec.of(VALUE, DESCRIPTION);
    private static final String COLUMNS = "id, name, description, created_at, updated_at";

    private record Stored(String id, String name, String description, long createdAt, long updatedAt) {}

    private final Database database;
    private final SecretBox secrets;
    private final Clock clock;

    public Credentials(Database database, SecretBox secrets, Clock clock) {
        this.database = requireNonNull(database, "database");
        this.secrets = requireNonNull(secrets, "secrets");
        this.clock = requireNonNull(clock, "clock");
    }

    /** @param referrers what may use a credential (active routers), asked before one is deleted */
    public void addRoutes(Routes routes, Referrers referrers) {
        var guard = new ReferenceGuard(referrers);
        routes.group("credentials")
                .post("/credentials", "Store a secret under a name, for steps to refer to", this::create)
                .body(NEW_CREDENTIAL.schema())
                .created(ApiShapes.CREDENTIAL)
                .get("/credentials", "List credentials (names only; values are never shown)", this::list)
                .query(PageParams.PARAMETERS)
                .ok(Schema.list(ApiShapes.CREDENTIAL))
                .get("/credentials/{credential_id}", "Get a credential's name and dates", this::get)
                .ok(ApiShapes.CREDENTIAL)
                .put("/credentials/{credential_id}", "Replace a credential's value", this::replace)
                .body(NEW_VALUE.schema())
                .ok(ApiShapes.CREDENTIAL)
                .delete(
                        "/credentials/{credential_id}",
                        "Delete a credential; refused while active routers use it, unless forced",
                        ctx -> delete(ctx, guard))
                .query(ReferenceGuard.FORCE)
                .ok(Schema.deleted("credential"));
    }

    /** The value of a credential named by id or name; empty when there is none. */
    public Optional<String> open(String reference) {
        return database.read(handle -> handle.createQuery(
                        "SELECT id, sealed FROM credentials WHERE id = :ref " + "OR name = :ref")
                .bind("ref", reference)
                .map((rs, ctx) -> secrets.open(rs.getString("sealed"), context(rs.getString("id"))))
                .findFirst());
    }

    /** Whether a credential has this id or name. */
    public boolean exists(String reference) {
        requireNonNull(reference, "reference");
        return database.read(
                handle -> handle.createQuery("SELECT count(*) FROM credentials WHERE id = :ref OR name = :ref")
                                .bind("ref", reference)
                                .mapTo(Integer.class)
                                .one()
                        > 0);
    }

    private void create(Context ctx) {
        Access.requireAdmin(ctx);
        BodyReader body = NEW_CREDENTIAL.reader(Requests.jsonObject(ctx));
        Optional<String> name = NAME.read(body);
        Optional<String> value = VALUE.read(body);
        Optional<String> description = DESCRIPTION.read(body);
        body.finish();
        String id = Ids.next("cred");
        long now = clock.millis();
        database.update(handle -> {
            if (handle.createQuery("SELECT count(*) FROM credentials WHERE name = :name")
                            .bind("name", name.get())
                            .mapTo(Integer.class)
                            .one()
                    > 0) {
                throw ApiException.of(
                        ErrorCode.CREDENTIAL_EXISTS,
                        "name",
                        "A credential is named '" + name.get() + "' already; names are unique.");
            }
            handle.createUpdate("INSERT INTO credentials (id, name, description, sealed, created_at, updated_at) "
                            + "VALUES (:id, :name, :description, :sealed, :now, :now)")
                    .bind("id", id)
                    .bind("name", name.get())
                    .bind("description", description.orElse(""))
                    .bind("sealed", secrets.seal(value.get(), context(id)))
                    .bind("now", now)
                    .execute();
        });
        Responses.created(ctx, "/credentials/" + id, json(find(id)));
    }

    private void list(Context ctx) {
        Access.requireAdmin(ctx);
        Page page = PageParams.from(ctx);
        Responses.ok(
                ctx,
                Responses.page(
                        database.read(handle -> Paging.newestFirst(
                                handle,
                                COLUMNS,
                                "credentials WHERE 1 = 1",
                                page,
                                Credentials::row,
                                cursor -> handle.createQuery("SELECT count(*) FROM credentials WHERE id = :id")
                                                .bind("id", cursor)
                                                .mapTo(Integer.class)
                                                .one()
                                        > 0,
                                query -> {})),
                        Stored::id,
                        Credentials::json));
    }

    private void get(Context ctx) {
        Access.requireAdmin(ctx);
        Responses.ok(ctx, json(find(ctx.pathParam("credential_id"))));
    }

    private void replace(Context ctx) {
        Access.requireAdmin(ctx);
        Stored stored = find(ctx.pathParam("credential_id"));
        BodyReader body = NEW_VALUE.reader(Requests.jsonObject(ctx));
        Optional<String> value = VALUE.read(body);
        Optional<String> description = DESCRIPTION.read(body);
        body.finish();
        database.update(handle -> handle.createUpdate("UPDATE credentials SET sealed = :sealed, "
                        + "description = :description, updated_at = :now WHERE id = :id")
                .bind("sealed", secrets.seal(value.get(), context(stored.id())))
                .bind("description", description.orElse(stored.description()))
                .bind("now", clock.millis())
                .bind("id", stored.id())
                .execute());
        Responses.ok(ctx, json(find(stored.id())));
    }

    private void delete(Context ctx, ReferenceGuard guard) {
        Access.requireAdmin(ctx);
        Stored stored = find(ctx.pathParam("credential_id"));
        // routers may name it by id or by name
        List<Warning> warnings = guard.beforeDelete(
                Referrers.Kind.CREDENTIAL,
                Set.of(stored.id(), stored.name()),
                "credential '" + stored.name() + "'",
                "credential_id",
                ReferenceGuard.WhenInUse.of(ctx));
        database.update(handle -> handle.createUpdate("DELETE FROM credentials WHERE id = :id")
                .bind("id", stored.id())
                .execute());
        Responses.ok(
                ctx, Map.of("id", stored.id(), "object", "credential.deleted", "deleted", true, "warnings", warnings));
    }

    private Stored find(String id) {
        return database.read(handle -> handle.createQuery("SELECT " + COLUMNS + " FROM credentials WHERE id = :id")
                        .bind("id", id)
                        .map(Credentials::row)
                        .findOne())
                .orElseThrow(() -> ApiException.of(
                        ErrorCode.CREDENTIAL_NOT_FOUND, "credential_id", "There is no credential '" + id + "'."));
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

    private static Map<String, Object> json(Stored stored) {
        var json = new LinkedHashMap<String, Object>();
        json.put("id", stored.id());
        json.put("object", "credential");
        json.put("name", stored.name());
        json.put("description", stored.description());
        json.put("created_at", stored.createdAt() / 1000);
        json.put("updated_at", stored.updatedAt() / 1000);
        return json;
    }
}
