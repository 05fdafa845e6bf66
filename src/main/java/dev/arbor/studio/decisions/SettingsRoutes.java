package dev.arbor.studio.decisions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import io.javalin.http.Context;

/** {@code GET} and {@code PATCH /v1/studio/settings}: the studio's settings, and what history holds. */
final class SettingsRoutes {
    private final StudioSettings settings;
    private final DecisionStore decisions;

    SettingsRoutes(StudioSettings settings, DecisionStore decisions) {
        this.settings = requireNonNull(settings, "settings");
        this.decisions = requireNonNull(decisions, "decisions");
    }

    void addTo(Routes routes) {
        routes.group("studio.settings")
                .get("/v1/studio/settings", "The studio's settings and what history holds", this::get)
                .patch("/v1/studio/settings", "Change the studio's settings (a merge patch)", this::patch);
    }

    private void get(Context ctx) {
        Responses.ok(ctx, json(settings.current()));
    }

    private void patch(Context ctx) {
        Responses.ok(ctx, json(settings.patch(Requests.jsonObject(ctx))));
    }

    private ObjectNode json(StudioSettings.Values values) {
        ObjectNode json = values.json();
        json.put("object", "settings");
        DecisionStore.Census census = decisions.census();
        ObjectNode storage = json.putObject("storage");
        storage.put("decisions", census.decisions());
        if (census.oldestAtMillis().isPresent()) {
            storage.put("oldest_at", census.oldestAtMillis().get() / 1000);
        } else {
            storage.putNull("oldest_at");
        }
        return json;
    }
}
