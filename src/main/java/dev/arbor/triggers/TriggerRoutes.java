package dev.arbor.triggers;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.access.Access;
import dev.arbor.access.CurrentProject;
import dev.arbor.access.Principal;
import dev.arbor.access.ProjectId;
import dev.arbor.platform.db.Paging;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.PageParams;
import dev.arbor.platform.http.QueryParam;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.bodies.BodyReader;
import dev.arbor.triggers.FiringStore.Firing;
import dev.arbor.triggers.Trigger.Target;
import dev.arbor.triggers.TriggerViews.FiringView;
import dev.arbor.triggers.TriggerViews.TriggerView;
import io.javalin.http.Context;
import java.util.Optional;
import java.util.Set;

/**
 * The routes of triggers, in the current project: a member sees, makes and changes only its own projects' triggers
 * (another project's trigger is not found, and no list counts it), and only an admin makes one that starts a
 * pipeline. A URL target's signing secret is shown once, when it is made or rotated.
 */
final class TriggerRoutes {
    private static final String TRIGGER_ID = "trigger_id";
    private static final QueryParam PROJECT_ID = new QueryParam(
            CurrentProject.FIELD,
            Schema.string(),
            "Only this project's triggers (X-Project-Id when left out); without either, every trigger the token may "
                    + "see.");
    private static final QueryParam CONNECTION_ID =
            new QueryParam("connection_id", Schema.string(), "Only the triggers of this shared connection's events.");

    private final TriggerStore triggers;
    private final FiringStore firings;
    private final TriggerEditor editor;
    private final Access access;

    TriggerRoutes(TriggerStore triggers, FiringStore firings, TriggerEditor editor, Access access) {
        this.triggers = requireNonNull(triggers, "triggers");
        this.firings = requireNonNull(firings, "firings");
        this.editor = requireNonNull(editor, "editor");
        this.access = requireNonNull(access, "access");
    }

    void addTo(Routes routes) {
        routes.group("triggers")
                .post(
                        "/triggers",
                        "Subscribe the current project to a shared connection's events: matching events start a "
                                + "pipeline run or are posted to a URL (its signing secret is answered once)",
                        this::create)
                .body(TriggerBody.CREATE.schema())
                .header(CurrentProject.HEADER)
                .created(ApiShapes.TRIGGER_SAVED)
                .get("/triggers", "The current project's triggers, newest first", this::list)
                .query(PageParams.PARAMETERS)
                .query(PROJECT_ID, CONNECTION_ID)
                .header(CurrentProject.HEADER)
                .ok(Schema.list(ApiShapes.TRIGGER))
                .get("/triggers/{trigger_id}", "A trigger", this::get)
                .header(CurrentProject.HEADER)
                .ok(ApiShapes.TRIGGER)
                .patch(
                        "/triggers/{trigger_id}",
                        "Change a trigger (a merge patch); rotate_secret gives a URL target a new signing secret, "
                                + "answered once, and signs with the old one too for 24 hours",
                        this::update)
                .body(TriggerBody.CHANGE.schema())
                .header(CurrentProject.HEADER)
                .ok(ApiShapes.TRIGGER_SAVED)
                .get(
                        "/triggers/{trigger_id}/firings",
                        "What a trigger fired, newest first: each delivery and round, with its run or its attempts "
                                + "at the URL",
                        this::firings)
                .query(PageParams.PARAMETERS)
                .header(CurrentProject.HEADER)
                .ok(Schema.list(ApiShapes.FIRING))
                .delete("/triggers/{trigger_id}", "Delete a trigger; what it fired stays in the log", this::delete)
                .header(CurrentProject.HEADER)
                .ok(Schema.deleted("trigger"));
    }

    private void create(Context ctx) {
        Principal principal = Access.principal(ctx);
        ObjectNode body = Requests.jsonObject(ctx);
        // the project is read first: the rest of the body is checked against what that project may use
        ProjectId project =
                access.currentProject().required(ctx, TriggerBody.PROJECT_ID.read(TriggerBody.CREATE.reader(body)));
        TriggerEditor.Saved saved = editor.create(body, project.value(), principal);
        Responses.created(ctx, "/triggers/" + saved.trigger().id(), TriggerView.of(saved));
    }

    private void list(Context ctx) {
        Principal principal = Access.principal(ctx);
        Optional<ProjectId> project = access.currentProject().named(ctx, PROJECT_ID.read(ctx));
        Optional<Set<String>> projects = project.<Optional<Set<String>>>map(p -> Optional.of(Set.of(p.value())))
                .orElseGet(() -> principal.isAdmin() ? Optional.empty() : Optional.of(principal.projects()));
        Paging.Result<Trigger> page = triggers.list(
                PageParams.from(ctx), projects, CONNECTION_ID.read(ctx).filter(id -> !id.isBlank()));
        Responses.ok(ctx, Responses.page(page, Trigger::id, TriggerView::of));
    }

    private void get(Context ctx) {
        Responses.ok(ctx, TriggerView.of(visible(ctx)));
    }

    private void update(Context ctx) {
        Principal principal = Access.principal(ctx);
        ObjectNode patch = Requests.jsonObject(ctx);
        BodyReader reader = TriggerBody.CHANGE.reader(patch);
        Trigger current = visible(ctx, TriggerBody.PROJECT_ID.read(reader));
        boolean rotate = TriggerBody.ROTATE_SECRET.read(reader).orElse(false);
        reader.problems().throwIfAny();
        ObjectNode changes = patch.deepCopy();
        changes.remove(TriggerBody.PROJECT_ID.name());
        changes.remove(TriggerBody.ROTATE_SECRET.name());
        Responses.ok(ctx, TriggerView.of(editor.update(current, changes, rotate, principal)));
    }

    private void delete(Context ctx) {
        Trigger trigger = visible(ctx);
        if (trigger.target() instanceof Target.Pipeline
                && !Access.principal(ctx).isAdmin()) {
            throw ApiException.of(
                    ErrorCode.ADMIN_REQUIRED,
                    TRIGGER_ID,
                    "Only an admin token may delete a trigger that starts a pipeline.");
        }
        triggers.delete(trigger.id());
        Responses.ok(ctx, new TriggerViews.Deleted(trigger.id(), "trigger.deleted", true));
    }

    private void firings(Context ctx) {
        Trigger trigger = visible(ctx);
        Responses.ok(
                ctx,
                Responses.page(
                        firings.ofTrigger(trigger.id(), PageParams.from(ctx)),
                        Firing::id,
                        firing -> FiringView.of(firing, firings.attempts(firing.id()))));
    }

    private Trigger visible(Context ctx) {
        return visible(ctx, Optional.empty());
    }

    /**
     * The path's trigger, when it is in the current project (if one is named) and the caller may act in its project;
     * otherwise 404, as if there were none.
     */
    private Trigger visible(Context ctx, Optional<String> projectId) {
        Optional<ProjectId> current = access.currentProject().named(ctx, projectId);
        Principal principal = Access.principal(ctx);
        String id = ctx.pathParam(TRIGGER_ID);
        return triggers.find(id)
                .filter(t -> principal.mayActIn(t.projectId()))
                .filter(t -> current.map(p -> p.value().equals(t.projectId())).orElse(true))
                .orElseThrow(() -> ApiException.of(
                        ErrorCode.TRIGGER_NOT_FOUND,
                        TRIGGER_ID,
                        "There is no trigger '" + id + "'" + (current.isPresent() ? " in this project." : ".")));
    }
}
