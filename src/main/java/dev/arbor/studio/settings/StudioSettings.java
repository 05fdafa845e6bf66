package dev.arbor.studio.settings;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.Schema.Bound;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodyReader;
import dev.arbor.platform.http.bodies.BodySpec;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.SettingRange;
import dev.arbor.studio.erasure.Retention;
import dev.arbor.studio.history.StoreLevel;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The studio's own settings, the last layer under every decision: the most history keeps ({@code history.store}),
 * whether inline media are kept ({@code history.store_media}), what a failed history write does
 * ({@code history.on_store_error}), how long decisions are kept ({@code history.retention_days}, 0 for ever;
 * {@code history.keep_labelled} spares those with feedback), how large history may grow
 * ({@code history.max_storage_gb}, 0 for no cap), and the act threshold when nothing else sets one
 * ({@code decisions.default_act_threshold}). Kept in the database, read from memory.
 */
public final class StudioSettings {
    /** The act threshold when nothing else sets one, until the studio's setting changes it. */
    public static final double DEFAULT_ACT_THRESHOLD = 0.9;

    /** The values, every one set. */
    public record Values(
            StoreLevel store,
            boolean storeMedia,
            boolean failOnStoreError,
            int retentionDays,
            boolean keepLabelled,
            double maxStorageGb,
            double defaultActThreshold) {
        static final Values DEFAULT = new Values(StoreLevel.FULL, true, false, 30, true, 20, DEFAULT_ACT_THRESHOLD);

        /** What history keeps under these settings. */
        public Retention.Rules retention() {
            return new Retention.Rules(retentionDays, keepLabelled, maxStorageBytes(), maxStorageGb);
        }

        /** The size cap in bytes; 0 for none. */
        long maxStorageBytes() {
            return (long) (maxStorageGb * 1024 * 1024 * 1024);
        }

        /** The history group as the API shows it and the settings table keeps it. */
        HistoryValues history() {
            return new HistoryValues(
                    store.wire(),
                    storeMedia,
                    failOnStoreError ? "fail" : "serve",
                    retentionDays,
                    keepLabelled,
                    maxStorageGb);
        }

        /** The decisions group as the API shows it and the settings table keeps it. */
        DecisionValues decisions() {
            return new DecisionValues(defaultActThreshold);
        }

        ObjectNode json() {
            ObjectNode json = Json.object();
            json.set("history", Json.mapper().valueToTree(history()));
            json.set("decisions", Json.mapper().valueToTree(decisions()));
            return json;
        }
    }

    record HistoryValues(
            String store,
            @JsonProperty("store_media") boolean storeMedia,
            @JsonProperty("on_store_error") String onStoreError,
            @JsonProperty("retention_days") int retentionDays,
            @JsonProperty("keep_labelled") boolean keepLabelled,
            @JsonProperty("max_storage_gb") double maxStorageGb) {}

    record DecisionValues(
            @JsonProperty("default_act_threshold") double defaultActThreshold) {}

    /**
     * The settings a patch left, and whether it named a retention rule (then history is swept at once, even for the
     * value it had).
     */
    record Patched(Values values, boolean retentionSent) {}

    private static final BodyField.Word<StoreLevel> STORE =
            BodyField.word(OPTIONAL, "store", List.of(StoreLevel.values()), StoreLevel::wire);
    private static final BodyField.Flag STORE_MEDIA = BodyField.flag(OPTIONAL, "store_media");
    private static final BodyField.Word<Boolean> ON_STORE_ERROR = StoreLevel.ON_STORE_ERROR;
    private static final BodyField.Worded<Long> RETENTION_DAYS = BodyField.integer(
                    OPTIONAL, "retention_days", 0, 36_500)
            .refusedAs("must be a whole number of days from 0 (keep for ever) to 36500");
    private static final BodyField.Flag KEEP_LABELLED = BodyField.flag(OPTIONAL, "keep_labelled");
    private static final BodyField.Worded<Double> MAX_STORAGE_GB = BodyField.number(
                    OPTIONAL, "max_storage_gb", Bound.inclusive(0), Bound.inclusive(1_000_000))
            .refusedAs("must be a number of gigabytes from 0 (no cap) to 1000000");
    private static final BodyField.Worded<Double> ACT_THRESHOLD_SETTING =
            SettingRange.ACT_THRESHOLD.field("default_act_threshold");
    private static final BodyField.Group HISTORY = BodyField.group(
            OPTIONAL,
            "history",
            BodySpec.closed(
                    "the history settings",
                    STORE,
                    STORE_MEDIA,
                    ON_STORE_ERROR,
                    RETENTION_DAYS,
                    KEEP_LABELLED,
                    MAX_STORAGE_GB));
    private static final BodyField.Group DECISIONS =
            BodyField.group(OPTIONAL, "decisions", BodySpec.closed("the decision settings", ACT_THRESHOLD_SETTING));
    /** A patch: the groups of settings, each a merge patch of its own; {@code storage} is reported, never set. */
    static final BodySpec PATCH = BodySpec.closed("the studio settings", HISTORY, DECISIONS);

