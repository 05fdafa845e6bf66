package dev.arbor.studio.settings;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.http.ErrorCode;
import dev.arbor.platform.http.Json;
import dev.arbor.platform.http.ParamPath;
import dev.arbor.platform.http.Problems;
import dev.arbor.studio.definitions.SettingRange;
import dev.arbor.studio.history.Retention;
import dev.arbor.studio.history.StoreLevel;
import java.time.Clock;
import java.util.LinkedHashMap;
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

        ObjectNode json() {
            ObjectNode json = Json.object();
            ObjectNode history = json.putObject("history");
            history.put("store", store.wire());
            history.put("store_media", storeMedia);
            history.put("on_store_error", failOnStoreError ? "fail" : "serve");
            history.put("retention_days", retentionDays);
            history.put("keep_labelled", keepLabelled);
            history.put("max_storage_gb", maxStorageGb);
            json.putObject("decisions").put("default_act_threshold", defaultActThreshold);
            return json;
        }
    }

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
        this.current = new AtomicReference<>(merge(Values.DEFAULT, stored, new Problems()));
    }

    public Values current() {
        return current.get();
    }

    /**
     * Applies a merge patch of {@code {history: {...}, decisions: {...}}}; every problem is reported at once
     * ({@code invalid_field}, or {@code read_only_field} for {@code storage}).
     */
    Values patch(ObjectNode patch) {
        var problems = new Problems();
        Values updated = merge(current.get(), patch, problems);
        problems.throwIfAny();
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
        return updated;
    }

    private static Values merge(Values base, ObjectNode patch, Problems problems) {
        StoreLevel store = base.store();
        boolean storeMedia = base.storeMedia();
        boolean fail = base.failOnStoreError();
        int retention = base.retentionDays();
        boolean keepLabelled = base.keepLabelled();
        double maxStorage = base.maxStorageGb();
        double act = base.defaultActThreshold();
        for (var groups = patch.properties().iterator(); groups.hasNext(); ) {
            var group = groups.next();
            String name = group.getKey();
            if (name.equals("storage")) {
                problems.add(ErrorCode.READ_ONLY_FIELD, name, "`storage` reports what history holds; it is not set.");
                continue;
            }
            if (!name.equals("history") && !name.equals("decisions")) {
                problems.add(
                        ErrorCode.INVALID_FIELD,
                        name,
                        "`" + name + "` is not a settings group (history, " + "decisions).");
                continue;
            }
            if (!group.getValue().isObject()) {
                problems.add(ErrorCode.INVALID_FIELD, name, "`" + name + "` must be an object.");
                continue;
            }
            for (var settings = group.getValue().properties().iterator(); settings.hasNext(); ) {
                var setting = settings.next();
                String param = ParamPath.key(name, setting.getKey());
                JsonNode value = setting.getValue();
                switch (param) {
                    case "history.store" -> {
                        Optional<StoreLevel> level = value.isTextual() ? StoreLevel.parse(value) : Optional.empty();
                        if (level.isPresent()) {
                            store = level.get();
                        } else {
                            invalid(problems, param, "must be full, answers_only or none");
                        }
                    }
                    case "history.store_media" -> {
                        if (value.isBoolean()) {
                            storeMedia = value.booleanValue();
                        } else {
                            invalid(problems, param, "must be true or false");
                        }
                    }
                    case "history.on_store_error" -> {
                        if (value.isTextual()
                                && (value.textValue().equals("serve")
                                        || value.textValue().equals("fail"))) {
                            fail = value.textValue().equals("fail");
                        } else {
                            invalid(problems, param, "must be serve or fail");
                        }
                    }
                    case "history.retention_days" -> {
                        if (value.isIntegralNumber() && value.asLong() >= 0 && value.asLong() <= 36_500) {
                            retention = value.asInt();
                        } else {
                            invalid(problems, param, "must be a whole number of days from 0 (keep for ever) to 36500");
                        }
                    }
                    case "history.keep_labelled" -> {
                        if (value.isBoolean()) {
                            keepLabelled = value.booleanValue();
                        } else {
                            invalid(problems, param, "must be true or false");
                        }
                    }
                    case "history.max_storage_gb" -> {
                        if (value.isNumber() && value.doubleValue() >= 0 && value.doubleValue() <= 1_000_000) {
                            maxStorage = value.doubleValue();
                        } else {
                            invalid(problems, param, "must be a number of gigabytes from 0 (no cap) to 1000000");
                        }
                    }
                    case "decisions.default_act_threshold" -> {
                        if (SettingRange.ACT_THRESHOLD.contains(value)) {
                            act = value.doubleValue();
                        } else {
                            invalid(problems, param, SettingRange.ACT_THRESHOLD.refusal());
                        }
                    }
                    default ->
                        invalid(
                                problems,
                                param,
                                "is not a setting (history.store, history.store_media, "
                                        + "history.on_store_error, history.retention_days, history.keep_labelled, "
                                        + "history.max_storage_gb, decisions.default_act_threshold)");
                }
            }
        }
        return new Values(store, storeMedia, fail, retention, keepLabelled, maxStorage, act);
    }

    private static void invalid(Problems problems, String param, String why) {
        problems.add(ErrorCode.INVALID_FIELD, param, "`" + param + "` " + why + ".");
    }
}
