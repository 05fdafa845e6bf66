package dev.arbor.events;

import static dev.arbor.platform.http.Schema.any;
import static dev.arbor.platform.http.Schema.arrayOf;
import static dev.arbor.platform.http.Schema.bool;
import static dev.arbor.platform.http.Schema.formatted;
import static dev.arbor.platform.http.Schema.integer;
import static dev.arbor.platform.http.Schema.mapOf;
import static dev.arbor.platform.http.Schema.named;
import static dev.arbor.platform.http.Schema.object;
import static dev.arbor.platform.http.Schema.oneOf;
import static dev.arbor.platform.http.Schema.string;

import dev.arbor.platform.http.Schema;

/** The shapes of the shared connections API (a descriptor's are in the providers package). */
final class ApiShapes {
    private ApiShapes() {}

    private static Schema.Obj connection() {
        return Schema.resource("event.shared_connection")
                .required("name", string())
                .required("provider", string())
                .required("global", bool())
                .required("project_ids", arrayOf(string()))
                .required(
                        "credentials",
                        mapOf(any("A plain field's value, or `<key>_set: true` for a secret field that is set.")))
                .required("previous_secret_expires_at", Schema.nullable(Schema.timestamp()))
                .required("created_at", Schema.timestamp())
                .required("updated_at", Schema.timestamp())
                // refused deliveries (a bad signature) beyond the limit of each hour: counted, not recorded
                .required("refused_not_recorded", integer(0, Long.MAX_VALUE));
    }

    /** A shared event connection as reads show it: never a secret. */
    static final Schema SHARED_CONNECTION =
            named("EventSharedConnection", connection().closed());

    /** What a create answers, once: the webhook URL, and the signing secret when Arbor generated it. */
    static final Schema SHARED_CONNECTION_CREATED = named(
            "EventSharedConnectionCreated",
            connection()
                    .required("webhook_url", formatted("uri"))
                    .optional("signing_secret", string())
                    .closed());

    /**
     * What a change answers: a signing secret Arbor generated anew is shown once, and how many triggers of projects a
     * narrowed share set left out were removed.
     */
    static final Schema SHARED_CONNECTION_CHANGED = named(
            "EventSharedConnectionChanged",
            connection()
                    .optional("signing_secret", string())
                    .required("subscriptions_removed", integer(0, Long.MAX_VALUE))
                    .closed());

    static final Schema SHARED_CONNECTION_DELETED = object().required("id", string())
            .required("object", oneOf("event.shared_connection.deleted"))
            .required("deleted", bool())
            .required("subscriptions_removed", integer(0, Long.MAX_VALUE))
            .closed();
}
