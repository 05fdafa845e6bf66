package dev.arbor.credentials;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.TestServer;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Credentials: stored, listed by name only, replaced, deleted, and every refusal with its code and param. */
class CredentialsTest {
    @Test
    void credentialsKeepTheirValuesToThemselves() {
        try (var server = ArborServer.start(Map.of())) {
            TestServer http = server.http();
            JsonNode created = http.post(
                            "/credentials",
                            "{\"name\": \"hub.token\", \"value\": \"tok-1\", " + "\"description\": \"the hub\"}")
                    .json();
            String id = created.path("id").asText();
            assertThat(id).startsWith("cred_");
            assertThat(created.path("description").asText()).isEqualTo("the hub");
            http.post("/credentials", "{\"name\": \"has space\", \"value\": \"v\"}")
                    .assertError(400, "invalid_field", "name");
            http.post("/credentials", "{\"name\": \"hub.token\", \"value\": \"v\"}")
                    .assertError(409, "credential_exists", "name");
            JsonNode replaced =
                    http.put("/credentials/" + id, "{\"value\": \"tok-2\"}").json();
            assertThat(replaced.path("description").asText()).isEqualTo("the hub");
            http.put("/credentials/" + id, "{}").assertError(400, "missing_field", "value");
            assertThat(http.get("/credentials").body())
                    .contains("hub.token")
                    .doesNotContain("tok-1")
                    .doesNotContain("tok-2");
            assertThat(http.get("/credentials/" + id).body()).doesNotContain("tok-2");
            assertThat(http.delete("/credentials/" + id).json().path("deleted").asBoolean())
                    .isTrue();
            http.get("/credentials/" + id).assertError(404, "credential_not_found", "credential_id");
            http.delete("/credentials/" + id).assertError(404, "credential_not_found", "credential_id");
        }
    }
}
