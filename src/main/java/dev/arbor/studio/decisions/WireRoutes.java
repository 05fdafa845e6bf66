package dev.arbor.studio.decisions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.errors.WarningCode;
import dev.arbor.platform.http.HeaderParam;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.idempotency.Idempotency;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.Metadata;
import dev.arbor.studio.definitions.TemplateDefinition;
import dev.arbor.studio.definitions.TemplateQuestion;
import dev.arbor.studio.history.Decided;
import dev.arbor.studio.history.StoreLevel;
import dev.arbor.studio.planning.DecisionRequest;
import dev.arbor.studio.planning.MediaInput;
import dev.arbor.studio.planning.Plan;
import dev.arbor.studio.planning.Planner;
import dev.arbor.studio.questions.AnswerCodec;
import dev.arbor.studio.questions.Question;
import dev.arbor.studio.running.DecisionService;
import dev.arbor.studio.running.DeployedModels;
import dev.arbor.studio.running.Source;
import dev.arbor.studio.templates.Templates;
import io.javalin.http.Context;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The single-request wire format, {@code POST /v1/decide}: {@code {model, state, questions, media?, settings?}}
 * in, {@code {model, answers, usage}} out, for clients that want one call and no studio. It runs the studio's
 * pipeline and is recorded in history like any decision, but history never changes its answer: the body is the
 * same byte for byte whether or not it was stored, and what the studio would refuse ({@code store},
 * {@code metadata}) is ignored with a warning in {@code x-studio-warning}.
 */
final class WireRoutes {
    static final String PATH = "/v1/decide";
    private static final Set<String> GATE_FIELDS = Set.of("certainty", "act", "origin", "dynamic_options");

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
        ObjectNode sent = Requests.jsonObject(ctx);
        var warnings = new LinkedHashSet<String>();
        ObjectNode body = Json.object();
        var problems = new Problems();
        JsonNode model = sent.get("model");
        if (model == null || model.isNull()) {
            problems.add(ErrorCode.MISSING_FIELD, "model", "`model` is required: a model id.");
        } else {
            body.set("model", model);
        }
        if (sent.get("state") == null || sent.get("state").isNull()) {
            problems.add(ErrorCode.MISSING_FIELD, "state", "`state` is required: the situation to decide about.");
        }
        if (sent.get("questions") == null || sent.get("questions").isNull()) {
            problems.add(ErrorCode.MISSING_FIELD, "questions", "`questions` is required.");
        }
        problems.throwIfAny();
        // a running deployment answers from its replicas, the decision planned for the model it serves
        DeployedModels.Admission admission =
                model.isTextual() ? deployed.admit(ctx, model.textValue()) : new DeployedModels.NoDeployment();
        if (admission instanceof DeployedModels.AnsweredElsewhere) {
            return; // the server that runs the deployment's replicas decided, and its answer is the caller's
        }
        Optional<DeployedModels.Deployed> deployment =
                admission instanceof DeployedModels.Deployed here ? Optional.of(here) : Optional.empty();
        deployment.ifPresent(d -> body.put("model", d.modelId()));
        body.set("state", sent.get("state"));
        body.set("questions", sent.get("questions"));
        if (sent.has("media")) {
            body.set("media", sent.get("media"));
        }
        settings(sent.get("settings")).ifPresent(settings -> body.set("settings", settings));
        store(ctx, sent, warnings).ifPresent(level -> body.put("store", level.wire()));
        metadata(ctx, sent, warnings).ifPresent(metadata -> body.set("metadata", metadata));

