package dev.arbor.routers;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.actions.ActionCatalog;
import dev.arbor.platform.http.ErrorCode;
import dev.arbor.platform.http.Json;
import dev.arbor.platform.http.Problems;
import java.util.Map;
import java.util.Optional;

/**
 * The actions router steps may use ({@code catalog/router-actions.json}, checked at start), and the checks of one
 * step's params: the catalog's, then what an action needs beyond its params' types (a decide step's template must
 * exist). The validate route and a save run the same checks.
 */
final class RouterCatalog {
    static final String DECIDE = "decide";

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
        // a template id its pattern refuses is not looked up: one problem says what is wrong with it
        boolean wellFormed = problems.list().stream().noneMatch(problem -> at.equals(problem.param()));
        if (action.type().equals(DECIDE) && template.isTextual() && wellFormed) {
            if (!lookups.template(template.textValue())) {
                problems.add(
                        ErrorCode.UNKNOWN_REFERENCE,
                        at,
                        "`" + at + "` is '" + template.textValue() + "', which names no studio template version.");
            }
        }
    }

    /** {@code {action_type, params}} as the validate route takes it. */
    void checkRequest(JsonNode body, Problems problems, RouterParams rules) {
        JsonNode type = body.path("action_type");
        if (!type.isTextual()) {
            catalog.checkRequest(body, problems, rules); // says what is missing
            return;
        }
        catalog.find(type.textValue())
                .ifPresentOrElse(
                        action -> check(
                                action,
                                body.has("params") ? body.get("params") : Json.object(),
                                "params",
                                problems,
                                rules),
                        () -> catalog.checkRequest(body, problems, rules));
    }
}
