package dev.arbor.studio.settings;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.studio.erasure.Retention;
import dev.arbor.studio.history.HistoryStore;
import io.javalin.http.Context;
import org.jspecify.annotations.Nullable;

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
        Responses.ok(ctx, reply(settings.current()));
    }

    /** A change to what history keeps is applied at once: the sweep runs before the answer. */
    private void patch(Context ctx) {
        StudioSettings.Patched patched = settings.patch(Requests.jsonObject(ctx));
        if (patched.retentionSent()) {
            retention.sweep();
        }
        Responses.ok(ctx, reply(patched.values()));
    }

    private Reply reply(StudioSettings.Values values) {
        HistoryStore.Census census = decisions.census();
        var sweep = retention.last();
        return new Reply(
                values.history(),
                values.decisions(),
                "settings",
                new Storage(
                        census.decisions(),
                        decisions.storedBytes(),
                        census.oldestAtMillis().map(at -> at / 1000).orElse(null),
                        sweep.map(s -> s.atMillis() / 1000).orElse(null),
                        sweep.map(Retention.Sweep::deleted).orElse(null),
                        sweep.map(Retention.Sweep::filesRemoved).orElse(null)));
    }

    /** What {@code GET} and {@code PATCH /v1/studio/settings} answer. */
    private record Reply(
            StudioSettings.HistoryValues history,
            StudioSettings.DecisionValues decisions,
            String object,
            Storage storage) {}

    /** What history holds, and what its last sweep removed. */
    private record Storage(
            long decisions,
            long bytes,
            @JsonProperty("oldest_at") @Nullable Long oldestAt,
            @JsonProperty("last_sweep_at") @Nullable Long lastSweepAt,
            @JsonProperty("last_sweep_deleted") @Nullable Integer lastSweepDeleted,

            @JsonProperty("last_sweep_files_removed") @Nullable
            Integer lastSweepFilesRemoved) {}
}
