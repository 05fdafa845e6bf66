package dev.arbor.platform.http.bodies;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static dev.arbor.platform.http.bodies.BodyField.Presence.REQUIRED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problem;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.json.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A declared body refuses exactly what the schema it renders refuses: each case is checked by the server's reader
 * and by a real JSON Schema validator against the rendered schema, and the two must agree.
 */
class BodySpecTest {
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);

    private static final BodyField.Text NAME = BodyField.text(REQUIRED, "name", 5)
            .matching(Pattern.compile("[a-z][a-z0-9-]*"), "must be a-z, 0-9 and '-', starting with a letter");
    private static final BodyField.Text NOTE = BodyField.text(OPTIONAL, "note", 3);
    private static final BodyField.Choice KIND =
            BodyField.choice(OPTIONAL, "kind", List.of("a", "b"), "must be a or b");
    private static final BodyField.Whole COUNT = BodyField.integer(OPTIONAL, "count", 1, 10);
    private static final BodyField.Texts TAGS = BodyField.texts(OPTIONAL, "tags", 2, 3);
    private static final BodyField.Flag ON = BodyField.flag(OPTIONAL, "on");
    private static final BodySpec SPEC = BodySpec.of(NAME, NOTE, KIND, COUNT, TAGS, ON);

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            {"name": "ab"}                                | ''
            {"name": "ab", "note": "", "kind": "b"}       | ''
            {"name": "ab", "count": 10, "tags": ["x"]}    | ''
            {"name": "ab", "on": false, "extra": 1}       | ''
            {"name": "ab", "note": null}                  | ''
            {}                                            | missing_field name
            {"name": "   "}                               | invalid_field name
            {"name": "abcdef"}                            | invalid_field name
            {"name": "1ab"}                               | invalid_field name
            {"name": 7}                                   | invalid_field name
            {"name": "ab", "note": "four"}                | invalid_field note
            {"name": "ab", "kind": "c"}                   | invalid_field kind
            {"name": "ab", "count": 0}                    | invalid_field count
            {"name": "ab", "count": 11}                   | invalid_field count
            {"name": "ab", "count": 1.5}                  | invalid_field count
            {"name": "ab", "tags": ["x", "y", "z"]}       | invalid_field tags
            {"name": "ab", "tags": ["long"]}              | invalid_field tags[0]
            {"name": "ab", "tags": [" "]}                 | invalid_field tags[0]
            {"name": "ab", "on": "yes"}                   | invalid_field on
            """)
    void theReaderAndTheSchemaRefuseTheSameBodies(String body, String refusal) {
        JsonNode json = Json.read(body);
        var reader = SPEC.reader((ObjectNode) json);
        SPEC.fields().forEach(field -> field.read(reader));
        List<String> problems = reader.problems().list().stream()
                .map(p -> p.code().code() + " " + p.param())
                .toList();
        assertThat(problems).as(body).isEqualTo(refusal.isEmpty() ? List.of() : List.of(refusal));
        assertThat(schemaErrors(json)).as("the schema's verdict on %s", body).isEqualTo(!refusal.isEmpty());
    }

    private enum Level {
        LOW,
        HIGH
    }

    private static final BodySpec NESTED = BodySpec.of(
            BodyField.number(OPTIONAL, "ratio", Schema.Bound.exclusive(0), Schema.Bound.inclusive(1)),
            BodyField.word(
                    OPTIONAL,
                    "level",
                    List.of(Level.values()),
                    level -> level.name().toLowerCase(java.util.Locale.ROOT)),
            BodyField.words(OPTIONAL, "media", List.of("image", "audio"), 2),
            BodyField.group(
                    OPTIONAL,
                    "limits",
                    BodySpec.closed(
                            "the limits", BodyField.integer(OPTIONAL, "max", 0, 9), BodyField.flag(OPTIONAL, "on"))));

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            {"ratio": 1, "level": "low", "limits": {"max": 9}}   | ''
            {"ratio": 0.5, "limits": {}}                         | ''
            {"ratio": null, "level": null, "limits": null}       | ''
            {"ratio": 0}                                         | invalid_field ratio
            {"ratio": 1.01}                                      | invalid_field ratio
            {"ratio": "0.5"}                                     | invalid_field ratio
            {"level": "LOW"}                                     | invalid_field level
            {"level": 1}                                         | invalid_field level
            {"media": ["audio", "image"]}                        | ''
            {"media": ["image", "image"]}                        | ''
            {"media": ["smell"]}                                 | invalid_field media
            {"media": ["image", "audio", "image"]}               | invalid_field media
            {"media": "image"}                                   | invalid_field media
            {"limits": []}                                       | invalid_field limits
            {"limits": {"max": 10}}                              | invalid_field limits.max
            {"limits": {"min": 1}}                               | invalid_field limits.min
            """)
    void numbersWordsListsOfWordsAndGroupsAreRefusedAsTheirSchemaRefusesThem(String body, String refusal) {
        JsonNode json = Json.read(body);
        var reader = NESTED.reader((ObjectNode) json);
        NESTED.fields()
                .forEach(field -> field.read(reader).ifPresent(value -> {
                    if (value instanceof BodyReader limits) {
                        NESTED_LIMITS.fields().forEach(limit -> limit.read(limits));
                    }
                }));
        assertThat(reader.problems().list())
                .extracting(p -> p.code().code() + " " + p.param())
                .as(body)
                .isEqualTo(refusal.isEmpty() ? List.of() : List.of(refusal));
        assertThat(schemaErrors(NESTED, json))
                .as("the schema's verdict on %s", body)
                .isEqualTo(!refusal.isEmpty());
    }

    private static final BodySpec NESTED_LIMITS =
            ((BodyField.Group) NESTED.fields().getLast()).spec();

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            {"ratio": 0}           | `ratio` must be a number above 0 and at most 1.
            {"level": "medium"}    | `level` must be low or high.
            {"media": ["smell"]}   | `media` takes image and audio.
            {"limits": {"min": 1}} | `limits.min` is not a field of the limits (its fields: max, on).
            """)
    void theirRefusalsSayWhatIsAllowed(String body, String message) {
        var reader = NESTED.reader((ObjectNode) Json.read(body));
        NESTED.fields().forEach(field -> field.read(reader));
        assertThat(reader.problems().list()).extracting(Problem::message).containsExactly(message);
    }

    @Test
    void theSchemaCarriesTheDeclaredLimits() {
        JsonNode schema = Json.mapper().valueToTree(SPEC.schema().json());
        assertThat(schema.path("required").toString()).isEqualTo("[\"name\"]");
        var names = new ArrayList<String>();
        schema.path("properties").fieldNames().forEachRemaining(names::add);
        assertThat(names).containsExactly("name", "note", "kind", "count", "tags", "on");
        assertThat(schema.at("/properties/name/maxLength").asInt()).isEqualTo(5);
        assertThat(schema.at("/properties/name/minLength").asInt()).isEqualTo(1);
        assertThat(schema.at("/properties/name/pattern").asText()).isEqualTo("^(?:[a-z][a-z0-9-]*)$");
        assertThat(schema.at("/properties/kind/enum").toString()).isEqualTo("[\"a\",\"b\",null]");
        assertThat(schema.at("/properties/count/minimum").asLong()).isEqualTo(1);
        assertThat(schema.at("/properties/count/maximum").asLong()).isEqualTo(10);
        assertThat(schema.at("/properties/tags/maxItems").asInt()).isEqualTo(2);
        assertThat(schema.at("/properties/tags/items/maxLength").asInt()).isEqualTo(3);
    }

    @Test
    void aFieldTheBodyDoesNotDeclareCannotBeRead() {
        var reader = BodySpec.of(NOTE).reader(Json.object());
        assertThatThrownBy(() -> COUNT.read(reader))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("count");
    }

    @Test
    void aFieldMadeAgainWithTheSameRulesIsTheDeclaredOneAndOneWithOtherRulesIsNot() {
        var declared =
                BodyField.text(REQUIRED, "id", 10).matching(Pattern.compile("[a-z]+"), "must be lower case letters");
        var reader = BodySpec.of(declared).reader((ObjectNode) Json.read("{\"id\": \"abc\"}"));

        // a pattern compiled anew is not equal to the first, yet it is the same rule
        var again =
                BodyField.text(REQUIRED, "id", 10).matching(Pattern.compile("[a-z]+"), "must be lower case letters");
        assertThat(again.read(reader)).contains("abc");
        assertThatThrownBy(() -> BodyField.text(REQUIRED, "id", 11).read(reader))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("id");
    }

    @Test
    void aClosedBodyRefusesWhatItDoesNotDeclareAndSaysSo() {
        BodySpec closed = BodySpec.closed("a probe", NOTE, COUNT);
        Problems problems = closed.reader((ObjectNode) Json.read("{\"note\": \"a\", \"other\": 1}"))
                .problems();
        assertThat(problems.list()).extracting(Problem::param).containsExactly("other");
        assertThat(problems.list().getFirst().message()).contains("a probe", "count, note");
        assertThat(closed.schema().json()).containsEntry("additionalProperties", false);
        assertThat(SPEC.schema().json()).doesNotContainKey("additionalProperties");
    }

    private static final BodySpec WORDED = BodySpec.of(
            BodyField.text(REQUIRED, "host", 5)
                    .refusedAs("must be a host name")
                    .missingAs("is required: the server's " + "host name"),
            BodyField.integer(OPTIONAL, "port", 1, 65_535).refusedAs("must be a port number, 1 to 65535"),
            BodyField.flag(OPTIONAL, "tls").refusedAs("must be on or off"),
            BodyField.text(REQUIRED, "user", 9).refusedAs("must be a user name"));

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            {"port": 25, "user": "u"}           | missing_field host | `host` is required: the server's host name.
            {"host": " ", "user": "u"}          | invalid_field host | `host` must be a host name.
            {"host": "abcdef", "user": "u"}     | invalid_field host | `host` must be a host name.
            {"host": "a", "port": 0, "user": "u"} | invalid_field port | `port` must be a port number, 1 to 65535.
            {"host": "a", "port": "25", "user": "u"} | invalid_field port | `port` must be a port number, 1 to 65535.
            {"host": "a", "tls": 1, "user": "u"} | invalid_field tls  | `tls` must be on or off.
            {"host": "a", "user": 1}            | invalid_field user | `user` must be a user name.
            {"host": "a", "tls": true}          | missing_field user | `user` is required.
            """)
    void aWordedFieldKeepsItsCodeAndParamAndSaysItsOwnRefusal(String body, String refusal, String message) {
        var reader = WORDED.reader((ObjectNode) Json.read(body));
        WORDED.fields().forEach(field -> field.read(reader));
        assertThat(reader.problems().list())
                .extracting(p -> p.code().code() + " " + p.param(), Problem::message)
                .containsExactly(Tuple.tuple(refusal, message));
    }

    @Test
    void aWordedFieldLeavesTheHandlersLaterChecksTheirOwnWords() {
        var reader = WORDED.reader((ObjectNode) Json.read("{\"host\": \"a\", \"port\": 0, \"user\": \"u\"}"));
        WORDED.fields().forEach(field -> field.read(reader));
        reader.reject("host", ErrorCode.INVALID_FIELD, "cannot be used: private address");
        assertThat(reader.problems().list())
                .extracting(Problem::message)
                .containsExactly(
                        "`port` must be a port number, 1 to 65535.", "`host` cannot be used: private address.");
    }

    @Test
    void aWordedFieldDescribesItselfAsTheFieldItWords() {
        JsonNode schema = Json.mapper().valueToTree(WORDED.schema().json());
        assertThat(schema.path("required").toString()).isEqualTo("[\"host\",\"user\"]");
        assertThat(schema.at("/properties/port/maximum").asLong()).isEqualTo(65_535);
        assertThat(schema.at("/properties/host/maxLength").asInt()).isEqualTo(5);
    }

    @Test
    void aBodyDeclaresEachNameOnce() {
        assertThatThrownBy(() -> BodySpec.of(NOTE, BodyField.text(REQUIRED, "note", 9)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static boolean schemaErrors(JsonNode value) {
        return schemaErrors(SPEC, value);
    }

    private static boolean schemaErrors(BodySpec spec, JsonNode value) {
        ObjectNode root = Json.mapper().valueToTree(spec.schema().json());
        root.put("$schema", "https://json-schema.org/draft/2020-12/schema");
        return !SCHEMAS.getSchema(root).validate(value).isEmpty();
    }
}
