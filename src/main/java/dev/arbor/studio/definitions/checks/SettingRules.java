package dev.arbor.studio.definitions.checks;

import static dev.arbor.studio.definitions.checks.DefinitionPass.isAbsent;
import static dev.arbor.studio.definitions.checks.DefinitionPass.strings;
import static dev.arbor.studio.definitions.checks.DefinitionValidator.DEFAULT_MAX_EXTRA_QUESTIONS;
import static dev.arbor.studio.definitions.checks.DefinitionValidator.MAX_QUESTIONS;
import static dev.arbor.studio.definitions.checks.DefinitionValidator.NODES;
import static dev.arbor.studio.definitions.checks.DefinitionValidator.SETTINGS_KEYS;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.Placeholders;
import dev.arbor.studio.definitions.QuestionType;
import dev.arbor.studio.definitions.SettingRange;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/** The checks of how a template runs: its model, its settings (per question and per model) and its extensions. */
final class SettingRules {
    /** The per-model, per-question setting that names a fitted head. */
    static final String HEAD = "head";

    private static final Pattern HEAD_ID = Pattern.compile("head_[A-Za-z0-9_-]{1,64}");

    private final DefinitionPass pass;

    SettingRules(DefinitionPass pass) {
        this.pass = pass;
    }

    JsonNode model(JsonNode node) {
        if (isAbsent(node)) {
            return NullNode.getInstance();
        }
        if (!node.isTextual() || node.textValue().isBlank() || node.textValue().length() > 200) {
            pass.invalid("model", "must be a model id or null");
            return NullNode.getInstance();
        }
        if (!pass.knownModels.contains(node.textValue())) {
            pass.invalid(
                    "model",
                    "names no model of the registry" + pass.knownModelList()
                            + Placeholders.didYouMean(node.textValue(), pass.knownModels));
        }
        return node;
    }

    ObjectNode settings(JsonNode node) {
        ObjectNode normal = Json.object();
        if (isAbsent(node)) {
            return normal;
        }
        if (!node.isObject()) {
            pass.invalid("settings", "must be an object");
            return normal;
        }
        for (var entries = node.properties().iterator(); entries.hasNext(); ) {
            var entry = entries.next();
            String key = entry.getKey();
            String param = ParamPath.key("settings", key);
            switch (key) {
                case "questions" ->
                    perQuestion(param, entry.getValue(), HeadSetting.REFUSED).ifPresent(v -> normal.set(key, v));
                case "models" -> perModel(param, entry.getValue()).ifPresent(v -> normal.set(key, v));
                default -> setting(param, key, entry.getValue(), null).ifPresent(v -> normal.set(key, v));
            }
        }
        return normal;
    }

    private Optional<JsonNode> setting(String param, String key, JsonNode value, @Nullable QuestionType questionType) {
        if (!SETTINGS_KEYS.contains(key)) {
            pass.invalid(param, "is not a setting (settings: act_threshold, temperature, multi_threshold)");
            return Optional.empty();
        }
        if (value.isNull()) {
            return Optional.empty();
        }
        SettingRange range = SettingRange.of(key).orElseThrow();
        if (!range.contains(value)) {
            pass.invalid(param, range.refusal());
            return Optional.empty();
        }
        if (key.equals("multi_threshold") && questionType != null && questionType != QuestionType.MULTI) {
            pass.invalid(param, "applies only to multi questions");
            return Optional.empty();
        }
        return Optional.of(value);
    }

    /**
     * Whether a per-question layer may name a fitted head: only a model's, since a head reads that model's
     * embeddings.
     */
    private enum HeadSetting {
        TAKEN,
        REFUSED
    }

    private Optional<JsonNode> perQuestion(String param, JsonNode node, HeadSetting heads) {
        if (!node.isObject()) {
            pass.invalid(param, "must be an object of question key to settings");
            return Optional.empty();
        }
        ObjectNode normal = Json.object();
        for (var entries = node.properties().iterator(); entries.hasNext(); ) {
            var entry = entries.next();
            String key = entry.getKey();
            String questionParam = ParamPath.key(param, key);
            QuestionType type = pass.questionTypes.get(key);
            if (type == null) {
                pass.problems.add(
                        ErrorCode.UNKNOWN_QUESTION,
                        questionParam,
                        "`" + key + "` is not a question of this " + "template."
                                + Placeholders.didYouMean(key, pass.questionTypes.keySet()));
                continue;
            }
            if (!entry.getValue().isObject()) {
                pass.invalid(questionParam, "must be an object of settings");
                continue;
            }
            ObjectNode values = Json.object();
            for (var settings = entry.getValue().properties().iterator(); settings.hasNext(); ) {
                var setting = settings.next();
                String settingParam = ParamPath.key(questionParam, setting.getKey());
                if (setting.getKey().equals(HEAD)) {
                    head(settingParam, setting.getValue(), heads).ifPresent(v -> values.set(HEAD, v));
                    continue;
                }
                setting(settingParam, setting.getKey(), setting.getValue(), type)
                        .ifPresent(v -> values.set(setting.getKey(), v));
            }
            normal.set(key, values);
        }
        return Optional.of(normal);
    }

