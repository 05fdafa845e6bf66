package dev.arbor.studio.decisions;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.WarningCode;
import dev.arbor.platform.http.HeaderParam;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.idempotency.Idempotency;
import dev.arbor.studio.definitions.TemplateDefinition;
import dev.arbor.studio.definitions.TemplateQuestion;
import dev.arbor.studio.history.StoreLevel;
import dev.arbor.studio.planning.MediaInput;
import dev.arbor.studio.planning.Plan;
import dev.arbor.studio.planning.Planner;
import dev.arbor.studio.questions.Question;
import dev.arbor.studio.running.DecisionService;
import dev.arbor.studio.running.DeployedModels;
import dev.arbor.studio.running.Source;
import dev.arbor.studio.templates.Templates;
import io.javalin.http.Context;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;

/**
 * The single-request wire format, {@code POST /v1/decide}: {@code {model, state, questions, media?, settings?}}
 * in, {@code {model, answers, usage}} out, for clients that want one call and no studio. It runs the studio's
 * pipeline and is recorded in history like any decision, but history never changes its answer: the body is the
 * same byte for byte whether or not it was stored, and what the studio would refuse ({@code store},
 * {@code metadata}) is ignored with a warning in {@code x-studio-warning}.
 */
final class WireRoutes {
    static final String PATH = "/v1/decide";

    private final DecisionService decisions;
    private final Templates templates;
    private final DeployedModels deployed;

    WireRoutes(DecisionService decisions, Templates templates, DeployedModels deployed) {
        this.decisions = requireNonNull(decisions, "decisions");
        this.templates = requireNonNull(templates, "templates");
        this.deployed = requireNonNull(deployed, "deployed");
    }

    void addTo(Routes routes) {
        routes.group("studio.wire")
                .databaseUnavailableAs(ErrorCode.HISTORY_UNAVAILABLE)
                .postWithFiles(
                        PATH,
                        "Decide in one request: {model, state, questions} in, answers out",
                        MediaInput.MAX_BODY_BYTES,
                        this::decide)
                .body(DecisionShapes.DECIDE_REQUEST)
                .header(deployed.headers().toArray(HeaderParam[]::new))
                .ok(DecisionShapes.DECIDE_ANSWER);
    }

    private void decide(Context ctx) {
        WireRequest request = WireRequest.read(
                Requests.jsonObject(ctx), ctx.header("x-studio-store"), ctx.header("x-studio-metadata"));
        var warnings = new LinkedHashSet<>(request.warnings());
        // a running deployment answers from its replicas, the decision planned for the model it serves
        DeployedModels.Admission admission =
                request.modelName().map(name -> deployed.admit(ctx, name)).orElseGet(DeployedModels.NoDeployment::new);
        if (admission instanceof DeployedModels.AnsweredElsewhere) {
            return; // the server that runs the deployment's replicas decided, and its answer is the caller's
        }
        Optional<DeployedModels.Deployed> deployment =
                admission instanceof DeployedModels.Deployed here ? Optional.of(here) : Optional.empty();
        Plan plan = decisions.plan(
                request.decisionRequest(deployment.map(DeployedModels.Deployed::modelId)), Planner.Purpose.RUN);
        String templateHeader = ctx.header("x-studio-template");
        if (templateHeader != null) {
            Optional<Plan> attributed = attribute(plan, templateHeader.trim());
            ctx.header("x-studio-template-status", attributed.isPresent() ? "attributed" : "mismatch");
            if (attributed.isPresent()) {
                plan = attributed.get();
            } else {
                warnings.add(WarningCode.TEMPLATE_MISMATCH.code());
            }
        }
        var source = new Source("wire", PATH, Requests.id(ctx), "header", Optional.empty());
        DecisionService.Outcome outcome = decisions.decide(
                plan, source, Requests.startedNanos(ctx), deployment.map(DeployedModels.Deployed::replicas));
        ctx.header("x-studio-stored", outcome.stored().wire());
        if (plan.store() == StoreLevel.NONE) {
            Idempotency.keepInMemoryOnly(ctx);
        }
        outcome.decisionId().ifPresent(id -> ctx.header("x-studio-decision-id", id));
        outcome.decision().warnings().stream()
                .filter(w -> w.code() != WarningCode.STORE_DOWNGRADED)
                .forEach(w -> warnings.add(w.code().code()));
        if (!warnings.isEmpty()) {
            ctx.header("x-studio-warning", String.join(",", warnings));
        }
        WireAnswer answer = WireAnswer.of(outcome.decision());
        // a deployment's answer names the model as the caller named it: the deployment
        Responses.ok(ctx, deployment.isPresent() ? answer.namedAs(request.model()) : answer);
    }

    /**
     * The plan credited to a template version when the request asks every question of that version exactly as it
     * defines them (and the version fills nothing from variables); otherwise nothing, and the call is recorded
     * without a template.
     */
    private Optional<Plan> attribute(Plan plan, String reference) {
        Templates.Resolved template;
        try {
            template = templates.resolve(reference);
        } catch (ApiException e) {
            return Optional.empty();
        }
        TemplateDefinition definition = template.definition();
        if (definition.declaresVariables()) {
            return Optional.empty();
        }
        Map<String, TemplateQuestion> versionQuestions = definition.questions();
        for (var entry : versionQuestions.entrySet()) {
            Optional<Question> asked = plan.questions().stream()
                    .filter(q -> q.key().equals(entry.getKey()))
                    .findFirst();
            if (asked.isEmpty()
                    || !asked.get().definition().json().equals(entry.getValue().normal())) {
                return Optional.empty();
            }
        }
        var questions = plan.questions().stream()
                .map(q -> new Question(
                        q.key(),
                        q.definition(),
                        versionQuestions.containsKey(q.key()) ? Question.Origin.TEMPLATE : Question.Origin.EXTRA,
                        false))
                .toList();
        return Optional.of(plan.attributedTo(template, questions));
    }
}
