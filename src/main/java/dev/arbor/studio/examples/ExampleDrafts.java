package dev.arbor.studio.examples;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problem;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodyReader;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.secrets.Digests;
import dev.arbor.studio.definitions.Substitution;
import dev.arbor.studio.definitions.TemplateDefinition;
import dev.arbor.studio.definitions.TemplateQuestion;
import dev.arbor.studio.feedback.FeedbackStore;
import dev.arbor.studio.files.StudioFile;
import dev.arbor.studio.files.StudioFiles;
import dev.arbor.studio.history.DecisionInput;
import dev.arbor.studio.history.DecisionView;
import dev.arbor.studio.history.HistoryStore;
import dev.arbor.studio.history.StoredDecision;
import dev.arbor.studio.planning.DecisionRequest;
import dev.arbor.studio.planning.MediaInput;
import dev.arbor.studio.questions.Labels;
import dev.arbor.studio.questions.Question;
import dev.arbor.studio.templates.Templates;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Reads an example's body into a checked draft: its input (variables or state, media kept for good), its labels
 * checked against the template's questions, tags, split and note, or all of these taken from a stored decision.
 */
final class ExampleDrafts {
    private static final BodyField.Word<String> SPLIT =
            BodyField.word(OPTIONAL, "split", List.of("test", "calibration"), Function.identity());
    private static final BodyField.Worded<String> NOTE =
            BodyField.text(OPTIONAL, "note", 2000).refusedAs("must be text of at most 2000 characters");
    private static final Set<String> FIELDS =
            Set.of("variables", "state", "media", "expected", "tags", "split", "note", "from_decision");

    private final HistoryStore decisions;
    private final FeedbackStore feedback;
    private final StudioFiles files;
    private final byte[] hmacKey;

    ExampleDrafts(HistoryStore decisions, FeedbackStore feedback, StudioFiles files, byte[] hmacKey) {
        this.decisions = requireNonNull(decisions, "decisions");
        this.feedback = requireNonNull(feedback, "feedback");
        this.files = requireNonNull(files, "files");
        this.hmacKey = requireNonNull(hmacKey, "hmacKey").clone();
    }

    /** A checked example, ready to store. */
    record Draft(
            ObjectNode input,
            String inputHash,
            ObjectNode expected,
            List<String> tags,
            String split,
            Optional<String> note,
            Optional<String> fromDecision) {
        /** This draft as a stored row. */
        ExampleStore.Row row(String id, String templateId, int revision, long createdAtMillis, long updatedAtMillis) {
            return new ExampleStore.Row(
                    id,
                    templateId,
                    revision,
                    input,
                    inputHash,
                    expected,
                    tags,
                    split,
                    note,
                    fromDecision,
                    createdAtMillis,
                    updatedAtMillis);
        }

        Draft withFromDecision(Optional<String> decision) {
            return new Draft(input, inputHash, expected, tags, split, note, decision);
        }
    }