    /** A fitted head's id ({@code head_…}), as a fit writes it into a model's per-question settings. */
    private Optional<JsonNode> head(String param, JsonNode value, HeadSetting heads) {
        if (value.isNull()) {
            return Optional.empty();
        }
        if (heads == HeadSetting.REFUSED) {
            pass.invalid(param, "belongs under settings.models.<model>.questions: a head reads one model's embeddings");
            return Optional.empty();
        }
        if (!value.isTextual() || !HEAD_ID.matcher(value.textValue()).matches()) {
            pass.invalid(param, "must be the id of a fitted head (head_…), as a fit writes it");
            return Optional.empty();
        }
        return Optional.of(value);
    }

    private Optional<JsonNode> perModel(String param, JsonNode node) {
        if (!node.isObject()) {
            pass.invalid(param, "must be an object of model id to settings");
            return Optional.empty();
        }
        ObjectNode normal = Json.object();
        for (var entries = node.properties().iterator(); entries.hasNext(); ) {
            var entry = entries.next();
            String modelParam = ParamPath.key(param, entry.getKey());
            if (!pass.knownModels.contains(entry.getKey())) {
                pass.invalid(modelParam, "names no model of the registry" + pass.knownModelList());
                continue;
            }
            if (!entry.getValue().isObject()) {
                pass.invalid(modelParam, "must be an object of settings for that model");
                continue;
            }
            ObjectNode values = Json.object();
            for (var settings = entry.getValue().properties().iterator(); settings.hasNext(); ) {
                var setting = settings.next();
                String settingParam = ParamPath.key(modelParam, setting.getKey());
                if (setting.getKey().equals("questions")) {
                    perQuestion(settingParam, setting.getValue(), HeadSetting.TAKEN)
                            .ifPresent(v -> values.set("questions", v));
                } else {
                    setting(settingParam, setting.getKey(), setting.getValue(), null)
                            .ifPresent(v -> values.set(setting.getKey(), v));
                }
            }
            normal.set(entry.getKey(), values);
        }
        return Optional.of(normal);
    }

    ObjectNode extensions(JsonNode node) {
        ObjectNode normal = Json.object();
        normal.put("questions", true);
        normal.put("max_questions", DEFAULT_MAX_EXTRA_QUESTIONS);
        normal.set("options", NODES.arrayNode());
        normal.set("skip", NODES.arrayNode());
        if (isAbsent(node)) {
            return normal;
        }
        if (!node.isObject()) {
            pass.invalid("extensions", "must be an object");
            return normal;
        }
        for (var entries = node.properties().iterator(); entries.hasNext(); ) {
            var entry = entries.next();
            String key = entry.getKey();
            String param = ParamPath.key("extensions", key);
            JsonNode value = entry.getValue();
            switch (key) {
                case "questions" -> {
                    if (value.isBoolean()) {
                        normal.set(key, value);
                    } else {
                        pass.invalid(param, "must be true or false");
                    }
                }
                case "max_questions" -> {
                    if (value.isIntegralNumber() && value.asLong() >= 0 && value.asLong() <= MAX_QUESTIONS) {
                        normal.put(key, value.asInt());
                    } else {
                        pass.invalid(param, "must be an integer from 0 to " + MAX_QUESTIONS);
                    }
                }
                case "options", "skip" ->
                    questionList(param, value, key.equals("options")).ifPresent(list -> normal.set(key, list));
                default ->
                    pass.invalid(
                            param,
                            "is not an extension setting (settings: questions, max_questions, " + "options, skip)");
            }
        }
        return normal;
    }

    private Optional<JsonNode> questionList(String param, JsonNode value, boolean options) {
        if (value.isBoolean() && value.booleanValue()) {
            return Optional.of(value); // every question that can take it
        }
        if (!value.isArray()) {
            pass.invalid(param, "must be true or a list of question keys");
            return Optional.empty();
        }
        var keys = new LinkedHashSet<String>();
        for (int i = 0; i < value.size(); i++) {
            JsonNode item = value.get(i);
            String itemParam = ParamPath.index(param, i);
            if (!item.isTextual()) {
                pass.invalid(itemParam, "must be a question key");
                continue;
            }
            QuestionType type = pass.questionTypes.get(item.textValue());
            if (type == null) {
                pass.problems.add(
                        ErrorCode.UNKNOWN_QUESTION,
                        itemParam,
                        "`" + item.textValue() + "` is not a question " + "of this template."
                                + Placeholders.didYouMean(item.textValue(), pass.questionTypes.keySet()));
            } else if (options && !type.extensible()) {
                pass.problems.add(
                        ErrorCode.OPTIONS_NOT_EXTENSIBLE,
                        itemParam,
                        "`" + item.textValue() + "` is a "
                                + type.wire() + " question; its options are fixed (only choice, multi, rank and number "
                                + "questions take new options).");
            } else {
                keys.add(item.textValue());
            }
        }
        return Optional.of(strings(keys));
    }
}
