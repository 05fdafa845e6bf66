package dev.arbor.studio.definitions;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.platform.json.Json;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Each setting's range is checked and documented from the same bounds. */
class SettingRangeTest {
    @ParameterizedTest(name = "{0} {1}: {2}")
    @CsvSource({
        "ACT_THRESHOLD,   0,     false",
        "ACT_THRESHOLD,   0.01,  true",
        "ACT_THRESHOLD,   1,     true",
        "ACT_THRESHOLD,   1.01,  false",
        "TEMPERATURE,     0,     false",
        "TEMPERATURE,     20,    true",
        "TEMPERATURE,     20.5,  false",
        "MULTI_THRESHOLD, 0.99,  true",
        "MULTI_THRESHOLD, 1,     false",
        "ACT_THRESHOLD,   '\"1\"', false",
    })
    void aSettingIsInItsRangeOrNot(SettingRange range, String value, boolean inRange) {
        assertThat(range.contains(Json.read(value))).isEqualTo(inRange);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "ACT_THRESHOLD,   exclusiveMinimum, 0, maximum,          1",
        "TEMPERATURE,     exclusiveMinimum, 0, maximum,          20",
        "MULTI_THRESHOLD, exclusiveMinimum, 0, exclusiveMaximum, 1",
    })
    void theDocumentShowsTheSameRange(
            SettingRange range, String lowerKey, double lower, String upperKey, double upper) {
        assertThat(range.schema().json())
                .containsEntry("type", "number")
                .containsEntry(lowerKey, lower)
                .containsEntry(upperKey, upper);
    }
}
