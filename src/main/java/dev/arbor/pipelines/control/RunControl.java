package dev.arbor.pipelines.control;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.access.Principal;
import dev.arbor.pipelines.definitions.PipelineDefinition;
import dev.arbor.pipelines.runs.RunEngine;
import dev.arbor.pipelines.runs.RunnablePipelines;
import dev.arbor.pipelines.runs.store.ApprovalStore;
import dev.arbor.pipelines.runs.store.RunStore;
import dev.arbor.pipelines.runs.store.RunStore.Run;
import dev.arbor.pipelines.runs.store.RunStore.RunStatus;
import dev.arbor.platform.actions.ActionCatalog;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.json.Json;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What the run routes ask of runs, with the API's answers: a manual start checked against its pipeline, and the
 * changes a person makes to a run (cancel, retry), each refused with its code when the run's state does not allow it.
 */
public final class RunControl {
    private final RunnablePipelines pipelines;
    private final RunStore runs;
    private final RunEngine engine;
    private final ActionCatalog catalog;

    RunControl(RunnablePipelines pipelines, RunStore runs, RunEngine engine, ActionCatalog catalog) {
        this.pipelines = requireNonNull(pipelines, "pipelines");
        this.runs = requireNonNull(runs, "runs");
        this.engine = requireNonNull(engine, "engine");
        this.catalog = requireNonNull(catalog, "catalog");
    }

    /**
     * Starts a run by hand: {@code params} checked against the pipeline's parameters (problems at
     * {@code params.<name>}, added to those the body's reading found), the pipeline's own timeout unless one is given.
     */
    Run start(
            String pipelineId,
            Optional<JsonNode> params,
            Optional<Long> timeoutSeconds,
            Optional<Long> priority,
            Problems problems) {
        RunnablePipelines.Pipeline pipeline = pipelines.require(pipelineId);
        if (pipeline.paused()) {
            throw pipelinePaused(pipelineId);
        }
        PipelineDefinition definition = PipelineDefinition.stored(pipeline.definition(), catalog);
        ObjectNode checked = definition.runParams(params.orElse(MissingNode.getInstance()), problems);
        problems.throwIfAny();
        ObjectNode trigger = Json.object().put("type", "manual");
        trigger.putObject("event").put("type", "manual");
        int timeout = timeoutSeconds.map(Long::intValue).orElse(definition.timeoutSeconds());
        OptionalInt ordered = priority.map(p -> OptionalInt.of(p.intValue())).orElse(OptionalInt.empty());
        return engine.start(pipeline, checked, trigger, timeout, ordered, Optional.empty())
                .orElseThrow();
    }

    /** A run with its steps, or 404 {@code run_not_found}. */
    RunReply get(String runId) {
        return reply(require(runId));
    }

    RunReply reply(Run run) {
        return RunReply.of(run, PipelineDefinition.stored(run.definition(), catalog));
    }

    /** The status a list of runs is filtered by, or 400 {@code invalid_parameter} at {@code status}. */
    static Optional<RunStatus> statusFilter(Optional<String> text) {
        return text.map(given -> Arrays.stream(RunStatus.values())
                .filter(status -> status.json().equals(given.toLowerCase(Locale.ROOT)))
                .findFirst()
                .orElseThrow(() -> ApiException.of(
                        ErrorCode.INVALID_PARAMETER,
                        "status",
                        "`status` must be one of "
                                + Arrays.stream(RunStatus.values())
                                        .map(RunStatus::json)
                                        .collect(Collectors.joining(", "))
                                + ".")));
    }

    RunReply cancel(String runId) {
        Run run = require(runId);
        try {
            return reply(engine.cancel(run.id()));
        } catch (RunEngine.RunStateException e) {
            throw finished(run.id(), e.status(), "cancelled");
        }
    }

    RunReply retry(String runId) {
        Run run = require(runId);
        try {
            return reply(engine.retry(run.id()));
        } catch (RunEngine.RunStateException e) {
            throw ApiException.of(
                    ErrorCode.RUN_NOT_FAILED,
                    "run_id",
                    "Run " + run.id() + " is " + e.status().json() + "; only a failed run can be retried.");
        }
    }

