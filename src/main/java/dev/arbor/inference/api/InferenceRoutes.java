package dev.arbor.inference.api;

import static dev.arbor.platform.http.Schema.arrayOf;
import static dev.arbor.platform.http.Schema.integer;
import static dev.arbor.platform.http.Schema.nullable;
import static dev.arbor.platform.http.Schema.number;
import static dev.arbor.platform.http.Schema.object;
import static dev.arbor.platform.http.Schema.oneOf;
import static dev.arbor.platform.http.Schema.string;
import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static dev.arbor.platform.http.bodies.BodyField.Presence.REQUIRED;
import static java.util.Objects.requireNonNull;

import dev.arbor.access.Access;
import dev.arbor.access.CurrentProject;
import dev.arbor.access.Principal;
import dev.arbor.inference.Attribution;
import dev.arbor.inference.DeploymentDirectory;
import dev.arbor.inference.Routing;
import dev.arbor.inference.endpoints.EndpointHealth;
import dev.arbor.inference.endpoints.Strategy;
import dev.arbor.inference.openai.InferenceRequest;
import dev.arbor.inference.openai.Operation;
import dev.arbor.inference.steps.RouterRuntime;
import dev.arbor.keys.KeyScope;
import dev.arbor.keys.Keys;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodySpec;
import dev.arbor.routers.ActiveRouters;
import dev.arbor.routers.EndpointHealthList;
import dev.arbor.routers.RouterSnapshot;
import io.javalin.http.Context;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The OpenAI-compatible surface: {@code POST /v1/chat/completions}, {@code /v1/completions} and
 * {@code /v1/embeddings}, where {@code model} names, in this order, an active router or a running deployment in a
 * project the caller may act in (by name or id), or a cloud model of the registry (any valid token may call those:
 * registry models are the platform's); and endpoint health for admins. Routers come first because their names are
 * chosen per project, so a project may put a router in front of a deployment or cloud model of the same name.
 */
public final class InferenceRoutes {
    /**
     * The fields of an OpenAI request that Arbor reads itself; the rest goes to the model as sent. The request path
     * reads a body once, from its bytes, with {@link InferenceRequest#read} (the feature's typed parser, which keeps
     * the body as sent for the upstream): this spec declares the fields for the document and names their limits.
     */
    static final BodySpec OPENAI_REQUEST =
            BodySpec.of(BodyField.value(REQUIRED, "model", string()), BodyField.flag(OPTIONAL, "stream"));

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
    private final DeploymentDirectory deployments;
    private final CurrentProject currentProject;
    private final RouterRuntime runtime;

    public InferenceRoutes(
            Routing routing,
            ActiveRouters routers,
            DeploymentDirectory deployments,
            CurrentProject currentProject,
            RouterRuntime runtime) {
        this.routing = requireNonNull(routing, "routing");
        this.routers = requireNonNull(routers, "routers");
        this.deployments = requireNonNull(deployments, "deployments");
        this.currentProject = requireNonNull(currentProject, "currentProject");
        this.runtime = requireNonNull(runtime, "runtime");
    }

    public void addTo(Routes routes) {
        routes.group("inference")
                .post(
                        "/v1/chat/completions",
                        "OpenAI-compatible chat completions from a router, deployment or cloud model (stream: true for "
                                + "server-sent events)",
                        ctx -> serve(ctx, Operation.CHAT_COMPLETIONS))
                .body(OPENAI_REQUEST.schema())
                .ok(ANSWER)
                .answers(200, "text/event-stream", string())
                .post(
                        "/v1/completions",
                        "OpenAI-compatible text completions from a router, deployment or cloud model",
                        ctx -> serve(ctx, Operation.COMPLETIONS))
                .body(OPENAI_REQUEST.schema())
                .ok(ANSWER)
                .answers(200, "text/event-stream", string())
                .post(
                        "/v1/embeddings",
                        "OpenAI-compatible embeddings from a router, deployment or cloud model",
                        ctx -> serve(ctx, Operation.EMBEDDINGS))
                .body(OPENAI_REQUEST.schema())
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
        String model = request.model();
        Predicate<String> inProject = callersProjects(ctx);
        // an inference key sees only what it lists of its project: the rest is not found, as if it did not exist
        Optional<KeyScope> key = Keys.scope(ctx);
        if (key.isPresent()
                && CurrentProject.HEADER
                        .read(ctx)
                        .filter(named -> !named.equals(key.get().projectId()))
                        .isPresent()) {
            throw modelNotFound(model);
        }
        Predicate<RouterSnapshot> routerInScope = router ->
                key.map(k -> k.mayCallRouter(router.id(), router.name())).orElse(true);
        List<RouterSnapshot> routersNamed =
                routers.find(inProject, model).stream().filter(routerInScope).toList();
        if (!routersNamed.isEmpty()) {
            RouterSnapshot router = only(routersNamed, "Routers", model);
            Routing.chargeTo(ctx, router.projectId());
            runtime.serve(ctx, request, router, Optional.empty());
            return;
        }
        List<DeploymentDirectory.ServedDeployment> deploymentsNamed = deployments.find(inProject, model).stream()
                .filter(d -> key.map(k -> k.mayCallModel(d.id(), d.name())).orElse(true))
                .toList();
        if (!deploymentsNamed.isEmpty()) {
            DeploymentDirectory.ServedDeployment deployment = only(deploymentsNamed, "Deployments", model);
            routing.forward(ctx, request, new Strategy.Single(deployment.id()), inProject, Attribution.direct());
            return;
        }
        List<DeploymentDirectory.StartingDeployment> starting = deployments.starting(inProject, model).stream()
                .filter(d -> key.map(k -> k.mayCallModel(d.id(), d.name())).orElse(true))
                .toList();
        if (!starting.isEmpty()) {
            throw only(starting, "Deployments", model).notReady();
        }
        if (key.isEmpty()) {
            // nothing of a project answered: a project the header names is checked now (403 or 404 as anywhere), so
            // that a router or deployment found above cost no read of the projects (a key's project is its own:
            // another named finds nothing above, and the key learns no more than model_not_found)
            currentProject.named(ctx);
        }
        if (routing.knows(model) && key.map(k -> k.mayCallModel(model)).orElse(true)) {
            routing.forward(ctx, request, new Strategy.Single(model), inProject, Attribution.direct());
            return;
        }
        int slash = model.indexOf('/');
        if (slash > 0 && slash < model.length() - 1) {
            // <router>/<model>: the model a provider_models step of that router is asked for, slashes and all
            String name = model.substring(0, slash);
            List<RouterSnapshot> routersWithModel =
                    routers.find(inProject, name).stream().filter(routerInScope).toList();
            if (!routersWithModel.isEmpty()) {
                RouterSnapshot router = only(routersWithModel, "Routers", name);
                Routing.chargeTo(ctx, router.projectId());
                runtime.serve(ctx, request, router, Optional.of(model.substring(slash + 1)));
                return;
            }
        }
        throw modelNotFound(model);
    }

    private static ApiException modelNotFound(String model) {
        return ApiException.of(
                ErrorCode.MODEL_NOT_FOUND,
                "model",
                "There is no active router, running deployment or cloud model '" + model + "' that this token may "
                        + "use; a model here is an active router's or a running deployment's name or id (GET "
                        + "/routers, GET /deployments), a cloud model's id in the registry (GET /models), or "
                        + "<router>/<model> for a router that answers with a provider's models.");
    }

    /**
     * The projects the caller may act in: only the one X-Project-Id names, when sent. The header is not checked here
     * (a router or deployment found in that project shows it exists and the caller may act in it).
     */
    private static Predicate<String> callersProjects(Context ctx) {
        Principal principal = Access.principal(ctx);
        Optional<String> project = CurrentProject.HEADER.read(ctx);
        return id -> principal.mayActIn(id) && project.map(id::equals).orElse(true);
    }

    /** The one found; 404 {@code model_not_found} when the name is in several projects. */
    private static <T> T only(List<T> found, String what, String model) {
        if (found.size() > 1) {
            throw ApiException.of(
                    ErrorCode.MODEL_NOT_FOUND,
                    "model",
                    what + " named '" + model + "' are in " + found.size() + " projects: name one by its id, or its "
                            + "project with X-Project-Id.");
        }
        return found.getFirst();
    }

    private void health(Context ctx) {
        Access.requireAdmin(ctx);
        Responses.ok(
                ctx,
                EndpointHealthList.of(
                        routing.health().stream().map(EndpointHealth::report).toList()));
    }
}
