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
import java.util.ArrayList;

/**
 * The shapes of the events API. An event descriptor: the catalog's files are checked against {@link #CATALOG_ENTRY} at start, and the
 * OpenAPI document shows {@link #DESCRIPTOR}, the same fields less the delivery rules, which only the server reads.
 */
final class ApiShapes {
    private ApiShapes() {}

    private static Schema text(int maxLength) {
        return new Schema.Str(1, maxLength, "", "");
    }

    private static Schema matching(String pattern) {
        return new Schema.Str(1, 200, "", pattern);
    }

    private static final Schema HEADER_NAME = matching("^[A-Za-z0-9-]+$");
    private static final Schema PAYLOAD_PATH = matching("^\\$");

    /** The fields an operator sees, in the catalog and in reads alike. */
    private static final Schema.Obj PUBLIC_FIELDS = object().required("provider", matching("^[a-z][a-z0-9_]{1,39}$"))
            .required(
                    "provider_type",
                    oneOf(
                            "source_control",
                            "payments",
                            "chat",
                            "incident_management",
                            "error_tracking",
                            "issue_tracking",
                            "commerce",
                            "monitoring",
                            "support",
                            "messaging",
                            "forms",
                            "scheduling",
                            "ci_cd",
                            "identity",
                            "generic"))
            .required("name", text(100))
            .required("documentation_url", formatted("uri"))
            .required(
                    "credentials",
                    arrayOf(object().required("key", matching("^[a-z][a-z0-9_]*$"))
                            .required("label", text(100))
                            .required("type", oneOf("string", "url"))
                            .required("secret", bool())
                            .required("required", bool())
                            .optional("generated", bool())
                            .closed()))
            .required(
                    "event_types",
                    arrayOf(object().required("type", text(200))
                            .required("description", text(500))
                            .required("sample_event", any("A payload of this type as the provider sends it."))
                            .optional("sample_headers", mapOf(string()))
                            .closed()))
            .required(
                    "grouping_suggestions",
                    arrayOf(object().required("path", PAYLOAD_PATH)
                            .required("label", text(100))
                            .closed()));

    /** A value of a delivery: exactly one of a header, a payload path or (in a type rule) fixed text. */
    private static final Schema VALUE_SOURCE = object().optional("header", HEADER_NAME)
            .optional("path", PAYLOAD_PATH)
            .optional("literal", text(100))
            .closed();

    private static final Schema DELIVERY = object().required("payload_format", oneOf("json", "form"))
            .required(
                    "signature",
                    object().required(
                                    "scheme",
                                    oneOf(
                                            "body_hmac",
                                            "timestamped_hmac",
                                            "slack_v0",
                                            "timestamp_first_hmac",
                                            "standard_webhooks",
                                            "shared_token",
                                            "twilio",
                                            "graph_client_state"))
                            .required("secret_field", matching("^[a-z][a-z0-9_]*$"))
                            .optional("header", HEADER_NAME)
                            .optional("prefix", string())
                            .optional("encoding", oneOf("hex", "base64"))
                            .optional("timestamp_header", HEADER_NAME)
                            .optional("id_header", HEADER_NAME)
                            .optional("tolerance_seconds", integer(1, 3600))
                            .closed())
            .optional(
                    "freshness",
                    object().optional("header", HEADER_NAME)
                            .optional("path", PAYLOAD_PATH)
                            .required("format", oneOf("unix_seconds", "unix_millis", "iso_8601"))
                            .required("tolerance_seconds", integer(1, 3600))
                            .closed())
            .required(
                    "event_type",
                    arrayOf(object().optional("header", HEADER_NAME)
                            .optional("path", PAYLOAD_PATH)
                            .optional("literal", text(100))
                            .optional("optional", bool())
                            .closed()))
            .optional("delivery_id", VALUE_SOURCE)
            .optional(
                    "occurred_at",
                    object().optional("header", HEADER_NAME)
                            .optional("path", PAYLOAD_PATH)
                            .required("format", oneOf("unix_seconds", "unix_millis", "iso_8601"))
                            .closed())
            .optional(
                    "handshake",
                    object().required("kind", oneOf("header_ping", "payload_challenge", "query_token"))
                            .optional("header", HEADER_NAME)
                            .optional("value", text(100))
                            .optional("path", PAYLOAD_PATH)
                            .optional("equals", text(100))
                            .optional("challenge_path", PAYLOAD_PATH)
                            .optional("query_param", text(100))
                            .closed())
            .closed();

    /** One file of the catalog. */
    static final Schema.Obj CATALOG_ENTRY =
            PUBLIC_FIELDS.required("delivery", DELIVERY).closed();

    /** A descriptor as the API shows it. */
    static final Schema DESCRIPTOR = named("EventDescriptor", read());

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
                .required("updated_at", Schema.timestamp());
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

    /** What a change answers: a signing secret Arbor generated anew is shown once. */
    static final Schema SHARED_CONNECTION_CHANGED = named(
            "EventSharedConnectionChanged",
            connection().optional("signing_secret", string()).closed());

    static final Schema SHARED_CONNECTION_DELETED = object().required("id", string())
            .required("object", oneOf("event.shared_connection.deleted"))
            .required("deleted", bool())
            .required("subscriptions_removed", integer(0, Long.MAX_VALUE))
            .closed();

    private static Schema.Obj read() {
        var properties = new ArrayList<Schema.Property>();
        properties.add(new Schema.Property("object", oneOf("event.descriptor"), true));
        properties.addAll(PUBLIC_FIELDS.properties());
        return new Schema.Obj(properties, false);
    }
}
