package dev.arbor.inference;

import static dev.arbor.platform.http.Schema.arrayOf;
import static dev.arbor.platform.http.Schema.bool;
import static dev.arbor.platform.http.Schema.integer;
import static dev.arbor.platform.http.Schema.nullable;
import static dev.arbor.platform.http.Schema.number;
import static dev.arbor.platform.http.Schema.object;
import static dev.arbor.platform.http.Schema.oneOf;
import static dev.arbor.platform.http.Schema.string;
import static java.util.Objects.requireNonNull;

import dev.arbor.access.Access;
import dev.arbor.access.CurrentProject;
import dev.arbor.access.Principal;
import dev.arbor.access.ProjectId;
import dev.arbor.inference.steps.CredentialValues;
import dev.arbor.inference.steps.ProviderModels;
import dev.arbor.inference.steps.RouterDecider;
import dev.arbor.inference.steps.RouterRuntime;
import dev.arbor.platform.actions.Expressions;
import dev.arbor.platform.http.ApiException;
import dev.arbor.platform.http.ErrorCode;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.routers.ActiveRouters;
import dev.arbor.routers.RouterSnapshot;
import io.javalin.http.Context;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The OpenAI-compatible surface: {@code POST /v1/chat/completions}, {@code /v1/completions} and
 * {@code /v1/embeddings}, where {@code model} names a cloud model of the registry (any valid token may call them:
 * registry models are the platform's) or an active router in a project the caller may act in, and endpoint health for
 * admins.
 */
public final class InferenceRoutes {
    private static final Schema REQUEST = object().required("model", string()).optional("stream", bool());
    private static final Schema ANSWER = object().optional("model", string());
    private static final Schema HEALTH = object().required("endpoint", string())
            .required("status", oneOf("healthy", "failing", "cooling"))
            .required("consecutive_failures", integer(0, Integer.MAX_VALUE))
            .required("cooling_until", nullable(integer()))
            .required("in_flight", integer(0, Integer.MAX_VALUE))
            .required("p50_ms", nullable(number()))
            .required("p95_ms", nullable(number()))
            .required("requests", integer(0, Long.MAX_VALUE))
            .required("failures", integer(0, Long.MAX_VALUE))
            .required("last_error", nullable(string()));

    private final Routing routing;
    private final ActiveRouters routers;
    private final CurrentProject currentProject;
    private final RouterRuntime runtime;

    public InferenceRoutes(
            Routing routing,
            ActiveRouters routers,
            CurrentProject currentProject,
            ProviderModels providers,
            CredentialValues credentials,
            RouterDecider decider,
            Expressions expressions,
            Clock clock) {
        this.routing = requireNonNull(routing, "routing");
        this.routers = requireNonNull(routers, "routers");
        this.currentProject = requireNonNull(currentProject, "currentProject");
        this.runtime = new RouterRuntime(routing, routers, providers, credentials, decider, expressions, clock);
    }

    public void addTo(Routes routes) {
        routes.group("inference")
                .post(
                        "/v1/chat/completions",
                        "OpenAI-compatible chat completions from a cloud model (stream: true for server-sent events)",
                        ctx -> serve(ctx, Operation.CHAT_COMPLETIONS))
                .body(REQUEST)
                .ok(ANSWER)
                .answers(200, "text/event-stream", string())
                .post(
                        "/v1/completions",
                        "OpenAI-compatible text completions from a cloud model",
                        ctx -> serve(ctx, Operation.COMPLETIONS))
                .body(REQUEST)
                .ok(ANSWER)
                .answers(200, "text/event-stream", string())
                .post(
                        "/v1/embeddings",
                        "OpenAI-compatible embeddings from a cloud model",
                        ctx -> serve(ctx, Operation.EMBEDDINGS))
                .body(REQUEST)
                .ok(ANSWER);
        routes.group("routing")
                .get(
                        "/routing/endpoints/health",
                        "How each model endpoint this server routed to has been answering (admin)",
                        this::health)
                .ok(object().required("object", oneOf("list")).required("data", arrayOf(HEALTH)));
    }

    private void serve(Context ctx, Operation operation) {
        InferenceRequest request = InferenceRequest.read(operation, ctx.bodyAsBytes());
        if (routing.knows(request.model())) {
            routing.forward(ctx, request, new Strategy.Single(request.model()), Attribution.direct());
            return;
        }
        Named named = router(ctx, request.model());
        runtime.serve(ctx, request, named.router(), named.askedModel());
    }

    /** The router a request's {@code model} names, and the model it asks a provider for after a slash. */
    private record Named(RouterSnapshot router, Optional<String> askedModel) {}

    /**
     * The active router {@code model} names among the projects the caller may act in (only the one X-Project-Id names,
     * when sent): by id, else by name; 404 {@code model_not_found} when there is none, or when the name is in several
     * of them. A {@code model} that names no router may be {@code <router>/<model>}: the part before the first slash
     * names the router, the rest (slashes and all) the model its provider_models step is asked for.
     */
    private Named router(Context ctx, String model) {
        Principal principal = Access.principal(ctx);
        Optional<ProjectId> project = currentProject.named(ctx);
        Predicate<String> inProject = id ->
                principal.mayActIn(id) && project.map(p -> p.value().equals(id)).orElse(true);
        String name = model;
        List<RouterSnapshot> found = routers.find(inProject, name);
        Optional<String> asked = Optional.empty();
        int slash = model.indexOf('/');
        if (found.isEmpty() && slash > 0 && slash < model.length() - 1) {
            name = model.substring(0, slash);
            found = routers.find(inProject, name);
            asked = Optional.of(model.substring(slash + 1));
        }
        if (found.isEmpty()) {
            throw ApiException.of(
                    ErrorCode.MODEL_NOT_FOUND,
                    "model",
                    "There is no cloud model or active router '" + model + "' that this token may use; a model here "
                            + "is a cloud model's id in the registry (GET /models), or an active router's name or id.");
        }
        if (found.size() > 1) {
            throw ApiException.of(
                    ErrorCode.MODEL_NOT_FOUND,
                    "model",
                    "Routers named '" + name + "' are active in " + found.size() + " projects: name the router by "
                            + "its id, or its project with X-Project-Id.");
        }
        return new Named(found.getFirst(), asked);
    }

    private void health(Context ctx) {
        Access.requireAdmin(ctx);
        Responses.ok(
                ctx,
                Map.of(
                        "object",
                        "list",
                        "data",
                        routing.health().stream().map(EndpointHealth::toJson).toList()));
    }
}
