package dev.arbor.studio.definitions;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.Schema.Bound;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodyField.Presence;
import java.util.Arrays;
import java.util.Optional;

/**
 * The range of each decision setting, as one rule: a template's settings, a decision request's, the studio's default
 * act threshold and the API document's schemas of them all read it here.
 */
public enum SettingRange {
    ACT_THRESHOLD("act_threshold", Bound.exclusive(0), Bound.inclusive(1), "must be a number above 0 and at most 1"),
    /** Past 20 a softmax is all but flat: every option looks alike, whatever the model read. */
    TEMPERATURE("temperature", Bound.exclusive(0), Bound.inclusive(20), "must be a number above 0 and at most 20"),
    MULTI_THRESHOLD(
            "multi_threshold", Bound.exclusive(0), Bound.exclusive(1), "must be a number between 0 and 1 (exclusive)");

    private final String key;
    private final BodyField.Decimal range;
    private final String refusal;

    SettingRange(String key, Bound lower, Bound upper, String refusal) {
        this.key = key;
        this.range = BodyField.number(Presence.OPTIONAL, key, lower, upper);
        this.refusal = refusal;
    }

    public String key() {
        return key;
    }

    /** What a value out of range is told, after its field's name. */
    public String refusal() {
        return refusal;
    }

    /** Whether {@code value} is a number in this range. */
    public boolean contains(JsonNode value) {
        return value.isNumber() && contains(value.doubleValue());
    }

    /** Whether {@code number} is in this range. */
    public boolean contains(double number) {
        return range.admits(number);
    }

    /** The setting's number, with its range, for the API document. */
    public Schema schema() {
        return range.schema();
    }

    /** An optional body field {@code name} holding this setting, refused with this setting's words. */
    public BodyField.Worded<Double> field(String name) {
        return BodyField.number(Presence.OPTIONAL, name, range.lower(), range.upper())
                .refusedAs(refusal);
    }

    public static Optional<SettingRange> of(String key) {
        return Arrays.stream(values()).filter(range -> range.key.equals(key)).findFirst();
    }
}