    /** A paused pipeline's refusal of a new run. */
    public static ApiException pipelinePaused(String pipelineId) {
        return ApiException.of(
                ErrorCode.PIPELINE_PAUSED,
                "pipeline_id",
                "Pipeline " + pipelineId + " is paused: no new run of it starts until it is resumed (POST /pipelines/"
                        + pipelineId + "/resume).");
    }

    RunReply pause(String runId) {
        Run run = require(runId);
        try {
            return reply(engine.pause(run.id()));
        } catch (RunEngine.RunStateException e) {
            throw finished(run.id(), e.status(), "paused");
        }
    }

    RunReply resume(String runId) {
        Run run = require(runId);
        try {
            return reply(engine.resume(run.id()));
        } catch (RunEngine.RunStateException e) {
            throw finished(run.id(), e.status(), "resumed");
        }
    }

    private static ApiException finished(String runId, RunStatus status, String change) {
        return ApiException.of(
                ErrorCode.RUN_FINISHED,
                "run_id",
                "Run " + runId + " has finished (" + status.json() + "); only a queued, running or paused run can be "
                        + change + ".");
    }

    /**
     * Answers an approval step for {@code caller}: 404 {@code approval_not_found} when the step asks nothing, 403
     * {@code approval_forbidden} (recorded in the run's events) when the caller is not an approver, 409
     * {@code approval_answered} when someone (or the timeout) answered first, 409 {@code run_finished} when the run
     * has ended.
     */
    ApprovalReply answer(
            String runId, String stepId, ApprovalStore.Status decision, Principal caller, Optional<String> comment) {
        Run run = require(runId);
        return switch (engine.answer(run.id(), stepId, decision, caller, comment)) {
            case RunEngine.Answer.Decided decided ->
                ApprovalReply.of(engine.approvals()
                        .find(run.id(), stepId, decided.approval().generation())
                        .orElseThrow());
            case RunEngine.Answer.NoQuestion none ->
                throw ApiException.of(
                        ErrorCode.APPROVAL_NOT_FOUND,
                        "step_id",
                        "Step '" + stepId + "' of run " + run.id() + " asks no approval (it is not an approval step, "
                                + "or the run has not reached it).");
            case RunEngine.Answer.NotAnApprover refused ->
                throw ApiException.of(
                        ErrorCode.APPROVAL_FORBIDDEN,
                        "step_id",
                        "Token " + caller.tokenId() + " is not one of the approvers of step '" + stepId + "' of run "
                                + run.id() + "; the attempt is recorded in the run's events.");
            case RunEngine.Answer.AnsweredAlready answered ->
                throw ApiException.of(
                        ErrorCode.APPROVAL_ANSWERED,
                        "step_id",
                        "Step '" + stepId + "' of run " + run.id() + " was answered already: "
                                + answered.approval().status().json() + " by "
                                + answered.approval().decidedBy().orElse("?") + ".");
            case RunEngine.Answer.RunEnded ended -> throw finished(run.id(), ended.status(), "answered");
        };
    }

    /** How many questions {@link #approvals} looks through for the caller's. */
    private static final int APPROVALS_SCANNED = 1_000;

    /** The questions in {@code status} that {@code caller} may answer (or has been asked), oldest first. */
    List<ApprovalReply> approvals(ApprovalStore.Status status, Principal caller, int limit) {
        return engine.approvals().list(status, APPROVALS_SCANNED).stream()
                .filter(approval -> approval.answerableBy(caller))
                .limit(limit)
                .map(ApprovalReply::of)
                .toList();
    }

    /** A pipeline as a run ran it: its definition at a version. */
    private record AtVersion(String id, int version, ObjectNode definition, boolean paused)
            implements RunnablePipelines.Pipeline {}

