package dev.arbor.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.json.Json;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ChangesTest {
    @Test
    void aChangedFieldIsItsPathWithItsValuesBeforeAndAfter() {
        var changes = Changes.between(
                state("{\"name\": \"a\", \"plan\": {\"model\": \"x\", \"tags\": [1]}, \"same\": 1}"),
                state("{\"name\": \"b\", \"plan\": {\"model\": \"x\", \"tags\": [1, 2]}, \"same\": 1}"));
        assertThat(Json.writeString(changes))
                .isEqualTo("[{\"path\":\"/name\",\"before\":\"a\",\"after\":\"b\"},"
                        + "{\"path\":\"/plan/tags\",\"before\":[1],\"after\":[1,2]}]");
    }

    @Test
    void aFieldAddedOrRemovedHasOnlyTheSideItIsOn() {
        var changes = Changes.between(state("{\"gone\": 1, \"a/b\": null}"), state("{\"new\": 2, \"a/b\": null}"));
        assertThat(Json.writeString(changes))
                .isEqualTo("[{\"path\":\"/gone\",\"before\":1},{\"path\":\"/new\",\"after\":2}]");
    }

    @Test
    void aCreateShowsEveryFieldAsNew() {
        var changes = Changes.between(Optional.empty(), state("{\"id\": \"r_1\", \"x\": {\"y\": 1}}"));
        assertThat(Json.writeString(changes))
                .isEqualTo("[{\"path\":\"/id\",\"after\":\"r_1\"},{\"path\":\"/x/y\",\"after\":1}]");
    }

    private static Optional<JsonNode> state(String json) {
        return Optional.of(Json.read(json));
    }
}
