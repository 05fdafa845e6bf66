package dev.arbor.pipelines;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.access.Access;
import dev.arbor.pipelines.control.RunControl;
import dev.arbor.pipelines.definitions.PipelineDefinition;
import dev.arbor.pipelines.runs.RunEngine;
import dev.arbor.pipelines.runs.store.RunStore;
import dev.arbor.platform.actions.ActionCatalog;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.http.HeaderParam;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodyReader;
import dev.arbor.platform.http.bodies.BodySpec;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.webhooks.StandardWebhookSignature;
import io.javalin.http.Context;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A pipeline's webhook: plain callers start a run with a call signed the Standard Webhooks way with the pipeline's
 * secret, and the call's JSON body becomes the run's {@code event}. The secret is made (and rotated) by an admin and
 * shown once; the webhook takes no calls until a pipeline has one.
 */
final class PipelineWebhooks {
    /** How far a call's {@code webhook-timestamp} may be from the server's time, either way (the standard's 5 minutes). */
    static final Duration TOLERANCE = Duration.ofMinutes(5);
    /** How long the secret a rotation replaces stays valid when the rotation does not say. */
    static final long DEFAULT_GRACE_SECONDS = 86_400;

    static final long MAX_GRACE_SECONDS = 7 * 86_400;
    private static final int MAX_WEBHOOK_ID = 256;

    private static final HeaderParam WEBHOOK_ID = new HeaderParam(
            "webhook-id", Schema.string(MAX_WEBHOOK_ID), "The call's unique id: a repeat starts no run.");
    private static final HeaderParam WEBHOOK_TIMESTAMP = new HeaderParam(
            "webhook-timestamp", Schema.string(), "When the call was signed, in unix seconds (within 5 minutes).");
    private static final HeaderParam WEBHOOK_SIGNATURE = new HeaderParam(
            "webhook-signature",
            Schema.string(),
            "`v1,<base64>` HMAC-SHA256 signatures (space-separated) of `<webhook-id>.<webhook-timestamp>.<body>`.");
    private static final BodyField.Whole GRACE_SECONDS =
            BodyField.integer(OPTIONAL, "grace_seconds", 0, MAX_GRACE_SECONDS);
    private static final BodySpec ROTATION = BodySpec.closed("a webhook secret rotation", GRACE_SECONDS);

    private final PipelineStore pipelines;
    private final RunStore runs;
    private final RunEngine engine;
    private final ActionCatalog catalog;
    private final WebhookSecretStore secrets;
    private final Supplier<String> publicUrl;
    private final Clock clock;

    PipelineWebhooks(
            PipelineStore pipelines,
            RunStore runs,
            RunEngine engine,
            ActionCatalog catalog,
            WebhookSecretStore secrets,
            Supplier<String> publicUrl,
            Clock clock) {
        this.pipelines = requireNonNull(pipelines, "pipelines");
        this.runs = requireNonNull(runs, "runs");
        this.engine = requireNonNull(engine, "engine");
        this.catalog = requireNonNull(catalog, "catalog");
        this.secrets = requireNonNull(secrets, "secrets");
        this.publicUrl = requireNonNull(publicUrl, "publicUrl");
        this.clock = requireNonNull(clock, "clock");
    }

    void addTo(Routes routes) {
        routes.group("pipelines")
                .post(
                        "/pipelines/{pipeline_id}/webhook",
                        "Start a run from a call signed with the pipeline's webhook secret (Standard Webhooks; no "
                                + "token): the JSON body is the run's event",
                        this::call)
                .body(Schema.mapOf(Schema.any()))
                .header(WEBHOOK_ID, WEBHOOK_TIMESTAMP, WEBHOOK_SIGNATURE)
                .accepted(ApiShapes.WEBHOOK_CALL)
                .post(
                        "/pipelines/{pipeline_id}/webhook-secret",
                        "Make the pipeline's webhook secret, or rotate it: the new secret is shown once, and the one"
                                + " it replaces stays valid for grace_seconds",
                        this::rotate)
                .body(ROTATION.schema())
                .ok(ApiShapes.WEBHOOK_WITH_SECRET)
                .get(
                        "/pipelines/{pipeline_id}/webhook-secret",
                        "The pipeline's webhook: its URL and whether it has a secret (never the secret)",
                        this::read)
                .ok(ApiShapes.WEBHOOK)
                .delete(
                        "/pipelines/{pipeline_id}/webhook-secret",
                        "End every secret of the pipeline's webhook: it takes no calls until a new one is made",
                        this::remove)
                .ok(ApiShapes.WEBHOOK);
    }

    private void rotate(Context ctx) {
        Access.requireAdmin(ctx);
        String pipelineId = find(ctx).id();
        ObjectNode body = Requests.body(ctx).length == 0 ? Json.object() : Requests.jsonObject(ctx);
        BodyReader reader = ROTATION.reader(body);
        Problems problems = reader.problems();
        long grace = GRACE_SECONDS.read(reader).orElse(DEFAULT_GRACE_SECONDS);
        problems.throwIfAny();
        String secret = secrets.rotate(pipelineId, grace * 1000);
        Responses.ok(ctx, reply(secrets.state(pipelineId), Optional.of(secret)));
    }

    private void read(Context ctx) {
        Access.requireAdmin(ctx);
        Responses.ok(ctx, reply(secrets.state(find(ctx).id()), Optional.empty()));
    }

    private void remove(Context ctx) {
        Access.requireAdmin(ctx);
        String pipelineId = find(ctx).id();
        secrets.remove(pipelineId);
        Responses.ok(ctx, reply(secrets.state(pipelineId), Optional.empty()));
    }