    /**
     * Checks an example body against the template's latest version; every problem of the pass at once, with
     * params under {@code prefix} (an import's {@code examples[i]}).
     */
    Optional<Draft> draft(Templates.Resolved template, ObjectNode body, Optional<String> prefix) {
        BodyReader reader = BodyReader.of(body);
        Problems problems = reader.problems().unknownFields(body, FIELDS, null, "a test example");
        ObjectNode source = body.deepCopy();
        ObjectNode expected = Json.object();
        Optional<String> fromDecision = Optional.empty();
        if (body.hasNonNull("from_decision")) {
            fromDecision = Optional.of(body.get("from_decision").asText());
            fromDecision(template, fromDecision.get(), source, expected, problems);
        }
        if (body.path("expected").isObject()) {
            body.get("expected").properties().forEach(e -> expected.set(e.getKey(), e.getValue()));
        } else if (body.hasNonNull("expected")) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    "expected",
                    "`expected` must be an object of question key to the " + "right answer.");
        }
        TemplateDefinition definition = template.definition();
        ObjectNode input = Json.object();
        boolean declaresVariables = definition.declaresVariables();
        if (declaresVariables) {
            if (source.hasNonNull("state")) {
                problems.add(
                        ErrorCode.STATE_NOT_ALLOWED,
                        "state",
                        "Template '" + template.id() + "' builds the "
                                + "situation from its variables; send `variables`.");
            }
            Substitution.check(
                            definition,
                            source.path("variables").isMissingNode() ? null : source.get("variables"),
                            hmacKey,
                            problems)
                    .ifPresent(filled -> filled.media().forEach(item -> MediaInput.fromVariable(item, problems)));
            input.set("variables", source.path("variables").isObject() ? source.get("variables") : Json.object());
            input.putNull("state");
        } else {
            if (source.hasNonNull("variables")) {
                problems.add(
                        ErrorCode.VARIABLES_NEED_TEMPLATE,
                        "variables",
                        "Template '" + template.id() + "' declares no variables; send the situation as `state`.");
            }
            JsonNode state = source.path("state");
            if (state.isMissingNode() || state.isNull()) {
                problems.add(ErrorCode.STATE_REQUIRED, "state", "`state` is required: the situation to decide about.");
            } else if (!(state.isTextual() || state.isContainerNode())) {
                problems.add(ErrorCode.INVALID_FIELD, "state", "`state` must be text, an object or a list.");
            } else if ((state.isTextual() && state.textValue().isBlank())
                    || (state.isContainerNode() && state.isEmpty())) {
                problems.add(ErrorCode.EMPTY_STATE, "state", "`state` is empty; describe the situation.");
            } else {
                DecisionRequest.stateTooLarge(state)
                        .ifPresent(why -> problems.add(ErrorCode.INVALID_FIELD, "state", "`state` " + why + "."));
            }
            input.putNull("variables");
            input.set("state", state.isMissingNode() ? null : state);
        }
        input.set("media", media(source.get("media"), problems));
        ObjectNode labels = labels(template, expected, problems);
        List<String> tags = tags(body.get("tags"), problems);
        String split = SPLIT.read(reader).orElse("test");
        Optional<String> note = NOTE.read(reader);
        if (!problems.isEmpty()) {
            throw ApiException.of(problems.list().stream()
                    .map(p -> new Problem(
                            p.code(),
                            prefix.map(pre -> p.param() == null ? pre : pre + "." + p.param())
                                    .orElse(p.param()),
                            p.message()))
                    .toList());
        }
        // the same bytes make the same example, whichever file holds them
        ObjectNode identity = input.deepCopy();
        identity.path("media").forEach(item -> ((ObjectNode) item).remove("file_id"));
        String hash = "sha256:" + Digests.sha256Hex(Json.writeString(identity).getBytes(StandardCharsets.UTF_8));
        return Optional.of(new Draft(input, hash, labels, tags, split, note, fromDecision));
    }

    /** Takes the input and labels of a stored decision that kept them whole. */
    private void fromDecision(
            Templates.Resolved template, String decisionId, ObjectNode source, ObjectNode expected, Problems problems) {
        StoredDecision decision = decisions.find(decisionId).orElseThrow(() -> DecisionView.notFound(decisionId));
        DecisionInput input = decision.input()
                .orElseThrow(() -> ApiException.of(
                        ErrorCode.INPUT_UNAVAILABLE,
                        "from_decision",
                        "Decision " + decisionId + " was stored "
                                + decision.storage().wire() + ", so its input was not kept."));
        if (input.isRedacted()
                || !decision.secrets().isEmpty()
                || input.json().toString().contains("\"$redacted\"")) {
            throw ApiException.of(
                    ErrorCode.INPUT_UNAVAILABLE,
                    "from_decision",
                    "Decision " + decisionId + " was "
                            + "redacted or read sensitive values, which history does not keep.");
        }
        if (!input.media().isEmpty()) {
            throw ApiException.of(
                    ErrorCode.INPUT_UNAVAILABLE,
                    "from_decision",
                    "Decision " + decisionId + " read media; send the example with its media instead.");
        }
        boolean sameTemplate = decision.templateId().map(template.id()::equals).orElse(false);
        if (!source.has("variables") && !source.has("state")) {
            if (input.keptVariables().isPresent() && sameTemplate) {
                source.set("variables", input.keptVariables().get());
            } else if (!template.definition().declaresVariables()) {
                source.set("state", input.state());
            } else {
                problems.add(
                        ErrorCode.INVALID_FIELD,
                        "variables",
                        "Decision " + decisionId + " was not made with " + "template '" + template.id()
                                + "'; send the example's `variables`.");
            }
        }
        FeedbackStore.labels(feedback.list(decisionId))
                .properties()
                .forEach(e -> expected.set(e.getKey(), e.getValue().get("expected")));
    }

    /** Media an example keeps for good: uploads by id (which must exist), bytes sent inline as new files. */
    private ArrayNode media(JsonNode sent, Problems problems) {
        ArrayNode items = Json.mapper().createArrayNode();
        if (sent == null || sent.isNull()) {
            return items;
        }
        for (MediaInput item : MediaInput.parse(sent, problems)) {
            StudioFile file;
            if (item.inline()) {
                file = item.keep(files);
            } else {
                Optional<StudioFile> found = files.find(item.reference()).filter(files::available);
                if (found.isEmpty()) {
                    problems.add(
                            ErrorCode.FILE_NOT_FOUND,
                            item.param(),
                            "There is no file " + item.reference() + " with its bytes.");
                    continue;
                }
                if (item.withFile(found.get(), problems).isEmpty()) {
                    continue;
                }
                file = found.get();
                files.hold(List.of(file.id()));
            }
            ObjectNode json = items.addObject();
            json.put("type", file.type());
            json.put("file_id", file.id());
            json.put("content_type", file.contentType());
            json.put("bytes", file.bytes());
            json.put("sha256", "sha256:" + file.sha256());
            json.put("name", item.name().or(file::name).orElse(null));
        }
        return items;
    }

    /** Each label checked against its question in the latest version (options from a variable: as given). */
    private static ObjectNode labels(Templates.Resolved template, ObjectNode expected, Problems problems) {
        ObjectNode labels = Json.object();
        Map<String, TemplateQuestion> questions = template.definition().questions();
        expected.properties().forEach(e -> {
            String param = ParamPath.key("expected", e.getKey());
            TemplateQuestion definition = questions.get(e.getKey());
            if (definition == null) {
                var keys = questions.keySet();
                problems.add(
                        ErrorCode.INVALID_EXPECTED,
                        param,
                        "`" + e.getKey() + "` is not a question of template '" + template.id() + "'."
                                + Templates.didYouMean(e.getKey(), keys));
                return;
            }
            if (definition.optionsVariable().isPresent()) {
                labels.set(e.getKey(), e.getValue());
                return;
            }
            var question = Question.of(e.getKey(), definition.normal(), Question.Origin.TEMPLATE, false);
            switch (Labels.checkAgainst(question, e.getValue())) {
                case Labels.Canonical canonical -> labels.set(e.getKey(), canonical.value());
                case Labels.Unfit unfit ->
                    problems.add(ErrorCode.INVALID_EXPECTED, param, "`" + param + "` " + unfit.why() + ".");
            }
        });
        return labels;
    }

    private static List<String> tags(JsonNode sent, Problems problems) {
        var tags = new ArrayList<String>();
        if (sent == null || sent.isNull()) {
            return tags;
        }
        if (!sent.isArray()) {
            problems.add(ErrorCode.INVALID_FIELD, "tags", "`tags` must be a list of short strings.");
            return tags;
        }
        for (int i = 0; i < sent.size(); i++) {
            JsonNode tag = sent.get(i);
            if (!tag.isTextual() || tag.textValue().isBlank() || tag.textValue().length() > 64) {
                problems.add(ErrorCode.INVALID_FIELD, ParamPath.index("tags", i), "A tag is 1 to 64 characters.");
            } else if (!tags.contains(tag.textValue())) {
                tags.add(tag.textValue());
            }
        }
        return tags;
    }
}
