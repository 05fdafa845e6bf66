package dev.arbor.triggers;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.access.Access;
import dev.arbor.access.CurrentProject;
import dev.arbor.access.Principal;
import dev.arbor.access.ProjectId;
import dev.arbor.platform.db.Paging;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.http.PageParams;
import dev.arbor.platform.http.QueryParam;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.bodies.BodyReader;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.webhooks.StandardWebhookSignature;
import dev.arbor.triggers.FiringStore.Attempt;
import dev.arbor.triggers.FiringStore.Firing;
import dev.arbor.triggers.Trigger.PreviousSecret;
import dev.arbor.triggers.Trigger.Target;
import dev.arbor.triggers.TriggerBody.Draft;
import dev.arbor.triggers.TriggerBody.TargetDraft;
import io.javalin.http.Context;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The routes of triggers, in the current project: a member sees, makes and changes only its own projects' triggers
 * (another project's trigger is not found, and no list counts it), and only an admin makes one that starts a
 * pipeline. A URL target's signing secret is shown once, when it is made or rotated.
 */
final class TriggerRoutes {
    /** How long a rotated-out signing secret still signs deliveries, beside the new one. */
    static final Duration ROTATION_GRACE = Duration.ofHours(24);

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
    private final TriggerBody bodies;
    private final Access access;
    private final Clock clock;

    TriggerRoutes(TriggerStore triggers, FiringStore firings, TriggerBody bodies, Access access, Clock clock) {
        this.triggers = requireNonNull(triggers, "triggers");
        this.firings = requireNonNull(firings, "firings");
        this.bodies = requireNonNull(bodies, "bodies");
        this.access = requireNonNull(access, "access");
        this.clock = requireNonNull(clock, "clock");
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
        JsonNode named = body.path(CurrentProject.FIELD);
        ProjectId project = access.currentProject()
                .required(ctx, named.isTextual() ? Optional.of(named.textValue()) : Optional.empty());
        Draft draft = bodies.check(body, project.value(), principal);
        Instant now = clock.instant();
        String id = Ids.next("trg");
        Optional<String> secret = draft.target() instanceof TargetDraft.Url
                ? Optional.of(StandardWebhookSignature.newSecret())
                : Optional.empty();
        Trigger trigger =
                trigger(id, project.value(), draft, target(draft.target(), secret, Optional.empty()), now, now);
        triggers.create(trigger);
        Map<String, Object> json = json(trigger);
        secret.ifPresent(s -> json.put("signing_secret", s));
        Responses.created(ctx, "/triggers/" + id, json);
    }

    private void list(Context ctx) {
        Principal principal = Access.principal(ctx);
        Optional<ProjectId> project = access.currentProject().named(ctx, PROJECT_ID.read(ctx));
        Optional<Set<String>> projects = project.<Optional<Set<String>>>map(p -> Optional.of(Set.of(p.value())))
                .orElseGet(() -> principal.isAdmin() ? Optional.empty() : Optional.of(principal.projects()));
        Paging.Result<Trigger> page = triggers.list(
                PageParams.from(ctx), projects, CONNECTION_ID.read(ctx).filter(id -> !id.isBlank()));
        Responses.ok(ctx, Responses.page(page, Trigger::id, TriggerRoutes::json));
    }

    private void get(Context ctx) {
        Responses.ok(ctx, json(visible(ctx)));
    }

    private void update(Context ctx) {
        Principal principal = Access.principal(ctx);
        ObjectNode patch = Requests.jsonObject(ctx);
        BodyReader reader = TriggerBody.CHANGE.reader(patch);
        Problems problems = reader.problems();
        Trigger current = visible(ctx, TriggerBody.PROJECT_ID.read(reader));
        boolean rotate = TriggerBody.ROTATE_SECRET.read(reader).orElse(false);
        problems.throwIfAny();
        ObjectNode changes = patch.deepCopy();
        changes.remove(TriggerBody.PROJECT_ID.name());
        changes.remove(TriggerBody.ROTATE_SECRET.name());
        ObjectNode merged = (ObjectNode) Json.mergePatch(editable(current), changes);
        Draft draft = bodies.check(merged, current.projectId(), principal);
        if (rotate && !(draft.target() instanceof TargetDraft.Url)) {
            throw ApiException.of(
                    ErrorCode.INVALID_FIELD,
                    TriggerBody.ROTATE_SECRET.name(),
                    "`rotate_secret` is for a trigger that calls a URL: only such a trigger has a signing secret.");
        }
        Instant now = clock.instant();
        Optional<String> shown = Optional.empty();
        Target target;
        if (draft.target() instanceof TargetDraft.Url url && current.target() instanceof Target.Url before && !rotate) {
            target = new Target.Url(url.url(), before.secret(), before.previous());
        } else {
            shown = draft.target() instanceof TargetDraft.Url
                    ? Optional.of(StandardWebhookSignature.newSecret())
                    : Optional.empty();
            // the secret a rotation replaces signs beside the new one for a while, so the receiver can switch
            Optional<PreviousSecret> previous = current.target() instanceof Target.Url before
                    ? Optional.of(new PreviousSecret(before.secret(), now.plus(ROTATION_GRACE)))
                    : Optional.empty();
            target = target(draft.target(), shown, previous);
        }
        Trigger changed = trigger(current.id(), current.projectId(), draft, target, current.createdAt(), now);
        triggers.update(changed);
        Map<String, Object> json = json(changed);
        shown.ifPresent(s -> json.put("signing_secret", s));
        Responses.ok(ctx, json);
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
        Responses.ok(ctx, Map.of("id", trigger.id(), "object", "trigger.deleted", "deleted", true));
    }

    private void firings(Context ctx) {
        Trigger trigger = visible(ctx);
        Responses.ok(
                ctx,
                Responses.page(firings.ofTrigger(trigger.id(), PageParams.from(ctx)), Firing::id, this::firingJson));
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

    private static Trigger trigger(
            String id, String project, Draft draft, Target target, Instant created, Instant now) {
        return new Trigger(
                id,
                project,
                draft.connectionId(),
                draft.name(),
                draft.eventTypes(),
                draft.filter(),
                target,
                draft.enabled(),
                draft.debounceSeconds(),
                draft.correlationKey(),
                created,
                now);
    }

    private static Target target(TargetDraft draft, Optional<String> secret, Optional<PreviousSecret> previous) {
        return switch (draft) {
            case TargetDraft.Pipeline pipeline -> new Target.Pipeline(pipeline.pipelineId(), pipeline.params());
            case TargetDraft.Url url -> new Target.Url(url.url(), secret.orElseThrow(), previous);
        };
    }

    /** The trigger as a body: what a merge patch applies to. */
    private static ObjectNode editable(Trigger trigger) {
        ObjectNode body = Json.object().put("name", trigger.name()).put("connection_id", trigger.connectionId());
        body.set("event_types", Json.mapper().valueToTree(trigger.eventTypes()));
        body.set("filter", trigger.filter().toJson());
        ObjectNode target = body.putObject("target");
        switch (trigger.target()) {
            case Target.Pipeline pipeline -> {
                target.put("pipeline_id", pipeline.pipelineId());
                target.set("params", pipeline.params());
            }
            case Target.Url url -> target.put("url", url.url());
        }
        body.put("enabled", trigger.enabled()).put("debounce_seconds", trigger.debounceSeconds());
        trigger.correlationKey().ifPresent(key -> body.put("correlation_key", key.text()));
        return body;
    }

    private static Map<String, Object> json(Trigger trigger) {
        var target = new LinkedHashMap<String, Object>();
        switch (trigger.target()) {
            case Target.Pipeline pipeline -> {
                target.put("pipeline_id", pipeline.pipelineId());
                target.put("params", pipeline.params());
            }
            case Target.Url url -> {
                target.put("url", url.url());
                target.put("secret_set", true);
                target.put(
                        "previous_secret_expires_at",
                        url.previous().map(p -> p.expiresAt().getEpochSecond()).orElse(null));
            }
        }
        var json = new LinkedHashMap<String, Object>();
        json.put("id", trigger.id());
        json.put("object", "trigger");
        json.put("project_id", trigger.projectId());
        json.put("name", trigger.name());
        json.put("connection_id", trigger.connectionId());
        json.put("event_types", trigger.eventTypes());
        json.put("filter", trigger.filter().toJson());
        json.put("target", target);
        json.put("enabled", trigger.enabled());
        json.put("debounce_seconds", trigger.debounceSeconds());
        json.put("correlation_key", trigger.correlationKey().map(k -> k.text()).orElse(null));
        json.put("created_at", trigger.createdAt().getEpochSecond());
        json.put("updated_at", trigger.updatedAt().getEpochSecond());
        return json;
    }

    private Map<String, Object> firingJson(Firing firing) {
        var json = new LinkedHashMap<String, Object>();
        json.put("id", firing.id());
        json.put("object", "trigger.firing");
        json.put("trigger_id", firing.triggerId());
        json.put("delivery_id", firing.deliveryId());
        json.put("round", firing.round());
        json.put("status", FiringStore.wire(firing.status()));
        json.put("run_id", firing.runId().orElse(null));
        json.put("event_count", firing.eventCount());
        json.put("merged_into", firing.mergedInto().orElse(null));
        json.put("correlation_value", firing.correlationValue().map(Json::read).orElse(null));
        json.put("error", firing.error().orElse(null));
        json.put(
                "attempts",
                firings.attempts(firing.id()).stream()
                        .map(TriggerRoutes::attemptJson)
                        .toList());
        json.put("fired_at", firing.firedAt().getEpochSecond());
        json.put("updated_at", firing.updatedAt().getEpochSecond());
        return json;
    }

    private static Map<String, Object> attemptJson(Attempt attempt) {
        var json = new LinkedHashMap<String, Object>();
        json.put("attempt", attempt.attempt());
        json.put("at", attempt.at().getEpochSecond());
        json.put(
                "status_code",
                attempt.statusCode().isPresent() ? attempt.statusCode().getAsInt() : null);
        json.put("error", attempt.error().orElse(null));
        return json;
    }
}
