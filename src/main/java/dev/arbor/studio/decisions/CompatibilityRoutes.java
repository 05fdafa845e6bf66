package dev.arbor.studio.decisions;

import static dev.arbor.platform.http.Schema.mapOf;
import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static dev.arbor.platform.http.bodies.BodyField.Presence.REQUIRED;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.models.Model;
import dev.arbor.models.ModelFacts;
import dev.arbor.models.Models;
import dev.arbor.models.runtime.ModelRuntime;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Warning;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodyReader;
import dev.arbor.platform.http.bodies.BodySpec;
import dev.arbor.studio.questions.Primitives;
import dev.arbor.studio.questions.Question;
import dev.arbor.studio.questions.QuestionShapes;
import dev.arbor.studio.templates.Templates;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;

/**
 * {@code POST /v1/studio/models/compatibility}: which models can answer a set of questions (with media of some
 * types), each with the reasons one cannot — the same checks a decision makes before it loads anything.
 */
final class CompatibilityRoutes {
    private static final BodyField.Value QUESTIONS =
            BodyField.value(REQUIRED, "questions", mapOf(QuestionShapes.QUESTION));
    private static final BodyField.Words MEDIA_TYPES =
            BodyField.words(OPTIONAL, "media_types", List.of("image", "audio", "video"), 3);
    private static final BodySpec BODY = BodySpec.of(QUESTIONS, MEDIA_TYPES);

    private final Models models;
    private final ModelRuntime runtime;

    CompatibilityRoutes(Models models, ModelRuntime runtime) {
        this.models = requireNonNull(models, "models");
        this.runtime = requireNonNull(runtime, "runtime");
    }

    void addTo(Routes routes) {
        routes.group("studio.models")
                .databaseUnavailableAs(ErrorCode.HISTORY_UNAVAILABLE)
                .post("/v1/studio/models/compatibility", "Which models can answer these questions", this::check)
                .body(BODY.schema())
                .ok(DecisionShapes.COMPATIBILITY);
    }

    private void check(Context ctx) {
        BodyReader body = BODY.reader(Requests.jsonObject(ctx));
        Optional<JsonNode> sent = QUESTIONS.read(body);
        Optional<List<String>> media = MEDIA_TYPES.read(body);
        var questions = new ArrayList<Question>();
        sent.ifPresent(field -> Templates.checkQuestions(field, "questions", Optional.empty(), body.problems())
                .properties()
                .forEach(e -> questions.add(Question.of(e.getKey(), e.getValue(), Question.Origin.ADHOC, false))));
        var warnings = body.finish();
        var modalities = new HashSet<>(media.orElse(List.of()));
        ModelFacts.Needs needs = Primitives.needs(Primitives.of(questions), modalities, 0);
        var shown = new ArrayList<ModelFit>();
        for (Model model : models.list()) {
            List<ModelFacts.Problem> problems = model.facts().problems(needs);
            shown.add(new ModelFit(
                    model.id(),
                    model.name(),
                    runtime.status(model.id(), model.status()),
                    problems.isEmpty(),
                    problems));
        }
        Responses.ok(ctx, new Reply(shown, warnings));
    }

    /** What the route answers: each model, whether it can answer, and why not. */
    @JsonPropertyOrder({"object", "models", "warnings"})
    private record Reply(List<ModelFit> models, List<Warning> warnings) {
        @JsonProperty("object")
        String object() {
            return "model.compatibility";
        }
    }

    private record ModelFit(String model, String name, String status, boolean ok, List<ModelFacts.Problem> problems) {}
}