        Plan plan = decisions.plan(DecisionRequest.parse(body), Planner.Purpose.RUN);
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
        ObjectNode answer = answer(outcome.decision());
        if (deployment.isPresent()) {
            answer.set("model", model); // as the caller named it: the deployment
        }
        Responses.ok(ctx, answer);
    }

    /** The wire answer of a decision: its model, its answers without the studio's gate, and usage. */
    static ObjectNode answer(Decided decision) {
        ObjectNode out = Json.object();
        out.put("model", decision.model().orElse(null));
        ObjectNode answers = out.putObject("answers");
        decision.answered().map(Decided.Answered::answers).orElse(Map.of()).forEach((key, given) -> {
            ObjectNode answer = AnswerCodec.write(given);
            answer.remove(GATE_FIELDS);
            answers.set(key, answer);
        });
        ObjectNode usage = out.putObject("usage");
        usage.put("input_tokens", decision.inputTokens());
        usage.put("output_tokens", 0);
        return out;
    }

    /** {@code temperature}, and {@code act_threshold} for the stored gate when it is in range; the rest ignored. */
    private static Optional<ObjectNode> settings(JsonNode sent) {
        if (sent == null || !sent.isObject()) {
            return Optional.empty();
        }
        ObjectNode settings = Json.object();
        if (sent.has("temperature")) {
            settings.set("temperature", sent.get("temperature"));
        }
        JsonNode act = sent.path("act_threshold");
        if (act.isNumber() && act.doubleValue() > 0 && act.doubleValue() <= 1) {
            settings.set("act_threshold", act);
        }
        return Optional.of(settings);
    }

    /** The more private of the body's {@code store} and {@code X-Studio-Store}; unusable values are ignored. */
    private static Optional<StoreLevel> store(Context ctx, ObjectNode sent, Set<String> warnings) {
        Optional<StoreLevel> level = Optional.empty();
        for (JsonNode value : new JsonNode[] {sent.get("store"), header(ctx.header("x-studio-store"))}) {
            if (value == null || value.isNull()) {
                continue;
            }
            Optional<StoreLevel> parsed = StoreLevel.parse(value);
            if (parsed.isEmpty()) {
                warnings.add(WarningCode.STORE_IGNORED.code());
            } else {
                level = Optional.of(level.map(l -> l.mostPrivate(parsed.get())).orElse(parsed.get()));
            }
        }
        return level;
    }

    /** The body's {@code metadata} over {@code X-Studio-Metadata} ({@code k=v; k2=v2}); unusable ones ignored. */
    private static Optional<ObjectNode> metadata(Context ctx, ObjectNode sent, Set<String> warnings) {
        ObjectNode merged = Json.object();
        String header = ctx.header("x-studio-metadata");
        if (header != null && !header.isBlank()) {
            ObjectNode fromHeader = Json.object();
            boolean ok = true;
            for (String pair : header.split(";")) {
                int eq = pair.indexOf('=');
                if (eq <= 0) {
                    ok = false;
                    break;
                }
                try {
                    fromHeader.put(
                            pair.substring(0, eq).trim(),
                            URLDecoder.decode(pair.substring(eq + 1).trim(), StandardCharsets.UTF_8));
                } catch (IllegalArgumentException e) {
                    ok = false;
                    break;
                }
            }
            if (ok && Metadata.check(fromHeader, "metadata", new Problems()).isPresent()) {
                merged.setAll(fromHeader);
            } else {
                warnings.add(WarningCode.METADATA_IGNORED.code());
            }
        }
        JsonNode body = sent.get("metadata");
        if (body != null && !body.isNull()) {
            if (Metadata.check(body, "metadata", new Problems()).isPresent()) {
                merged.setAll((ObjectNode) body);
            } else {
                warnings.add(WarningCode.METADATA_IGNORED.code());
            }
        }
        if (merged.isEmpty()) {
            return Optional.empty();
        }
        if (Metadata.check(merged, "metadata", new Problems()).isEmpty()) {
            warnings.add(WarningCode.METADATA_IGNORED.code());
            return Optional.empty();
        }
        return Optional.of(merged);
    }

    private static @Nullable JsonNode header(@Nullable String value) {
        return value == null ? null : Json.mapper().valueToTree(value);
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
