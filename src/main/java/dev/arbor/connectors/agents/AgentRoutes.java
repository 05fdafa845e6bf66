package dev.arbor.connectors.agents;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static dev.arbor.platform.http.bodies.BodyField.Presence.REQUIRED;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.arbor.access.Access;
import dev.arbor.access.CurrentProject;
import dev.arbor.access.Principal;
import dev.arbor.access.ProjectId;
import dev.arbor.connectors.gateways.Gateway;
import dev.arbor.connectors.gateways.Gateways;
import dev.arbor.connectors.search.ToolMode;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodyReader;
import dev.arbor.platform.http.bodies.BodySpec;
import io.javalin.http.Context;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Agents' (prompts') connections: the tools of a gateway an agent uses, attached as a whole set per gateway, in the
 * agent's project; detached per gateway, leaving the gateway and other agents alone.
 */
final class AgentRoutes {
    /**
     * The tools must be the gateway's; the project, the agent's: the current project (project_id, else X-Project-Id),
     * else the one the agent is bound to.
     */
    private static final BodyField.Value TOOL_IDS =
            BodyField.value(REQUIRED, "tool_ids", Schema.arrayOf(Schema.string()));

    private static final BodyField.Value PROJECT_ID = BodyField.value(OPTIONAL, CurrentProject.FIELD, Schema.string());
    /** Per attached tool (by id): allow or deny, and a cap on calls a minute; a tool left out is allowed. */
    private static final BodyField.Value POLICIES = BodyField.value(OPTIONAL, "policies", ToolPolicies.SHAPE);

    /** The agent's tool mode (for all its gateways): all its tools listed, or the two meta tools of tool search. */
    private static final BodyField.Word<ToolMode> TOOL_MODE =
            BodyField.word(OPTIONAL, "tool_mode", List.of(ToolMode.values()), ToolMode::wire);

    private static final BodySpec ATTACH = BodySpec.closed("an attachment", TOOL_IDS, PROJECT_ID, POLICIES, TOOL_MODE);

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
        BodyReader reader = ATTACH.reader(Requests.jsonObject(ctx));
        Problems problems = reader.problems();
        JsonNode projectJson = PROJECT_ID.read(reader).orElse(MissingNode.getInstance());
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
        Optional<JsonNode> given = TOOL_IDS.read(reader);
        var toolIds = new LinkedHashSet<String>();
        if (given.isPresent() && !given.get().isArray()) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    "tool_ids",
                    "`tool_ids` must list the ids of the gateway's tools the agent uses.");
        } else if (given.isPresent()) {
            Set<String> offered = tools.ids(gateway.id());
            for (int i = 0; i < given.get().size(); i++) {
                String id = given.get().get(i).asText("");
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
        Map<String, BindingStore.ToolPolicy> policies =
                ToolPolicies.read(toolIds, POLICIES.read(reader).orElse(MissingNode.getInstance()), problems);
        Optional<ToolMode> mode = TOOL_MODE.read(reader);
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
        bindings.replace(prompt, agentProject, gateway.id(), policies, mode);
        ToolMode current = bindings.toolMode(prompt);
        Responses.ok(
                ctx,
                bindings.connections(prompt).stream()
                        .filter(c -> c.gatewayId().equals(gateway.id()))
                        .findFirst()
                        .map(connection -> ConnectionView.of(connection, current))
                        .orElse(new ConnectionView(
                                "prompt.connection",
                                prompt,
                                agentProject,
                                gateway.id(),
                                gateway.name(),
                                List.of(),
                                current.wire())));
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
        Responses.ok(ctx, new Detached(prompt, gateway, "prompt.connection.deleted", true, removed));
    }

    private void list(Context ctx) {
        String prompt = promptId(ctx);
        requireAgentProject(ctx, prompt, bindings.projectOf(prompt));
        List<BindingStore.Connection> connections = bindings.connections(prompt);
        ToolMode mode = bindings.toolMode(prompt);
        Responses.ok(
                ctx,
                Responses.list(
                        connections.stream()
                                .map(connection -> ConnectionView.of(connection, mode))
                                .toList(),
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

    /** An agent's connection to one gateway: the tools it uses there, each with its policy. */
    record ConnectionView(
            String object,
            @JsonProperty("prompt_id") String promptId,
            @JsonProperty("project_id") String projectId,
            @JsonProperty("gateway_id") String gatewayId,
            @JsonProperty("gateway_name") String gatewayName,
            List<ToolView> tools,
            @JsonProperty("tool_mode") String toolMode) {
        static ConnectionView of(BindingStore.Connection connection, ToolMode mode) {
            return new ConnectionView(
                    "prompt.connection",
                    connection.promptId(),
                    connection.projectId(),
                    connection.gatewayId(),
                    connection.gatewayName(),
                    connection.tools().stream().map(ToolView::of).toList(),
                    mode.wire());
        }
    }

    record ToolView(
            String id,
            String name,
            String policy,
            @JsonProperty("calls_per_minute") @Nullable Integer callsPerMinute) {
        static ToolView of(BindingStore.BoundTool tool) {
            var limit = tool.policy().callsPerMinute();
            return new ToolView(
                    tool.id(), tool.name(), tool.policy().policy().wire(), limit.isPresent() ? limit.getAsInt() : null);
        }
    }

    record Detached(
            @JsonProperty("prompt_id") String promptId,
            @JsonProperty("gateway_id") String gatewayId,
            String object,
            boolean detached,
            @JsonProperty("tools_removed") int toolsRemoved) {}
}
