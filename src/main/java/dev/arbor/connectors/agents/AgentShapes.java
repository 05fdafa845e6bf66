package dev.arbor.connectors.agents;

import static dev.arbor.platform.http.Schema.any;
import static dev.arbor.platform.http.Schema.arrayOf;
import static dev.arbor.platform.http.Schema.bool;
import static dev.arbor.platform.http.Schema.integer;
import static dev.arbor.platform.http.Schema.named;
import static dev.arbor.platform.http.Schema.nullable;
import static dev.arbor.platform.http.Schema.object;
import static dev.arbor.platform.http.Schema.oneOf;
import static dev.arbor.platform.http.Schema.resource;
import static dev.arbor.platform.http.Schema.string;
import static dev.arbor.platform.http.Schema.timestamp;

import dev.arbor.platform.http.Schema;

/** The shapes of gateways' tools, agents' connections and agents' MCP endpoints, for the OpenAPI document. */
final class AgentShapes {
    private AgentShapes() {}

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

    static final Schema CONNECTION = named(
            "AgentConnection",
            object().required("object", oneOf("prompt.connection"))
                    .required("prompt_id", string())
                    .required("project_id", nullable(string()))
                    .required("gateway_id", string())
                    .optional("gateway_name", string())
                    .required(
                            "tools",
                            arrayOf(object().required("id", string())
                                    .required("name", string())
                                    .required("policy", oneOf("allow", "deny"))
                                    .required("calls_per_minute", nullable(integer(1, ToolPolicies.MAX_PER_MINUTE)))))
                    .required("tool_mode", oneOf("all", "search")));
    static final Schema DETACHED = object().required("object", oneOf("prompt.connection.deleted"))
            .required("prompt_id", string())
            .required("gateway_id", string())
            .required("detached", bool())
            .required("tools_removed", integer(0, Long.MAX_VALUE));
    /** One tool call through an agent's endpoint, as the audit keeps it. */
    static final Schema CALL = named(
            "ToolCall",
            resource("connector.tool_call")
                    .required("called_at", timestamp())
                    .required("project_id", string())
                    .required("identity", string())
                    .required("prompt_id", string())
                    .required("gateway_id", string())
                    .required("tool", string())
                    .required("arguments_sha256", string())
                    .required("duration_ms", integer(0, Long.MAX_VALUE))
                    .required("outcome", oneOf("ok", "tool_error", "failed", "denied", "rate_limited"))
                    .required("error", nullable(string())));
    /** A JSON-RPC message of the Model Context Protocol, or a batch of them. */
    static final Schema MCP_MESSAGE = any("A JSON-RPC 2.0 message of the Model Context Protocol");
}