    private final Database database;
    private final Clock clock;
    private final AtomicReference<Values> current;

    public StudioSettings(Database database, Clock clock) {
        this.database = requireNonNull(database, "database");
        this.clock = requireNonNull(clock, "clock");
        ObjectNode stored = Json.object();
        database.read(handle -> handle.createQuery("SELECT key, value FROM studio_settings")
                        .map((rs, ctx) -> Map.entry(rs.getString("key"), rs.getString("value")))
                        .list())
                .forEach(e -> {
                    String[] path = e.getKey().split("\\.", 2);
                    ObjectNode group =
                            stored.has(path[0]) ? (ObjectNode) stored.get(path[0]) : stored.putObject(path[0]);
                    group.set(path[1], Json.read(e.getValue()));
                });
        // a stored value this version refuses keeps its default
        this.current = new AtomicReference<>(merge(Values.DEFAULT, PATCH.reader(stored)));
    }

    public Values current() {
        return requireNonNull(current.get());
    }

    /**
     * Applies a merge patch of {@code {history: {...}, decisions: {...}}}; every problem is reported at once
     * ({@code invalid_field}, or {@code read_only_field} for {@code storage}).
     */
    Patched patch(ObjectNode patch) {
        ObjectNode groups = patch.deepCopy();
        boolean retentionSent = groups.get("history") instanceof ObjectNode history
                && (history.has("retention_days") || history.has("keep_labelled") || history.has("max_storage_gb"));
        boolean setsStorage = groups.remove("storage") != null;
        BodyReader reader = PATCH.reader(groups);
        if (setsStorage) {
            reader.problems()
                    .add(ErrorCode.READ_ONLY_FIELD, "storage", "`storage` reports what history holds; it is not set.");
        }
        Values updated = merge(requireNonNull(current.get()), reader);
        reader.finish();
        var rows = new LinkedHashMap<String, String>();
        updated.json()
                .properties()
                .forEach(group -> group.getValue()
                        .properties()
                        .forEach(setting -> rows.put(
                                group.getKey() + "." + setting.getKey(), Json.writeString(setting.getValue()))));
        long now = clock.millis();
        database.update(handle -> rows.forEach((key, value) -> handle.createUpdate("""
                        INSERT INTO studio_settings (key, value, updated_at) VALUES (:key, :value, :now)
                        ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at""")
                .bind("key", key)
                .bind("value", value)
                .bind("now", now)
                .execute()));
        current.set(updated);
        return new Patched(updated, retentionSent);
    }

    /** Reads the settings a patch (or the stored rows) sets over {@code base}; a refused one keeps its base value. */
    private static Values merge(Values base, BodyReader patch) {
        Optional<BodyReader> history = HISTORY.read(patch);
        Optional<BodyReader> decisions = DECISIONS.read(patch);
        return new Values(
                history.flatMap(STORE::read).orElse(base.store()),
                history.flatMap(STORE_MEDIA::read).orElse(base.storeMedia()),
                history.flatMap(ON_STORE_ERROR::read).orElse(base.failOnStoreError()),
                history.flatMap(RETENTION_DAYS::read).map(Long::intValue).orElse(base.retentionDays()),
                history.flatMap(KEEP_LABELLED::read).orElse(base.keepLabelled()),
                history.flatMap(MAX_STORAGE_GB::read).orElse(base.maxStorageGb()),
                decisions.flatMap(ACT_THRESHOLD_SETTING::read).orElse(base.defaultActThreshold()));
    }
}
