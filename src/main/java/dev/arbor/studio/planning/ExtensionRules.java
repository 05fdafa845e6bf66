package dev.arbor.studio.planning;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.ExtensionPolicy;
import dev.arbor.studio.definitions.QuestionType;
import dev.arbor.studio.definitions.TemplateDefinition;
import dev.arbor.studio.definitions.TemplateQuestion;
import dev.arbor.studio.templates.Templates;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a caller may change of a template's questions on one decision, within the template's {@code extensions}
 * rules: extra questions, skipped questions, and options added to a question. Every problem is reported at once.
 */
final class ExtensionRules {
    private ExtensionRules() {}

    static ObjectNode extraQuestions(Templates.Resolved template, DecisionRequest.Field field, Problems problems) {
        ExtensionPolicy rules = template.definition().extensions();
        if (!rules.questions()) {
            problems.add(
                    ErrorCode.EXTENSION_NOT_ALLOWED,
                    field.param(),
                    "Template '" + template.id() + "' does " + "not take extra questions.");
            return Json.object();
        }
        ObjectNode checked =
                Templates.checkQuestions(field.value(), field.param(), Optional.of(template.definition()), problems);
        ObjectNode kept = Json.object();
        checked.properties().forEach(e -> {
            if (template.definition().questions().containsKey(e.getKey())) {
                problems.add(
                        ErrorCode.QUESTION_CONFLICT,
                        ParamPath.key(field.param(), e.getKey()),
                        "`" + e.getKey()
                                + "` is a question of template '" + template.id()
                                + "'; an extra question needs a new key "
                                + "(to change a template question, save a new version).");
            } else {
                kept.set(e.getKey(), e.getValue());
            }
        });
        int max = rules.maxQuestions();
        if (kept.size() > max) {
            problems.add(
                    ErrorCode.TOO_MANY_EXTRA_QUESTIONS,
                    field.param(),
                    "Template '" + template.id() + "' takes at most " + max + " extra questions; this decision sends "
                            + kept.size() + ".");
        }
        return kept;
    }

    static Set<String> skipped(
            DecisionRequest request, Set<String> templateKeys, ExtensionPolicy rules, Problems problems) {
        var skipped = new LinkedHashSet<String>();
        if (request.skip().isEmpty() || !request.skip().get().value().isArray()) {
            return skipped;
        }
        var field = request.skip().get();
        for (int i = 0; i < field.value().size(); i++) {
            JsonNode item = field.value().get(i);
            String param = ParamPath.index(field.param(), i);
            if (!item.isTextual()) {
                problems.add(ErrorCode.INVALID_FIELD, param, "`" + param + "` must be a question key.");
            } else if (!templateKeys.contains(item.textValue())) {
                problems.add(
                        ErrorCode.UNKNOWN_QUESTION,
                        param,
                        "`" + item.textValue() + "` is not a question of " + "this template."
                                + didYouMean(item.textValue(), templateKeys));
            } else if (!rules.skip().allows(item.textValue())) {
                problems.add(
                        ErrorCode.SKIP_NOT_ALLOWED,
                        param,
                        "The template does not let callers skip `" + item.textValue()
                                + "` (it needs `extensions.skip`).");
            } else {
                skipped.add(item.textValue());
            }
        }
        return skipped;
    }

    static Map<String, ObjectNode> addedOptions(
            DecisionRequest request,
            TemplateDefinition definition,
            Set<String> skipped,
            ExtensionPolicy rules,
            Problems problems) {
        var added = new LinkedHashMap<String, ObjectNode>();
        if (request.addOptions().isEmpty()
                || !request.addOptions().get().value().isObject()) {
            return added;
        }
        var field = request.addOptions().get();
        Map<String, TemplateQuestion> questions = definition.questions();
        field.value().properties().forEach(entry -> {
            String key = entry.getKey();
            String param = ParamPath.key(field.param(), key);
            TemplateQuestion question = questions.get(key);
            if (question == null) {
                var keys = questions.keySet();
                problems.add(
                        ErrorCode.UNKNOWN_QUESTION,
                        param,
                        "`" + key + "` is not a question of this template." + didYouMean(key, keys));
                return;
            }
            QuestionType type = question.type();
            if (skipped.contains(key)) {
                problems.add(ErrorCode.INVALID_FIELD, param, "`" + key + "` is skipped; it takes no options.");
            } else if (!type.extensible()) {
                problems.add(
                        ErrorCode.OPTIONS_NOT_EXTENSIBLE,
                        param,
                        "`" + key + "` is a " + type.wire() + " question: its "
                                + (type == QuestionType.SCORE ? "levels" : "sides")
                                + " are fixed; save a new template version "
                                + "to change them.");
            } else if (!rules.options().allows(key)) {
                problems.add(
                        ErrorCode.EXTENSION_NOT_ALLOWED,
                        param,
                        "The template does not let callers add options " + "to `" + key
                                + "` (it needs `extensions.options`).");
            } else {
                newOptions(type, question.criteria(), entry.getValue(), param, problems)
                        .ifPresent(options -> added.put(key, options));
            }
        });
        return added;
    }