    /**
     * A signed call: verified before its body is read as anything but bytes, then a run started for its
     * {@code webhook-id} once (a repeat answers the run the first call started).
     */
    private void call(Context ctx) {
        PipelineStore.Stored pipeline = find(ctx);
        byte[] body = Requests.body(ctx);
        String webhookId = verified(ctx, pipeline.id(), body);
        if (pipeline.paused()) {
            throw RunControl.pipelinePaused(pipeline.id());
        }
        ObjectNode event = body.length == 0 ? Json.object() : Json.parseObject(body);
        PipelineDefinition definition = PipelineDefinition.stored(pipeline.definition(), catalog);
        var problems = new Problems();
        // the body is the event and nothing else: the run's params are the pipeline's defaults
        ObjectNode params = definition.runParams(MissingNode.getInstance(), problems);
        problems.throwIfAny();
        ObjectNode trigger = Json.object().put("type", "webhook").put("webhook_id", webhookId);
        trigger.set("event", event);
        Optional<String> started = engine.start(
                        pipeline,
                        params,
                        trigger,
                        definition.timeoutSeconds(),
                        OptionalInt.empty(),
                        Optional.of(new RunStore.WebhookCall(webhookId)))
                .map(RunStore.Run::id);
        String runId = started.or(() -> runs.webhookRun(pipeline.id(), webhookId))
                .orElseThrow(() -> new IllegalStateException("a repeated webhook call without its run"));
        ctx.header("location", "/runs/" + runId);
        Responses.json(
                ctx, 202, new PipelineReplies.WebhookCallReply(pipeline.id(), webhookId, runId, started.isEmpty()));
    }

    /** The call's {@code webhook-id} once its signature holds; 401 {@code invalid_signature} saying why otherwise. */
    private String verified(Context ctx, String pipelineId, byte[] body) {
        for (HeaderParam header : List.of(WEBHOOK_ID, WEBHOOK_TIMESTAMP, WEBHOOK_SIGNATURE)) {
            if (header.read(ctx).isEmpty()) {
                throw refused(
                        header.name(),
                        "Sign the call the Standard Webhooks way: the `webhook-id`, `webhook-timestamp` and "
                                + "`webhook-signature` headers are required; `" + header.name() + "` is missing.");
            }
        }
        String webhookId = WEBHOOK_ID.read(ctx).orElseThrow();
        if (webhookId.length() > MAX_WEBHOOK_ID) {
            throw ApiException.of(
                    ErrorCode.INVALID_PARAMETER,
                    WEBHOOK_ID.name(),
                    "`webhook-id` must be at most " + MAX_WEBHOOK_ID + " characters.");
        }
        String timestamp = WEBHOOK_TIMESTAMP.read(ctx).orElseThrow();
        OptionalLong seconds = unixSeconds(timestamp);
        if (seconds.isEmpty()) {
            throw refused(WEBHOOK_TIMESTAMP.name(), "`webhook-timestamp` must be a time in unix seconds.");
        }
        long offset = Math.abs(clock.millis() / 1000 - seconds.getAsLong());
        if (offset > TOLERANCE.toSeconds()) {
            throw refused(
                    WEBHOOK_TIMESTAMP.name(),
                    "`webhook-timestamp` is more than " + TOLERANCE.toMinutes() + " minutes from the server's time: "
                            + "sign each call when it is sent (a stale call may be a replay).");
        }
        List<byte[]> sent =
                StandardWebhookSignature.candidates(WEBHOOK_SIGNATURE.read(ctx).orElseThrow());
        List<String> valid = secrets.valid(pipelineId);
        if (valid.isEmpty()) {
            throw refused(
                    WEBHOOK_SIGNATURE.name(),
                    "Pipeline " + pipelineId + " has no webhook secret, so no call can be verified: an admin makes "
                            + "one with POST /pipelines/" + pipelineId + "/webhook-secret.");
        }
        for (String secret : valid) {
            Optional<byte[]> key = StandardWebhookSignature.key(secret);
            if (key.isEmpty()) {
                continue;
            }
            byte[] expected = StandardWebhookSignature.signature(key.get(), webhookId, timestamp, body);
            if (sent.stream().anyMatch(candidate -> MessageDigest.isEqual(candidate, expected))) {
                return webhookId;
            }
        }
        throw refused(
                WEBHOOK_SIGNATURE.name(),
                "`webhook-signature` holds no `v1,` signature of this call made with the pipeline's webhook secret.");
    }

    private static OptionalLong unixSeconds(String text) {
        if (text.isEmpty() || text.length() > 12 || !text.chars().allMatch(Character::isDigit)) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(Long.parseLong(text));
    }

    private static ApiException refused(String header, String message) {
        return ApiException.of(ErrorCode.INVALID_SIGNATURE, header, message);
    }

    private PipelineStore.Stored find(Context ctx) {
        return pipelines.require(ctx.pathParam("pipeline_id"));
    }

    private PipelineReplies.WebhookReply reply(WebhookSecretStore.State state, Optional<String> secret) {
        return new PipelineReplies.WebhookReply(
                "pipeline.webhook",
                state.pipelineId(),
                publicUrl.get() + "/pipelines/" + state.pipelineId() + "/webhook",
                state.enabled(),
                seconds(state.secretCreatedAt()),
                seconds(state.previousRetiresAt()),
                secret.orElse(null));
    }

    private static @Nullable Long seconds(OptionalLong millis) {
        return millis.isPresent() ? millis.getAsLong() / 1000 : null;
    }
}
