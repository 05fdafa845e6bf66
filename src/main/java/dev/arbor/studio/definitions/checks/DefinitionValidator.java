package dev.arbor.studio.definitions.checks;

import static dev.arbor.studio.definitions.checks.DefinitionPass.eachString;
import static dev.arbor.studio.definitions.checks.DefinitionPass.isAbsent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.errors.Warning;
import dev.arbor.platform.errors.WarningCode;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.ExtensionPolicy;
import dev.arbor.studio.definitions.Placeholders;
import dev.arbor.studio.definitions.QuestionType;
import dev.arbor.studio.definitions.TemplateDefinition;
import dev.arbor.studio.definitions.Variable;
import dev.arbor.studio.definitions.VariableType;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Checks a template definition and brings it to its normal form, reporting every problem of the pass. The normal
 * form is what is stored, hashed and compared between versions: the seven definition fields in a fixed order, with
 * every default written out. The checks are split by what they check ({@link VariableRules}, {@link QuestionRules},
 * {@link SettingRules}); this class runs them in order, checks the state, and warns of unused variables.
 */
public final class DefinitionValidator {
    static final Pattern VARIABLE_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,63}");
    static final Pattern QUESTION_KEY = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");
    static final int MAX_VARIABLES = 64;
    static final int MAX_QUESTIONS = 128;
    static final int MAX_OPTION_NAME = 200;
    static final int DEFAULT_MAX_EXTRA_QUESTIONS = ExtensionPolicy.DEFAULT_MAX_QUESTIONS;
    static final List<String> MODALITIES = List.of("text", "image", "audio", "video");
    static final Set<String> SETTINGS_KEYS = Set.of("act_threshold", "temperature", "multi_threshold");
    static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final DefinitionPass pass;
    private final VariableRules variableRules;
    private final QuestionRules questionRules;
    private final SettingRules settingRules;

    private DefinitionValidator(DefinitionPass pass) {
        this.pass = pass;
        this.variableRules = new VariableRules(pass);
        this.questionRules = new QuestionRules(pass);
        this.settingRules = new SettingRules(pass);
    }

    /**
     * Checks questions sent with a decision and brings them to the normal form: extra questions may use the
     * template's variables in their text, by the template's rules; questions of a decision without a template
     * (no template) are read literally.
     */
    public static ObjectNode decisionQuestions(
            JsonNode node, String root, Optional<TemplateDefinition> template, Problems problems) {
        var validator = new DefinitionValidator(new DefinitionPass(problems, Set.of(), template.isPresent()));
        template.ifPresent(t -> validator.pass.variables.putAll(t.variables()));
        return validator.questionRules.questions(node, root);
    }

    /**
     * Checks the {@code settings} of a decision: the template's setting rules, without per-model settings.
     *
     * @param questionTypes the type of each question the decision asks, by key
     */
    public static ObjectNode decisionSettings(
            JsonNode node, Map<String, QuestionType> questionTypes, Problems problems) {
        var validator = new DefinitionValidator(new DefinitionPass(problems, Set.of(), true));
        validator.pass.questionTypes.putAll(questionTypes);
        if (node != null && node.isObject() && node.has("models")) {
            validator.pass.invalid("settings.models", "is set per template, not per decision");
            ObjectNode rest = ((ObjectNode) node).deepCopy();
            rest.remove("models");
            return validator.settingRules.settings(rest);
        }
        return validator.settingRules.settings(node);
    }

    /** The raw definition fields of a request, each null when absent. */
    public record Fields(
            @Nullable JsonNode modalities,
            @Nullable JsonNode variables,
            @Nullable JsonNode state,
            @Nullable JsonNode questions,
            @Nullable JsonNode model,
            @Nullable JsonNode settings,
            @Nullable JsonNode extensions) {}

    /** The normal form and the warnings; meaningful only when {@code problems} stayed empty. */
    public record Result(ObjectNode definition, List<Warning> warnings) {}

    /** @param knownModels the registry's model ids, which {@code model} and {@code settings.models} may name */
    public static Result validate(Fields fields, Problems problems, Set<String> knownModels) {
        var validator = new DefinitionValidator(new DefinitionPass(problems, knownModels, true));
        ObjectNode definition = validator.run(fields);
        return new Result(definition, List.copyOf(validator.pass.warnings));
    }

    private ObjectNode run(Fields fields) {
        ObjectNode normalVariables = variableRules.variables(orMissing(fields.variables()));
        ArrayNode modalities = variableRules.modalities(orMissing(fields.modalities()));
        JsonNode state = state(orMissing(fields.state()));
        ObjectNode questions = questionRules.questions(orMissing(fields.questions()), "questions");
        JsonNode model = settingRules.model(orMissing(fields.model()));
        ObjectNode settings = settingRules.settings(orMissing(fields.settings()));
        ObjectNode extensions = settingRules.extensions(orMissing(fields.extensions()));
        warnUnreferenced(state);

        ObjectNode definition = Json.object();
        definition.set("modalities", modalities);
        definition.set("variables", normalVariables);
        definition.set("state", state);
        definition.set("questions", questions);
        definition.set("model", model);
        definition.set("settings", settings);
        definition.set("extensions", extensions);
        return definition;
    }

    // ---- state

    /** An absent field as the rules read it: a missing node, which they treat as they treat null. */
    private static JsonNode orMissing(@Nullable JsonNode node) {
        return node == null ? MissingNode.getInstance() : node;
    }

    private JsonNode state(JsonNode node) {
        if (isAbsent(node)) {
            return NullNode.getInstance();
        }
        if (!(node.isTextual() || node.isObject() || node.isArray())) {
            pass.invalid("state", "must be text, an object, a list or null");
            return NullNode.getInstance();
        }
        if (pass.variables.isEmpty()) {
            pass.problems.add(
                    ErrorCode.INVALID_DEFINITION,
                    "state",
                    "A state template needs variables to fill it; "
                            + "without variables, send `state` with each decision instead.");
            return node;
        }
        eachString(node, "state", (text, param) -> {
            for (String name : Placeholders.names(text)) {
                Variable variable = pass.declared(name, param);
                if (variable == null) {
                    continue;
                }
                if (variable.type().isMedia()) {
                    pass.mediaInText(variable, param);
                } else if (variable.type() == VariableType.OPTIONS) {
                    pass.problems.add(
                            ErrorCode.INVALID_DEFINITION,
                            param,
                            "`" + name + "` is an options variable: it can "
                                    + "only supply the whole `criteria` of a choice, multi or rank question, not text.");
                } else {
                    pass.referenced.add(name);
                }
            }
        });
        return node;
    }

    // ---- warnings

    private void warnUnreferenced(JsonNode state) {
        for (Variable variable : pass.variables.values()) {
            String param = ParamPath.key("variables", variable.name());
            if (variable.type() == VariableType.OPTIONS) {
                if (!pass.boundToCriteria.contains(variable.name())) {
                    pass.warnings.add(new Warning(
                            WarningCode.VARIABLE_UNREFERENCED,
                            "`" + variable.name() + "` is an "
                                    + "options variable that no question takes its criteria from.",
                            param));
                }
            } else if (!variable.type().isMedia() && !state.isNull() && !pass.referenced.contains(variable.name())) {
                pass.warnings.add(new Warning(
                        WarningCode.VARIABLE_UNREFERENCED,
                        "`" + variable.name() + "` is not used "
                                + "in the state or the questions, so its value never reaches the model.",
                        param));
            }
        }
    }
}
