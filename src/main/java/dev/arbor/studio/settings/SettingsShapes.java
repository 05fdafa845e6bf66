package dev.arbor.studio.settings;

import static dev.arbor.platform.http.Schema.bool;
import static dev.arbor.platform.http.Schema.integer;
import static dev.arbor.platform.http.Schema.named;
import static dev.arbor.platform.http.Schema.nullable;
import static dev.arbor.platform.http.Schema.number;
import static dev.arbor.platform.http.Schema.object;
import static dev.arbor.platform.http.Schema.oneOf;
import static dev.arbor.platform.http.Schema.timestamp;

import dev.arbor.platform.http.Schema;
import dev.arbor.studio.history.HistoryShapes;

/** The shapes of the studio's settings, for the OpenAPI document. */
final class SettingsShapes {
    private SettingsShapes() {}

    private static final Schema COUNT = integer(0, Long.MAX_VALUE);

    static final Schema SETTINGS_PATCH = StudioSettings.PATCH.schema();
    static final Schema SETTINGS = named(
            "StudioSettings",
            object().required("object", oneOf("settings"))
                    .required(
                            "history",
                            object().required("store", HistoryShapes.STORE_LEVEL)
                                    .required("store_media", bool())
                                    .required("on_store_error", oneOf("serve", "fail"))
                                    .required("retention_days", integer(0, 36_500))
                                    .required("keep_labelled", bool())
                                    .required("max_storage_gb", number()))
                    .required("decisions", object().required("default_act_threshold", number()))
                    .required(
                            "storage",
                            object().required("decisions", COUNT)
                                    .required("bytes", COUNT)
                                    .required("oldest_at", nullable(timestamp()))
                                    .required("last_sweep_at", nullable(timestamp()))
                                    .required("last_sweep_deleted", nullable(COUNT))
                                    .required("last_sweep_files_removed", nullable(COUNT))));
}
