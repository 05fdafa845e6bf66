package dev.arbor.connectors.agents;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.arbor.access.Access;
import dev.arbor.access.CurrentProject;
import dev.arbor.access.Principal;
import dev.arbor.access.ProjectId;
import dev.arbor.connectors.agents.CallStore.Call;
import dev.arbor.connectors.agents.CallStore.Outcome;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.PageParams;
import dev.arbor.platform.http.QueryParam;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import io.javalin.http.Context;
import java.util.Arrays;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The audit of tool calls through agents' endpoints, newest first: an admin sees every project's calls, a member only
 * its own projects' (naming another project is refused as on every route).
 */
final class CallRoutes {
    private static final QueryParam PROJECT_ID = new QueryParam(
            CurrentProject.FIELD,
            Schema.string(),
            "Only this project's calls (X-Project-Id when left out); without either, every call the token may see.");
    private static final QueryParam PROMPT_ID =
            new QueryParam("prompt_id", Schema.string(), "Only the calls of this agent.");
    private static final QueryParam GATEWAY_ID =
            new QueryParam("gateway_id", Schema.string(), "Only the calls to this gateway.");
    private static final QueryParam TOOL =
            new QueryParam("tool", Schema.string(), "Only the calls of this tool, named as the agent sees it.");
    private static final QueryParam OUTCOME = new QueryParam(
            "outcome",
            Schema.oneOf(Arrays.stream(Outcome.values()).map(Outcome::wire).toArray(String[]::new)),
            "Only the calls that ended so.");

    private final CallStore calls;
    private final Access access;

    CallRoutes(CallStore calls, Access access) {
        this.calls = requireNonNull(calls, "calls");
        this.access = requireNonNull(access, "access");
    }

    void addTo(Routes routes) {
        routes.group("connectors")
                .get(
                        "/connectors/calls",
                        "The audit of tool calls through agents' MCP endpoints, newest first (filters: project, "
                                + "agent, gateway, tool, outcome)",
                        this::list)
                .query(PageParams.PARAMETERS)
                .query(PROJECT_ID, PROMPT_ID, GATEWAY_ID, TOOL, OUTCOME)
                .header(CurrentProject.HEADER)
                .ok(Schema.list(AgentShapes.CALL));
    }

    private void list(Context ctx) {
        Principal principal = Access.principal(ctx);
        Optional<ProjectId> project = access.currentProject().named(ctx, given(ctx, PROJECT_ID));
        Optional<Set<String>> projects = project.<Optional<Set<String>>>map(p -> Optional.of(Set.of(p.value())))
                .orElseGet(() -> principal.isAdmin() ? Optional.empty() : Optional.of(principal.projects()));
        Optional<Outcome> outcome = given(ctx, OUTCOME)
                .map(text -> Outcome.of(text)
                        .orElseThrow(() -> ApiException.of(
                                ErrorCode.INVALID_PARAMETER,
                                OUTCOME.name(),
                                "`outcome` is '" + text
                                        + "'; it is one of ok, tool_error, failed, denied, rate_limited.")));
        var filter = new CallStore.Filter(
                projects, given(ctx, PROMPT_ID), given(ctx, GATEWAY_ID), given(ctx, TOOL), outcome);
        Responses.ok(ctx, Responses.page(calls.list(PageParams.from(ctx), filter), Call::id, CallView::of));
    }

    private static Optional<String> given(Context ctx, QueryParam param) {
        return param.read(ctx).map(String::strip).filter(value -> !value.isEmpty());
    }

    /** A call as the API shows it. */
    record CallView(
            String id,
            String object,
            @JsonProperty("called_at") long calledAt,
            @JsonProperty("project_id") String projectId,
            String identity,
            @JsonProperty("prompt_id") String promptId,
            @JsonProperty("gateway_id") String gatewayId,
            String tool,
            @JsonProperty("arguments_sha256") String argumentsSha256,
            @JsonProperty("duration_ms") long durationMs,
            String outcome,
            @Nullable String error) {
        static CallView of(Call call) {
            return new CallView(
                    call.id(),
                    "connector.tool_call",
                    call.calledAt() / 1000,
                    call.projectId(),
                    call.identity(),
                    call.promptId(),
                    call.gatewayId(),
                    call.tool(),
                    call.argumentsSha256(),
                    call.durationMs(),
                    call.outcome().wire(),
                    call.error().orElse(null));
        }
    }
}
