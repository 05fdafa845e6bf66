package dev.arbor.platform.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.arbor.platform.http.Schema.Bound;
import dev.arbor.platform.json.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A number's range as the document renders it, checked by a real JSON Schema validator. */
class SchemaTest {
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
    private static final Schema ABOVE_ZERO_TO_ONE = Schema.number(Bound.exclusive(0), Bound.inclusive(1));
    private static final Schema ZERO_TO_BELOW_ONE = Schema.number(Bound.inclusive(0), Bound.exclusive(1));

    @ParameterizedTest(name = "{0}: (0, 1] {1}, [0, 1) {2}")
    @CsvSource({
        "0,    false, true",
        "0.5,  true,  true",
        "1,    true,  false",
        "1.01, false, false",
        "-1,   false, false",
    })
    void aNumbersBoundsKeepOrLeaveOutTheirEnds(String number, boolean inFirst, boolean inSecond) {
        JsonNode value = Json.read(number);
        assertThat(accepts(ABOVE_ZERO_TO_ONE, value)).isEqualTo(inFirst);
        assertThat(accepts(ZERO_TO_BELOW_ONE, value)).isEqualTo(inSecond);
    }

    @Test
    void aNumberWithoutBoundsIsAnyNumber() {
        assertThat(Schema.number().json()).containsOnlyKeys("type");
        assertThat(accepts(Schema.number(), Json.read("-1e300"))).isTrue();
    }

    @Test
    void aRangeMustNotBeEmptyNorEndlessAtOneEnd() {
        assertThatThrownBy(() -> Schema.number(Bound.inclusive(2), Bound.inclusive(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Bound.inclusive(Double.POSITIVE_INFINITY))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static boolean accepts(Schema schema, JsonNode value) {
        ObjectNode root = Json.mapper().valueToTree(schema.json());
        root.put("$schema", "https://json-schema.org/draft/2020-12/schema");
        return SCHEMAS.getSchema(root).validate(value).isEmpty();
    }
}
