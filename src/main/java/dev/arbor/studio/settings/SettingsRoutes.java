package dev.arbor.studio.settings;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.studio.history.HistoryStore;
import dev.arbor.studio.history.Retention;
import io.javalin.http.Context;

/** {@code GET} and {@code PATCH /v1/studio/settings}: the studio's settings, and what history holds. */
public final class SettingsRoutes {
    private final StudioSettings settings;
    private final HistoryStore decisions;
    private final Retention retention;

    public SettingsRoutes(StudioSettings settings, HistoryStore decisions, Retention retention) {
        this.settings = requireNonNull(settings, "settings");
        this.decisions = requireNonNull(decisions, "decisions");
        this.retention = requireNonNull(retention, "retention");
    }

    public void addTo(Routes routes) {
        routes.group("studio.settings")
                .databaseUnavailableAs(ErrorCode.HISTORY_UNAVAILABLE)
                .get("/v1/studio/settings", "The studio's settings and what history holds", this::get)
                .ok(SettingsShapes.SETTINGS)
                .patch("/v1/studio/settings", "Change the studio's settings (a merge patch)", this::patch)
                .body(SettingsShapes.SETTINGS_PATCH)
                .ok(SettingsShapes.SETTINGS);
    }

    private void get(Context ctx) {
        Responses.ok(ctx, json(settings.current()));
    }

    /** A change to what history keeps is applied at once: the sweep runs before the answer. */
    private void patch(Context ctx) {
        ObjectNode patch = Requests.jsonObject(ctx);
        StudioSettings.Values values = settings.patch(patch);
        JsonNode history = patch.path("history");
        if (history.has("retention_days") || history.has("keep_labelled") || history.has("max_storage_gb")) {
            retention.sweep();
        }
        Responses.ok(ctx, json(values));
    }

    private ObjectNode json(StudioSettings.Values values) {
        ObjectNode json = values.json();
        json.put("object", "settings");
        HistoryStore.Census census = decisions.census();
        ObjectNode storage = json.putObject("storage");
        storage.put("decisions", census.decisions());
        storage.put("bytes", decisions.storedBytes());
        if (census.oldestAtMillis().isPresent()) {
            storage.put("oldest_at", census.oldestAtMillis().get() / 1000);
        } else {
            storage.putNull("oldest_at");
        }
        var sweep = retention.last();
        if (sweep.isPresent()) {
            storage.put("last_sweep_at", sweep.get().atMillis() / 1000);
            storage.put("last_sweep_deleted", sweep.get().deleted());
            storage.put("last_sweep_files_removed", sweep.get().filesRemoved());
        } else {
            storage.putNull("last_sweep_at");
            storage.putNull("last_sweep_deleted");
            storage.putNull("last_sweep_files_removed");
        }
        return json;
    }
}