    /**
     * Starts a new run replaying an ended one from {@code fromStep} (by default its first failed step, or its first
     * step): that step and every step after it (depending on it, however far) run again; the other steps that
     * completed keep their outputs. On the run's own definition and version unless {@code latest}, with its params
     * unless {@code params} are given (checked as a run's own). The run replayed is not changed.
     */
    Run replay(String runId, Optional<String> fromStep, Optional<JsonNode> params, boolean latest, Problems problems) {
        Run old = require(runId);
        if (old.status().active()) {
            throw ApiException.of(
                    ErrorCode.RUN_NOT_FINISHED,
                    "run_id",
                    "Run " + old.id() + " is " + old.status().json() + "; only an ended run can be replayed (cancel it"
                            + " first, or wait for it to end).");
        }
        RunnablePipelines.Pipeline current = pipelines.require(old.pipelineId());
        if (current.paused()) {
            throw pipelinePaused(current.id());
        }
        RunnablePipelines.Pipeline pipeline = latest
                ? current
                : new AtVersion(old.pipelineId(), old.pipelineVersion(), old.definition(), current.paused());
        PipelineDefinition definition = PipelineDefinition.stored(pipeline.definition(), catalog);
        String from = fromStep.orElseGet(() -> old.steps().stream()
                .filter(step -> step.status() == RunStore.StepStatus.FAILED)
                .map(RunStore.StepRun::id)
                .findFirst()
                .orElse(definition.steps().getFirst().id()));
        if (definition.steps().stream().noneMatch(step -> step.id().equals(from))) {
            throw ApiException.of(
                    ErrorCode.REPLAY_STEP_NOT_FOUND,
                    "from_step",
                    "Version " + pipeline.version() + " of pipeline " + pipeline.id() + " has no step '" + from
                            + "'; its steps: "
                            + definition.steps().stream()
                                    .map(PipelineDefinition.Step::id)
                                    .collect(Collectors.joining(", "))
                            + ".");
        }
        ObjectNode checked = params.isPresent() ? definition.runParams(params.get(), problems) : old.params();
        problems.throwIfAny();
        Set<String> again = downstream(definition, from);
        Set<String> reused = old.steps().stream()
                .filter(step -> step.status() == RunStore.StepStatus.COMPLETED && !again.contains(step.id()))
                .map(RunStore.StepRun::id)
                .filter(id ->
                        definition.steps().stream().anyMatch(step -> step.id().equals(id)))
                .collect(Collectors.toSet());
        ObjectNode trigger =
                Json.object().put("type", "replay").put("replay_of", old.id()).put("from_step", from);
        trigger.set(
                "event", old.trigger().path("event").isObject() ? old.trigger().path("event") : Json.object());
        return engine.replay(old, pipeline, definition, checked, trigger, reused);
    }

    /** How many runs one bulk replay replays at most. */
    static final int BULK_REPLAYS = 100;

    /**
     * Replays each run of a pipeline in {@code status} (an ended one) created at or after {@code sinceSeconds} that no
     * run replays yet, oldest first, each from its default step: at most {@link #BULK_REPLAYS}.
     */
    List<Run> replayAll(String pipelineId, RunStatus status, long sinceSeconds) {
        RunnablePipelines.Pipeline pipeline = pipelines.require(pipelineId);
        if (pipeline.paused()) {
            throw pipelinePaused(pipelineId);
        }
        if (status.active()) {
            throw ApiException.of(
                    ErrorCode.INVALID_FIELD,
                    "status",
                    "`status` must be failed, cancelled or completed: only an ended run can be replayed.");
        }
        return runs.unreplayed(pipelineId, status, sinceSeconds * 1000, BULK_REPLAYS).stream()
                .map(id -> replay(id, Optional.empty(), Optional.empty(), false, new Problems()))
                .toList();
    }

    /** {@code from} and every step that depends on it, however far down. */
    private static Set<String> downstream(PipelineDefinition definition, String from) {
        var found = new HashSet<String>(Set.of(from));
        boolean grew = true;
        while (grew) {
            grew = false;
            for (PipelineDefinition.Step step : definition.steps()) {
                if (!found.contains(step.id()) && step.dependsOn().stream().anyMatch(found::contains)) {
                    found.add(step.id());
                    grew = true;
                }
            }
        }
        return found;
    }

    Run require(String runId) {
        return runs.find(runId)
                .orElseThrow(
                        () -> ApiException.of(ErrorCode.RUN_NOT_FOUND, "run_id", "There is no run '" + runId + "'."));
    }
}