    /** The new options of one question as name (or value) to description, or the problems with them. */
    private static Optional<ObjectNode> newOptions(
            QuestionType type, JsonNode existing, JsonNode sent, String param, Problems problems) {
        ObjectNode options = Json.object();
        int before = problemCount(problems);
        if (type == QuestionType.NUMBER) {
            if (!sent.isArray() || sent.isEmpty()) {
                problems.add(ErrorCode.INVALID_FIELD, param, "`" + param + "` must be a list of numbers.");
                return Optional.empty();
            }
            var values = new HashSet<BigDecimal>();
            existing.fieldNames().forEachRemaining(k -> values.add(new BigDecimal(k).stripTrailingZeros()));
            for (int i = 0; i < sent.size(); i++) {
                JsonNode item = sent.get(i);
                String itemParam = ParamPath.index(param, i);
                if (!item.isNumber() || !Double.isFinite(item.doubleValue())) {
                    problems.add(ErrorCode.INVALID_FIELD, itemParam, "`" + itemParam + "` must be a finite number.");
                } else if (!values.add(item.decimalValue().stripTrailingZeros())) {
                    problems.add(
                            ErrorCode.OPTION_CONFLICT,
                            itemParam,
                            "The value " + item.asText() + " is already an option.");
                } else {
                    options.putNull(item.decimalValue().stripTrailingZeros().toPlainString());
                }
            }
        } else if (sent.isArray() || sent.isObject()) {
            var names = new ArrayList<Map.Entry<String, JsonNode>>();
            if (sent.isArray()) {
                for (int i = 0; i < sent.size(); i++) {
                    JsonNode item = sent.get(i);
                    if (!item.isTextual()
                            || item.textValue().isBlank()
                            || item.textValue().length() > 200) {
                        String itemParam = ParamPath.index(param, i);
                        problems.add(
                                ErrorCode.INVALID_FIELD,
                                itemParam,
                                "`" + itemParam + "` must be an option " + "name of 1 to 200 characters.");
                    } else {
                        names.add(Map.entry(item.textValue(), NullNode.getInstance()));
                    }
                }
            } else {
                sent.properties().forEach(e -> names.add(Map.entry(e.getKey(), e.getValue())));
            }
            for (var name : names) {
                String nameParam = ParamPath.key(param, name.getKey());
                if (name.getKey().isBlank() || name.getKey().length() > 200) {
                    problems.add(ErrorCode.INVALID_FIELD, nameParam, "Option names are 1 to 200 characters.");
                } else if (existing.has(name.getKey()) || options.has(name.getKey())) {
                    problems.add(
                            ErrorCode.OPTION_CONFLICT,
                            nameParam,
                            "\"" + name.getKey() + "\" is already an " + "option.");
                } else {
                    options.set(name.getKey(), name.getValue());
                }
            }
        } else {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    param,
                    "`" + param + "` must be a list of option names or an " + "object of name to description.");
        }
        if (options.isEmpty() && problemCount(problems) == before) {
            problems.add(ErrorCode.INVALID_FIELD, param, "`" + param + "` adds no option.");
        }
        return problemCount(problems) == before ? Optional.of(options) : Optional.empty();
    }

    private static int problemCount(Problems problems) {
        return problems.list().size();
    }

    static ObjectNode sortedNumbers(ObjectNode existing, ObjectNode added) {
        var sorted = new TreeMap<BigDecimal, Map.Entry<String, JsonNode>>();
        existing.properties().forEach(e -> sorted.put(new BigDecimal(e.getKey()), e));
        added.properties().forEach(e -> sorted.put(new BigDecimal(e.getKey()), e));
        ObjectNode criteria = Json.object();
        sorted.values().forEach(e -> criteria.set(e.getKey(), e.getValue()));
        return criteria;
    }

    private static String didYouMean(String name, Set<String> known) {
        return Templates.didYouMean(name, known);
    }
}
