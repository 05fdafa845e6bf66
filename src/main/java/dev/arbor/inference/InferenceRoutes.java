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
import dev.arbor.platform.http.ApiException;
import dev.arbor.platform.http.ErrorCode;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import io.javalin.http.Context;
import java.util.Map;

/**
 * The OpenAI-compatible surface: {@code POST /v1/chat/completions}, {@code /v1/completions} and
 * {@code /v1/embeddings}, where {@code model} names a cloud model of the registry (any valid token may call them:
 * registry models are the platform's), and endpoint health for admins.
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

    public InferenceRoutes(Routing routing) {
        this.routing = requireNonNull(routing, "routing");
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
        if (!routing.knows(request.model())) {
            throw ApiException.of(
                    ErrorCode.MODEL_NOT_FOUND,
                    "model",
                    "There is no cloud model '" + request.model() + "'; a model here is a cloud model's id in the "
                            + "registry (GET /models).");
        }
        routing.forward(ctx, request, new Strategy.Single(request.model()), Attribution.direct());
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
