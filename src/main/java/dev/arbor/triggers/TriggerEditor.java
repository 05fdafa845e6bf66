package dev.arbor.triggers;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.access.Principal;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.webhooks.StandardWebhookSignature;
import dev.arbor.triggers.Trigger.PreviousSecret;
import dev.arbor.triggers.Trigger.Target;
import dev.arbor.triggers.TriggerBody.Draft;
import dev.arbor.triggers.TriggerBody.TargetDraft;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Makes and changes triggers from their bodies: a change is a merge patch checked as a whole trigger once applied; a
 * URL target gets a signing secret when it is made or rotated, and the one a rotation replaces signs beside it for
 * {@link #ROTATION_GRACE}.
 */
final class TriggerEditor {
    /** How long a rotated-out signing secret still signs deliveries, beside the new one. */
    static final Duration ROTATION_GRACE = Duration.ofHours(24);

    /** A trigger as saved, with the signing secret it was given now, if any (shown this once). */
    record Saved(Trigger trigger, Optional<String> signingSecret) {}

    private final TriggerStore triggers;
    private final TriggerBody bodies;
    private final Clock clock;

    TriggerEditor(TriggerStore triggers, TriggerBody bodies, Clock clock) {
        this.triggers = requireNonNull(triggers, "triggers");
        this.bodies = requireNonNull(bodies, "bodies");
        this.clock = requireNonNull(clock, "clock");
    }

    Saved create(ObjectNode body, String project, Principal principal) {
        Draft draft = bodies.check(body, project, principal);
        Instant now = clock.instant();
        Optional<String> secret = draft.target() instanceof TargetDraft.Url
                ? Optional.of(StandardWebhookSignature.newSecret())
                : Optional.empty();
        Trigger trigger =
                trigger(Ids.next("trg"), project, draft, target(draft.target(), secret, Optional.empty()), now, now);
        triggers.create(trigger);
        return new Saved(trigger, secret);
    }

    /** {@code changes} is the merge patch without {@code project_id} and {@code rotate_secret}. */
    Saved update(Trigger current, ObjectNode changes, boolean rotate, Principal principal) {
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
        return new Saved(changed, shown);
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
}
