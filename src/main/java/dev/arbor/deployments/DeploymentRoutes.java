package dev.arbor.deployments;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.access.Access;
import dev.arbor.access.CurrentProject;
import dev.arbor.access.Principal;
import dev.arbor.access.ProjectId;
import dev.arbor.models.engines.ReplicaSet;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Warning;
import dev.arbor.platform.http.Deleted;
import dev.arbor.platform.http.EventStream;
import dev.arbor.platform.http.EventStreams;
import dev.arbor.platform.http.ListReply;
import dev.arbor.platform.http.QueryParam;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.bodies.BodyReader;
import dev.arbor.platform.references.ReferenceGuard;
import dev.arbor.platform.references.Referrers;
import io.javalin.http.Context;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The routes of deployments, in the current project: members see, make and change only their own projects'
 * deployments (another project's is not found); admins see every one, and make and change deployments in no project
 * too (a request naming no project, where a member's is refused). Long work answers at once (202) with the
 * status to poll ({@code ?wait=N} waits up to N seconds for it to settle) or to follow as server-sent events.
 */
final class DeploymentRoutes {
    static final String DEPLOYMENT_ID = "deployment_id";
    /** The longest {@code ?wait=} a read may ask for. */
    static final int MAX_WAIT_SECONDS = 60;

    private static final QueryParam PROJECT_QUERY = new QueryParam(
            CurrentProject.FIELD,
            Schema.string(),
            "Only this project's deployments (X-Project-Id when left out); without either, every deployment the "
                    + "token may see.");
    private static final QueryParam WAIT_QUERY = new QueryParam(
            "wait",
            Schema.integer(0, MAX_WAIT_SECONDS),
            "Wait up to this many seconds for the deployment's work to settle (running or failed) before answering.");

    /** What a deployment's event stream says when it is deleted. */
    private record Gone(String id) {}

    private final Deployments deployments;
    private final Access access;
    private final EventStreams streams;

    DeploymentRoutes(Deployments deployments, Access access, EventStreams streams) {
        this.deployments = requireNonNull(deployments, "deployments");
        this.access = requireNonNull(access, "access");
        this.streams = requireNonNull(streams, "streams");
    }

    /** The routes; a delete asks {@code referrers} (the routers) whether the deployment is in use. */
    void addTo(Routes routes, Referrers referrers) {
        var guard = new ReferenceGuard(referrers);
        routes.group("deployments")
                .post(
                        "/deployments",
                        "Deploy a model in the current project (an admin naming none deploys it in no project): "
                                + "answered at once (pending), its replicas or pods start in the background",
                        this::create)
                .body(DeploymentBodies.CREATE.schema())
                .header(CurrentProject.HEADER)
                .accepted(ApiShapes.DEPLOYMENT)
                .get("/deployments", "The deployments of the current project, newest first", this::list)
                .query(PROJECT_QUERY)
                .header(CurrentProject.HEADER)
                .ok(Schema.list(ApiShapes.DEPLOYMENT))
                .get("/deployments/{deployment_id}", "A deployment, its status and progress", this::get)
                .query(WAIT_QUERY)
                .header(CurrentProject.HEADER)
                .ok(ApiShapes.DEPLOYMENT)
                .patch(
                        "/deployments/{deployment_id}",
                        "Change a deployment's replicas (scaling until they are ready), autoscaling, rate limit or "
                                + "resources (null turns any of these three off; new resources deploy it again)",
                        this::change)
                .body(DeploymentBodies.CHANGE.schema())
                .header(CurrentProject.HEADER)
                .accepted(ApiShapes.DEPLOYMENT)
                .delete(
                        "/deployments/{deployment_id}",
                        "Stop a deployment and remove it; refused while an active router sends requests to it, "
                                + "unless ?force=true makes those routers inactive",
                        ctx -> delete(ctx, guard))
                .query(ReferenceGuard.FORCE)
                .header(CurrentProject.HEADER)
                .ok(Schema.deleted("deployment"))
                .get(
                        "/deployments/{deployment_id}/events",
                        "Follow a deployment (server-sent events): its state first, then each change, until its "
                                + "work settles or it is deleted",
                        this::events)
                .header(CurrentProject.HEADER)
                .answers(200, "text/event-stream", Schema.string());
    }

    private void create(Context ctx) {
        BodyReader reader = DeploymentBodies.CREATE.reader(Requests.jsonObject(ctx));
        Optional<String> projectField = DeploymentBodies.projectId(reader);
        Optional<ProjectId> project = access.currentProject().named(ctx, projectField);
        if (project.isEmpty() && !Access.principal(ctx).isAdmin()) {
            // a member's deployment is in one of its projects; only an admin makes one in none
            project = Optional.of(access.currentProject().required(ctx, projectField));
        }
        Deployment deployment = deployments.create(DeploymentBodies.create(reader, project.map(ProjectId::value)));
        ctx.header("location", "/deployments/" + deployment.id());
        Responses.json(ctx, 202, json(deployment, Optional.empty()));
    }

    private void list(Context ctx) {
        Principal principal = Access.principal(ctx);
        Optional<Set<String>> projects = access.currentProject()
                .named(ctx, PROJECT_QUERY.read(ctx))
                .<Optional<Set<String>>>map(p -> Optional.of(Set.of(p.value())))
                .orElseGet(() -> principal.isAdmin() ? Optional.empty() : Optional.of(principal.projects()));
        List<Deployment> all = deployments.list(projects);
        Responses.ok(
                ctx,
                ListReply.of(
                        all.stream().map(d -> json(d, Optional.empty())).toList(),
                        all.stream().map(Deployment::id).toList(),
                        false));
    }

    private void get(Context ctx) throws InterruptedException {
        Deployment deployment = visible(ctx, Optional.empty());
        Optional<String> wait = WAIT_QUERY.read(ctx);
        if (wait.isPresent()) {
            int seconds = seconds(wait.get());
            deployment = deployments
                    .await(deployment.id(), Duration.ofSeconds(seconds))
                    .orElseThrow(() -> DeploymentStore.notFound(ctx.pathParam(DEPLOYMENT_ID), false));
        }
        Responses.ok(ctx, json(deployment, deployments.replicas(deployment.id())));
    }

    private void change(Context ctx) {
        ObjectNode body = Requests.jsonObject(ctx);
        BodyReader reader = DeploymentBodies.CHANGE.reader(body);
        Deployment current = visible(ctx, DeploymentBodies.projectId(reader));
        Deployment changed = deployments.change(current, DeploymentBodies.change(body, reader, current));
        Responses.json(ctx, 202, json(changed, deployments.replicas(changed.id())));
    }

    private void delete(Context ctx, ReferenceGuard guard) {
        Deployment deployment = visible(ctx, Optional.empty());
        // routers name a deployment in their endpoint references by its id, as they name cloud models
        List<Warning> warnings = guard.beforeDelete(
                Referrers.Kind.MODEL,
                Set.of(deployment.id()),
                "deployment '" + deployment.name() + "'",
                "deployment_id",
                ReferenceGuard.WhenInUse.of(ctx));
        deployments.delete(deployment);
        Responses.ok(ctx, Deleted.of(deployment.id(), "deployment", warnings));
    }

    /**
     * Follows a deployment: {@code deployment} (as {@code GET} shows it) first, then again at each change, and
     * {@code end} once its work settles (running or failed) or it is deleted. A deployment settled already is sent
     * once, then {@code end}.
     */
    private void events(Context ctx) throws IOException {
        Deployment deployment = visible(ctx, Optional.empty());
        EventStream stream = streams.open(ctx);
        DeploymentReply last = json(deployment, Optional.empty());
        stream.send("deployment", last);
        stream.flush();
        try {
            while (stream.open() && !deployment.state().status().settled()) {
                Optional<Deployment> now = deployments.await(deployment.id(), Duration.ofSeconds(1));
                if (now.isEmpty()) {
                    stream.send("deleted", new Gone(deployment.id()));
                    break;
                }
                deployment = now.get();
                DeploymentReply json = json(deployment, Optional.empty());
                if (!json.equals(last)) {
                    stream.send("deployment", json);
                    stream.flush();
                    last = json;
                } else {
                    stream.keepAlive();
                }
            }
            stream.end();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // the client went away
        }
    }

    private static int seconds(String wait) {
        try {
            int seconds = Integer.parseInt(wait);
            if (seconds >= 0 && seconds <= MAX_WAIT_SECONDS) {
                return seconds;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw ApiException.of(
                ErrorCode.INVALID_PARAMETER,
                WAIT_QUERY.name(),
                "`wait` must be a whole number of seconds from 0 to " + MAX_WAIT_SECONDS + ".");
    }

    /**
     * The path's deployment, when it is in the current project (if one is named) and the caller may act in its
     * project; otherwise 404, as if there were none. One being deleted is gone already.
     */
    private Deployment visible(Context ctx, Optional<String> projectId) {
        Optional<ProjectId> current = access.currentProject().named(ctx, projectId);
        Principal principal = Access.principal(ctx);
        String id = ctx.pathParam(DEPLOYMENT_ID);
        return deployments
                .find(id)
                .filter(d -> d.state().status() != DeploymentStatus.DELETING)
                .filter(d -> d.projectId().map(principal::mayActIn).orElse(principal.isAdmin()))
                .filter(d -> current.map(p -> d.projectId().equals(Optional.of(p.value())))
                        .orElse(true))
                .orElseThrow(() -> DeploymentStore.notFound(id, current.isPresent()));
    }

    /** A deployment as the API shows it; {@code replicas_detail} when this server runs its replicas. */
    private DeploymentReply json(Deployment deployment, Optional<ReplicaSet> replicas) {
        return DeploymentReply.of(deployment, deployments.endpoint(deployment), replicas);
    }
}
