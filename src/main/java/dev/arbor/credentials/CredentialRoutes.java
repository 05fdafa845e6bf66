package dev.arbor.credentials;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static dev.arbor.platform.http.bodies.BodyField.Presence.REQUIRED;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.arbor.access.Access;
import dev.arbor.platform.errors.Warning;
import dev.arbor.platform.http.Deleted;
import dev.arbor.platform.http.ListReply;
import dev.arbor.platform.http.PageParams;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodyReader;
import dev.arbor.platform.http.bodies.BodySpec;
import dev.arbor.platform.references.ReferenceGuard;
import dev.arbor.platform.references.Referrers;
import io.javalin.http.Context;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/** The credentials' admin routes: values are written, never shown. */
final class CredentialRoutes {
    private static final BodyField.Text NAME = BodyField.text(REQUIRED, "name", 100)
            .matching(
                    Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}"),
                    "must be letters, digits, '.', '_' and '-', starting with a letter or digit");
    private static final BodyField.Text VALUE = BodyField.text(REQUIRED, "value", 16_384);
    private static final BodyField.Text DESCRIPTION = BodyField.text(OPTIONAL, "description", 500);
    private static final BodySpec NEW_CREDENTIAL = BodySpec.of(NAME, VALUE, DESCRIPTION);
    private static final BodySpec NEW_VALUE = BodySpec.of(VALUE, DESCRIPTION);

    /** A credential as the API shows it: its name and dates, never its value. */
    @JsonPropertyOrder({"id", "object", "name", "description", "created_at", "updated_at"})
    record CredentialReply(
            String id,
            String name,
            String description,
            @JsonProperty("created_at") long createdAt,
            @JsonProperty("updated_at") long updatedAt) {
        static CredentialReply of(CredentialStore.Stored stored) {
            return new CredentialReply(
                    stored.id(),
                    stored.name(),
                    stored.description(),
                    stored.createdAt() / 1000,
                    stored.updatedAt() / 1000);
        }

        @JsonProperty("object")
        String object() {
            return "credential";
        }
    }

    private final CredentialStore store;

    CredentialRoutes(CredentialStore store) {
        this.store = requireNonNull(store, "store");
    }

    /** @param referrers what may use a credential (active routers), asked before one is deleted */
    void addTo(Routes routes, Referrers referrers) {
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

    private void create(Context ctx) {
        Access.requireAdmin(ctx);
        BodyReader body = NEW_CREDENTIAL.reader(Requests.jsonObject(ctx));
        Optional<String> name = NAME.read(body);
        Optional<String> value = VALUE.read(body);
        Optional<String> description = DESCRIPTION.read(body);
        body.finish();
        var created = store.create(name.orElseThrow(), value.orElseThrow(), description.orElse(""));
        Responses.created(ctx, "/credentials/" + created.id(), CredentialReply.of(created));
    }

    private void list(Context ctx) {
        Access.requireAdmin(ctx);
        Responses.ok(
                ctx, ListReply.page(store.list(PageParams.from(ctx)), CredentialStore.Stored::id, CredentialReply::of));
    }

    private void get(Context ctx) {
        Access.requireAdmin(ctx);
        Responses.ok(ctx, CredentialReply.of(store.find(ctx.pathParam("credential_id"))));
    }

    private void replace(Context ctx) {
        Access.requireAdmin(ctx);
        CredentialStore.Stored stored = store.find(ctx.pathParam("credential_id"));
        BodyReader body = NEW_VALUE.reader(Requests.jsonObject(ctx));
        Optional<String> value = VALUE.read(body);
        Optional<String> description = DESCRIPTION.read(body);
        body.finish();
        Responses.ok(ctx, CredentialReply.of(store.replace(stored, value.orElseThrow(), description)));
    }

    private void delete(Context ctx, ReferenceGuard guard) {
        Access.requireAdmin(ctx);
        CredentialStore.Stored stored = store.find(ctx.pathParam("credential_id"));
        // routers may name it by id or by name
        List<Warning> warnings = guard.beforeDelete(
                Referrers.Kind.CREDENTIAL,
                Set.of(stored.id(), stored.name()),
                "credential '" + stored.name() + "'",
                "credential_id",
                ReferenceGuard.WhenInUse.of(ctx));
        store.delete(stored.id());
        Responses.ok(ctx, Deleted.of(stored.id(), "credential", warnings));
    }
}
