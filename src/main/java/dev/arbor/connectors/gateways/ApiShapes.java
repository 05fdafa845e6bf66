package dev.arbor.connectors.gateways;

import static dev.arbor.platform.http.Schema.any;
import static dev.arbor.platform.http.Schema.arrayOf;
import static dev.arbor.platform.http.Schema.bool;
import static dev.arbor.platform.http.Schema.mapOf;
import static dev.arbor.platform.http.Schema.named;
import static dev.arbor.platform.http.Schema.nullable;
import static dev.arbor.platform.http.Schema.object;
import static dev.arbor.platform.http.Schema.oneOf;
import static dev.arbor.platform.http.Schema.resource;
import static dev.arbor.platform.http.Schema.string;
import static dev.arbor.platform.http.Schema.timestamp;

import dev.arbor.platform.http.Schema;

/** The shapes of the connector registry and gateways, for the OpenAPI document. */
final class ApiShapes {
    private ApiShapes() {}

    static final Schema TRANSPORT = oneOf("streamable_http", "sse", "stdio");
    static final Schema SCOPE =
            object().required("enabled", bool()).required("global", bool()).required("projects", arrayOf(string()));
    static final Schema SCOPE_IN =
            object().optional("enabled", bool()).optional("global", bool()).optional("projects", arrayOf(string()));

    /** One field of a gateway's {@code credentials}; {@code default} is what is sent when it is left out. */
    static final Schema CREDENTIAL_FIELD = object().required("field", string())
            .required("type", oneOf("string", "url", "select", "string_list", "key_value_list"))
            .required("required", bool())
            .required("secret", bool())
            .required("description", string())
            .optional("default", arrayOf(string()))
            .optional("options", arrayOf(string()));

    static final Schema CONNECTOR = named(
            "Connector",
            resource("connector")
                    .required("name", string())
                    .required("provider", string())
                    .required("category", string())
                    .required("description", string())
                    .required("icon", nullable(string()))
                    .required("url", string())
                    .required("transport", TRANSPORT)
                    .required("auth_type", string())
                    .required("documentation_url", nullable(string()))
                    .required(
                            "oauth",
                            nullable(object().required("scopes", arrayOf(string()))
                                    .required("supports_dcr", bool())))
                    .required("built_in", bool())
                    .optional("credential_schema", arrayOf(CREDENTIAL_FIELD)));

    /** The credentials a custom gateway of one auth type takes. */
    static final Schema CREDENTIAL_SCHEMA = named(
            "CredentialSchema",
            object().required("object", oneOf("connector.credential_schema"))
                    .required("auth_type", oneOf("none", "headers", "oauth"))
                    .required("fields", arrayOf(CREDENTIAL_FIELD)));

    static final Schema GATEWAY = named("Gateway", gateway());

    /**
     * What a change answers: the gateway, and the agents its narrowed scope detached (only this answer knows them, so
     * a keyed change whose answer was lost in a crash is not answered again).
     */
    static final Schema GATEWAY_CHANGED = named(
            "GatewayChanged",
            gateway()
                    .required(
                            "detached_agents",
                            arrayOf(object().required("prompt_id", string())
                                    .required("project_id", nullable(string())))));

    private static Schema.Obj gateway() {
        return resource("connector.gateway")
                .required("name", string())
                .required("connector_id", nullable(string()))
                .required("source", oneOf("registry", "custom"))
                .required("url", nullable(string()))
                .required("transport", TRANSPORT)
                .optional("command", string())
                .optional("args", arrayOf(string()))
                .required("auth_type", string())
                .required("description", string())
                .required("credentials", mapOf(any()))
                .required("authorization", string())
                .required("scope", SCOPE)
                .required("clients", arrayOf(string()))
                .required("created_at", timestamp())
                .required("updated_at", timestamp());
    }

    static final Schema GATEWAY_DELETED = object().required("id", string())
            .required("object", oneOf("connector.gateway.deleted"))
            .required("deleted", bool());
}
