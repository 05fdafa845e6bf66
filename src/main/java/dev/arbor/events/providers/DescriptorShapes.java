package dev.arbor.events.providers;

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
 * An event descriptor's shapes: the catalog's files are checked against {@link #CATALOG_ENTRY} at start, and the
 * OpenAPI document shows {@link #DESCRIPTOR}, the same fields less the delivery rules, which only the server reads.
 */
public final class DescriptorShapes {
    private DescriptorShapes() {}

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
    public static final Schema DESCRIPTOR = named("EventDescriptor", read());

    private static Schema.Obj read() {
        var properties = new ArrayList<Schema.Property>();
        properties.add(new Schema.Property("object", oneOf("event.descriptor"), true));
        properties.addAll(PUBLIC_FIELDS.properties());
        return new Schema.Obj(properties, false);
    }
}
