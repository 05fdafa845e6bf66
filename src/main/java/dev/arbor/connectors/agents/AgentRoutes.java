package dev.arbor.connectors.agents;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static dev.arbor.platform.http.bodies.BodyField.Presence.REQUIRED;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.access.Access;
import dev.arbor.access.CurrentProject;
import dev.arbor.access.Principal;
import dev.arbor.access.ProjectId;
import dev.arbor.connectors.gateways.Gateway;
import dev.arbor.connectors.gateways.Gateways;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodySpec;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Agents' (prompts') connections: the tools of a gateway an agent uses, attached as a whole set per gateway, in the
 * agent's project; detached per gateway, leaving the gateway and other agents alone.
 */
final class AgentRoutes {
    /**
     * The tools must be the gateway's; the project, the agent's: the current project (project_id, else X-Project-Id),
     * else the one the agent is bound to.
     */
    private static final BodySpec ATTACH = BodySpec.closed(
            "an attachment",
            BodyField.value(REQUIRED, "tool_ids", Schema.arrayOf(Schema.string())),
            BodyField.value(OPTIONAL, CurrentProject.FIELD, Schema.string()));

    private static final Pattern PROMPT_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,127}");

    private final Gateways gateways;
    private final ToolStore tools;
    private final BindingStore bindings;
    private final Access access;

    AgentRoutes(Gateways gateways, ToolStore tools, BindingStore bindings, Access access) {
        this.gateways = requireNonNull(gateways, "gateways");
        this.tools = requireNonNull(tools, "tools");
        this.bindings = requireNonNull(bindings, "bindings");
        this.access = requireNonNull(access, "access");
    }

    void addTo(Routes routes) {
        routes.group("connectors")
                .post(
                        "/prompts/{prompt_id}/connections/{gateway_id}/attach-tools",
                        "Make these tools of a gateway the agent's set there (tool_ids; project_id or X-Project-Id)",
                        this::attach)
                .body(ATTACH.schema())
                .header(CurrentProject.HEADER)
                .ok(AgentShapes.CONNECTION)
                .delete(
                        "/prompts/{prompt_id}/connections/{gateway_id}/detach",
                        "Remove a gateway from one agent",
                        this::detach)
                .ok(AgentShapes.DETACHED)
                .get(
                        "/prompts/{prompt_id}/connections",
                        "An agent's gateways and the tools it uses in each",
                        this::list)
                .ok(Schema.list(AgentShapes.CONNECTION));
    }

    private void attach(Context ctx) {
        String prompt = promptId(ctx);
        Gateway gateway = gateways.require(ctx.pathParam("gateway_id"));
        ObjectNode body = Requests.jsonObject(ctx);
        Problems problems = ATTACH.reader(body).problems();
        JsonNode projectJson = body.path(CurrentProject.FIELD);
        if (!projectJson.isMissingNode() && !projectJson.isNull() && !projectJson.isTextual()) {
            problems.add(ErrorCode.INVALID_FIELD, CurrentProject.FIELD, "`project_id` must be a project id.");
        }
        Optional<String> projectId =
                Optional.of(projectJson).filter(JsonNode::isTextual).map(JsonNode::textValue);
        Optional<String> named = access.currentProject().named(ctx, projectId).map(ProjectId::value);
        Optional<String> known = bindings.projectOf(prompt);
        // an agent in a project already must be in one of the caller's; a new one goes into the current project,
        // which the rule has checked
        if (known.isPresent()) {
            requireAgentProject(ctx, prompt, known);
        }
        Optional<String> project = named.or(() -> known);
        if (project.isEmpty()) {
            problems.addAll(List.of(CurrentProject.missing()));
        } else if (known.isPresent() && !known.equals(project)) {
            String param = projectId.isPresent() ? CurrentProject.FIELD : CurrentProject.HEADER.name();
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    param,
                    "`" + param + "` is " + project.get() + ", but agent " + prompt + " belongs to project "
                            + known.get() + ".");
        }
        JsonNode given = body.path("tool_ids");
        var toolIds = new LinkedHashSet<String>();
        if (!given.isArray()) {
            problems.add(
                    given.isMissingNode() ? ErrorCode.MISSING_FIELD : ErrorCode.INVALID_FIELD,
                    "tool_ids",
                    "`tool_ids` must list the ids of the gateway's tools the agent uses.");
        } else {
            Set<String> offered = tools.ids(gateway.id());
            for (int i = 0; i < given.size(); i++) {
                String id = given.get(i).asText("");
                if (!offered.contains(id)) {
                    String at = ParamPath.index("tool_ids", i);
                    problems.add(
                            ErrorCode.INVALID_FIELD,
                            at,
                            "`" + at + "` is '" + id + "', which is not a tool of " + "gateway " + gateway.id() + ".");
                } else {
                    toolIds.add(id);
                }
            }
        }
        problems.throwIfAny();
        String agentProject = project.orElseThrow();
        if (!gateway.scope().enabled()) {
            throw ApiException.of(
                    ErrorCode.GATEWAY_DISABLED, "gateway_id", "Gateway " + gateway.id() + " is disabled.");
        }
        if (!gateway.scope().global() && !gateway.scope().projects().contains(agentProject)) {
            throw ApiException.of(
                    ErrorCode.GATEWAY_OUT_OF_SCOPE,
                    "gateway_id",
                    "Gateway " + gateway.id() + " is not " + "shared with project " + agentProject + ".");
        }
        bindings.replace(prompt, agentProject, gateway.id(), List.copyOf(toolIds));
        Responses.ok(
                ctx,
                bindings.connections(prompt).stream()
                        .filter(c -> c.gatewayId().equals(gateway.id()))
                        .findFirst()
                        .map(AgentRoutes::json)
                        .orElse(Map.of(
                                "prompt_id",
                                prompt,
                                "project_id",
                                agentProject,
                                "gateway_id",
                                gateway.id(),
                                "object",
                                "prompt.connection",
                                "tools",
                                List.of())));
    }

    private void detach(Context ctx) {
        String prompt = promptId(ctx);
        requireAgentProject(ctx, prompt, bindings.projectOf(prompt));
        String gateway = ctx.pathParam("gateway_id");
        int removed = bindings.detach(prompt, gateway);
        if (removed == 0) {
            throw ApiException.of(
                    ErrorCode.CONNECTION_NOT_FOUND,
                    "gateway_id",
                    "Agent " + prompt + " has no tools " + "of gateway " + gateway + ".");
        }
        Responses.ok(
                ctx,
                Map.of(
                        "prompt_id",
                        prompt,
                        "gateway_id",
                        gateway,
                        "object",
                        "prompt.connection.deleted",
                        "detached",
                        true,
                        "tools_removed",
                        removed));
    }

    private void list(Context ctx) {
        String prompt = promptId(ctx);
        requireAgentProject(ctx, prompt, bindings.projectOf(prompt));
        List<BindingStore.Connection> connections = bindings.connections(prompt);
        Responses.ok(
                ctx,
                Responses.list(
                        connections.stream().map(AgentRoutes::json).toList(),
                        connections.stream()
                                .map(BindingStore.Connection::gatewayId)
                                .toList(),
                        false));
    }

    /**
     * Ends the request with 403 {@code project_forbidden} unless the caller may act in the agent's project: admins
     * always, members in their own projects; an agent with no attachment is in no project a member may act in.
     */
    static void requireAgentProject(Context ctx, String prompt, Optional<String> project) {
        Principal principal = Access.principal(ctx);
        if (!principal.isAdmin() && !project.map(principal::mayActIn).orElse(false)) {
            throw CurrentProject.forbidden(
                    "prompt_id", "This token may not act in the project of agent " + prompt + ".");
        }
    }

    private static String promptId(Context ctx) {
        String id = ctx.pathParam("prompt_id");
        if (!PROMPT_ID.matcher(id).matches()) {
            throw ApiException.of(
                    ErrorCode.INVALID_PARAMETER,
                    "prompt_id",
                    "`prompt_id` must be 1 to 128 letters, " + "digits, '.', '_', ':' and '-'.");
        }
        return id;
    }

    private static Map<String, Object> json(BindingStore.Connection connection) {
        var json = new LinkedHashMap<String, Object>();
        json.put("object", "prompt.connection");
        json.put("prompt_id", connection.promptId());
        json.put("project_id", connection.projectId());
        json.put("gateway_id", connection.gatewayId());
        json.put("gateway_name", connection.gatewayName());
        json.put(
                "tools",
                connection.tools().stream()
                        .map(t -> Map.of("id", t.id(), "name", t.name()))
                        .toList());
        return json;
    }
}
