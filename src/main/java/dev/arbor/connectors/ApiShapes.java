package dev.arbor.connectors;

import static dev.arbor.platform.http.Schema.any;
import static dev.arbor.platform.http.Schema.arrayOf;
import static dev.arbor.platform.http.Schema.bool;
import static dev.arbor.platform.http.Schema.integer;
import static dev.arbor.platform.http.Schema.mapOf;
import static dev.arbor.platform.http.Schema.named;
import static dev.arbor.platform.http.Schema.nullable;
import static dev.arbor.platform.http.Schema.object;
import static dev.arbor.platform.http.Schema.oneOf;
import static dev.arbor.platform.http.Schema.resource;
import static dev.arbor.platform.http.Schema.string;
import static dev.arbor.platform.http.Schema.timestamp;

import dev.arbor.platform.http.Schema;

/** The shapes of the connector registry, gateways, their tools and agents' connections, for the OpenAPI document. */
final class ApiShapes {
    private ApiShapes() {}

    static final Schema TRANSPORT = oneOf("streamable_http", "sse", "stdio");
    static final Schema SCOPE =
            object().required("enabled", bool()).required("global", bool()).required("projects", arrayOf(string()));
    static final Schema SCOPE_IN =
            object().optional("enabled", bool()).optional("global", bool()).optional("projects", arrayOf(string()));

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
                    .optional(
                            "credential_schema",
                            arrayOf(object().required("field", string())
                                    .required("type", string())
                                    .required("required", bool())
                                    .required("secret", bool())
                                    .required("description", string()))));

    static final Schema GATEWAY = named(
            "Gateway",
            resource("connector.gateway")
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
                    .required("updated_at", timestamp())
                    .optional(
                            "detached_agents",
                            arrayOf(object().required("prompt_id", string())
                                    .required("project_id", nullable(string())))));
    static final Schema GATEWAY_DELETED = object().required("id", string())
            .required("object", oneOf("connector.gateway.deleted"))
            .required("deleted", bool());

    static final Schema TOOL = named(
            "Tool",
            resource("connector.tool")
                    .required("gateway_id", string())
                    .required("name", string())
                    .required("title", nullable(string()))
                    .required("description", string())
                    .required("input_schema", any())
                    .required("annotations", any())
                    .required("created_at", timestamp()));
    static final Schema FETCHED = object().required("object", oneOf("connector.tools.fetch"))
            .required("gateway_id", string())
            .required("added", any())
            .required("changed", any())
            .required("removed", any());

    static final Schema AUTHORIZATION = object().required("object", oneOf("connector.oauth.authorization"))
            .required("gateway_id", string())
            .required("authorization_url", string())
            .required("state", string())
            .required("expires_in", integer())
            .required("expires_at", timestamp());
    static final Schema OAUTH_STATUS = named(
            "OAuthStatus",
            object().required("object", oneOf("connector.oauth.status"))
                    .required("gateway_id", string())
                    .required("status", string())
                    .required("configured", bool())
                    .required("authorization_server", nullable(string()))
                    .required("client", nullable(string()))
                    .required("scopes", arrayOf(string()))
                    .required("expires_at", nullable(timestamp()))
                    .required("refreshable", bool())
                    .required("authorized_at", nullable(timestamp()))
                    .required("authorized_by", nullable(string())));
    static final Schema ANY_OBJECT = mapOf(any());

    static final Schema CONNECTION = named(
            "AgentConnection",
            object().required("object", oneOf("prompt.connection"))
                    .required("prompt_id", string())
                    .required("project_id", nullable(string()))
                    .required("gateway_id", string())
                    .optional("gateway_name", string())
                    .required("tools", arrayOf(object().required("id", string()).required("name", string()))));
    static final Schema DETACHED = object().required("object", oneOf("prompt.connection.deleted"))
            .required("prompt_id", string())
            .required("gateway_id", string())
            .required("detached", bool())
            .required("tools_removed", integer(0, Long.MAX_VALUE));
    /** A JSON-RPC message of the Model Context Protocol, or a batch of them. */
    static final Schema MCP_MESSAGE = any("A JSON-RPC 2.0 message of the Model Context Protocol");
}
