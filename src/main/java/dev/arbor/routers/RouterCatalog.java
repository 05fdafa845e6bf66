package dev.arbor.routers;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.actions.ActionCatalog;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The actions router steps may use ({@code catalog/router-actions.json}, checked at start), and the checks of one
 * step's params: the catalog's, then what an action needs beyond its params' types (a decide step's template must
 * exist). The validate route and a save run the same checks.
 */
final class RouterCatalog {
    static final String DECIDE = "decide";
    static final String PROVIDER_MODELS = "provider_models";
    static final String DELEGATE = "delegate";

    private final ActionCatalog catalog = ActionCatalog.load("/catalog/router-actions.json");
    private final Lookups lookups;

    RouterCatalog(Lookups lookups) {
        this.lookups = requireNonNull(lookups, "lookups");
    }

    Optional<ActionCatalog.Action> find(String type) {
        return catalog.find(type);
    }

    String types() {
        return String.join(", ", catalog.types());
    }

    Map<String, Object> toJson() {
        return catalog.toJson();
    }

    /** A step's params, problems at {@code prefix.<name>}. */
    void check(ActionCatalog.Action action, JsonNode params, String prefix, Problems problems, RouterParams rules) {
        catalog.check(action, params, prefix, problems, rules);
        JsonNode template = params.path("template");
        String at = prefix + ".template";
        // a value that has a problem already is not looked at again: one problem says what is wrong with it
        if (action.type().equals(DECIDE) && template.isTextual() && clean(problems, at)) {
            if (!lookups.template(template.textValue())) {
                problems.add(
                        ErrorCode.UNKNOWN_REFERENCE,
                        at,
                        "`" + at + "` is '" + template.textValue() + "', which names no studio template version.");
            }
        }
        if (action.type().equals(PROVIDER_MODELS)) {
            defaultOfProvider(params, prefix, problems);
        }
    }

    /** A provider_models step's default model is one of its provider's cloud models. */
    private void defaultOfProvider(JsonNode params, String prefix, Problems problems) {
        JsonNode provider = params.path("provider");
        JsonNode model = params.path("default_model");
        String at = prefix + ".default_model";
        if (!provider.isTextual()
                || !model.isTextual()
                || !clean(problems, prefix + ".provider")
                || !clean(problems, at)) {
            return;
        }
        List<String> served = lookups.providerModels(provider.textValue());
        if (!served.contains(model.textValue())) {
            problems.add(
                    ErrorCode.INVALID_REFERENCE,
                    at,
                    "`" + at + "` is '" + model.textValue() + "', which is not a cloud model of provider '"
                            + provider.textValue() + "'; "
                            + (served.isEmpty()
                                    ? "the registry has none of that provider's models"
                                    : "its cloud models are " + String.join(", ", served))
                            + ".");
        }
    }

    private static boolean clean(Problems problems, String param) {
        return problems.list().stream().noneMatch(problem -> param.equals(problem.param()));
    }

    /** {@code {action_type, params}} as the validate route takes it. */
    void checkRequest(JsonNode body, Problems problems, RouterParams rules) {
        catalog.checkRequest(
                body, problems, (action, params, prefix, found) -> check(action, params, prefix, found, rules));
    }
}
