package dev.arbor.inference;

import static java.util.Objects.requireNonNull;

import dev.arbor.access.Access;
import dev.arbor.access.CurrentProject;
import dev.arbor.models.engines.ReplicaSet;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.HeaderParam;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.ratelimits.RateLimiter;
import dev.arbor.studio.running.DeployedModels;
import dev.arbor.studio.running.DeployedReplicas;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The running deployments {@code POST /v1/decide} may name, by name or id, in the projects its caller may use, as on
 * the other inference routes (only the one {@code X-Project-Id} names, when sent). Who that is depends on the studio's
 * key: with {@code STUDIO_API_KEY} set, every caller holds it, and it is the operator's, so every project's deployments
 * are looked at; without one, the caller's admin or member token (its projects), or the local admin while no token is
 * needed. A caller without either reaches no deployment: its {@code model} is a registry model's id, as for the studio's
 * other routes (a deployment's name is then 404 {@code model_not_found}, and its rate limit is never touched). A name in
 * several projects is 404 {@code model_not_found}: name the deployment by its id. A deployment decides from replicas of
 * a model that scores; a local deployment whose replicas run on another server has the request passed there, as
 * inference requests are ({@link ServerHop}), its rate limit taken here once. Its rate limit is the one its inference
 * requests spend.
 */
public final class DeploymentDecisions implements DeployedModels {
    /**
     * How long the server of the replicas may take to answer: that server bounds the decision's work itself (its
     * model's timeouts), so this only guards against one that stops answering.
     */
    private static final Duration PASSED_DECISION_TIMEOUT = Duration.ofMinutes(5);

    /** A decision's answer is a few answers and their usage; more than this is not an answer of the API. */
    private static final int MAX_ANSWER_BYTES = 16 * 1024 * 1024;

    /**
     * What the caller sent that the server of the replicas reads: its credentials, its project and the studio's
     * headers.
     */
    private static final List<String> PASSED_HEADERS =
            List.of("authorization", "x-project-id", "x-studio-template", "x-studio-store", "x-studio-metadata");

    private static final Predicate<String> NO_PROJECT = project -> false;

    private final DeploymentDirectory deployments;
    private final DeploymentLimits limits;
    private final ServerHop hop;
    private final Access access;
    private final boolean studioKeyed;

    /** With {@code studioApiKey} the studio's key when one is set (every studio caller then holds it). */
    public DeploymentDecisions(
            DeploymentDirectory deployments,
            RateLimiter limits,
            ServerHop hop,
            Access access,
            Optional<String> studioApiKey) {
        this.deployments = requireNonNull(deployments, "deployments");
        this.limits = new DeploymentLimits(limits);
        this.hop = requireNonNull(hop, "hop");
        this.access = requireNonNull(access, "access");
        this.studioKeyed = requireNonNull(studioApiKey, "studioApiKey").isPresent();
    }

    @Override
    public List<HeaderParam> headers() {
        return List.of(CurrentProject.HEADER);
    }

    @Override
    public Admission admit(Context ctx, String model) {
        requireNonNull(ctx, "ctx");
        requireNonNull(model, "model");
        Predicate<String> inProject = callersProjects(ctx);
        List<DeploymentDirectory.ServedDeployment> found = deployments.find(inProject, model);
        if (found.isEmpty()) {
            List<DeploymentDirectory.StartingDeployment> starting = deployments.starting(inProject, model);
            if (!starting.isEmpty()) {
                throw only(starting, model).notReady();
            }
            return new NoDeployment();
        }
        DeploymentDirectory.ServedDeployment deployment = only(found, model);
        boolean passedHere = hop.passed(ctx, deployment.id());
        return switch (deployment.backend()) {
            case DeploymentDirectory.Backend.Replicas(ReplicaSet replicas)
            when replicas.capabilities().contains(ReplicaSet.Capability.SCORE) -> {
                if (!passedHere) { // the server that passed it took from the limit
                    takeFromLimit(ctx, deployment);
                }
                yield new Deployed(replicas.modelId(), DeployedReplicas.of(replicas));
            }
            case DeploymentDirectory.Backend.OtherServer other -> {
                if (other.address().isEmpty()) {
                    throw ServerHop.elsewhere(deployment.name(), other.server(), "is gone");
                }
                if (passedHere) {
                    throw ServerHop.elsewhere(deployment.name(), other.server(), "runs them no more");
                }
                takeFromLimit(ctx, deployment);
                passOn(ctx, deployment, other, other.address().get());
                yield new AnsweredElsewhere();
            }
            default ->
                throw ApiException.of(
                        ErrorCode.MODEL_CAPABILITY_UNSUPPORTED,
                        "model",
                        "Deployment '" + deployment.name() + "' cannot decide: decisions come from replicas of a "
                                + "model that scores on cluster local; a Kubernetes deployment serves chat "
                                + "completions and embeddings.");
        };
    }

    /**
     * The projects whose deployments the caller may decide with: every one for the studio key's holder, an admin or
     * member token's own, none for a caller without a token; only the one {@code X-Project-Id} names, when sent.
     */
    private Predicate<String> callersProjects(Context ctx) {
        Optional<String> named = CurrentProject.HEADER.read(ctx);
        Predicate<String> callers = studioKeyed
                ? project -> true
                : access.identify(ctx)
                        .<Predicate<String>>map(caller -> caller::mayActIn)
                        .orElse(NO_PROJECT);
        return project -> callers.test(project) && named.map(project::equals).orElse(true);
    }

    private static <T> T only(List<T> found, String model) {
        if (found.size() > 1) {
            throw ApiException.of(
                    ErrorCode.MODEL_NOT_FOUND,
                    "model",
                    "Deployments named '" + model + "' are in " + found.size() + " projects: name one by its id.");
        }
        return found.getFirst();
    }

    private void takeFromLimit(Context ctx, DeploymentDirectory.ServedDeployment deployment) {
        limits.take(ctx, deployment).ifPresent(refusal -> {
            throw refusal;
        });
    }

    /**
     * Passes the request, as the caller sent it, to the server that runs the deployment's replicas (which checks the
     * caller's key again), and writes its answer on {@code ctx}: status, body, {@code retry-after} and the studio's
     * {@code x-studio-*} headers. A server that does not answer is 503 {@code deployment_on_other_server}.
     */
    private void passOn(
            Context ctx,
            DeploymentDirectory.ServedDeployment deployment,
            DeploymentDirectory.Backend.OtherServer other,
            URI server) {
        String where = "The server of deployment '" + deployment.name() + "' (" + other.server() + ")";
        byte[] body;
        HttpResponse<InputStream> answer;
        try {
            answer = hop.pass(
                    ctx,
                    deployment.id(),
                    server.resolve("/v1/decide"),
                    Requests.body(ctx),
                    "application/json",
                    PASSED_DECISION_TIMEOUT,
                    PASSED_HEADERS);
            try (InputStream in = answer.body()) {
                body = in.readNBytes(MAX_ANSWER_BYTES + 1);
            }
        } catch (ConnectException e) {
            throw ServerHop.elsewhere(deployment.name(), other.server(), "does not answer");
        } catch (HttpTimeoutException e) {
            throw ApiException.of(ErrorCode.UPSTREAM_TIMEOUT, where + " did not answer in time.");
        } catch (IOException e) {
            throw ApiException.of(
                    ErrorCode.UPSTREAM_UNAVAILABLE, where + " broke off its answer (" + e.getMessage() + ").");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.of(ErrorCode.UPSTREAM_UNAVAILABLE, where + ": the call was interrupted.");
        }
        if (body.length > MAX_ANSWER_BYTES) {
            throw ApiException.of(ErrorCode.UPSTREAM_INVALID_RESPONSE, where + " answered more than 16 MiB.");
        }
        answer.headers().map().forEach((name, values) -> {
            String lower = name.toLowerCase(Locale.ROOT);
            if (lower.startsWith("x-studio-") || lower.equals("retry-after")) {
                values.forEach(value -> ctx.header(lower, value));
            }
        });
        ctx.status(answer.statusCode());
        ctx.contentType(answer.headers().firstValue("content-type").orElse("application/json"));
        ctx.result(body);
    }
}
