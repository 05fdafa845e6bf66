package dev.arbor.connectors.gateways;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.ArborServer;
import dev.arbor.platform.json.Json;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TestServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code GET /connectors/custom/credential-schemas} gives the credentials a custom gateway takes for each auth type,
 * and they are what {@code POST /connectors/custom} checks: every field it lists is taken, every field it marks
 * required is refused when missing.
 */
class CustomCredentialSchemasTest {
    private static ArborServer server;
    private static TestServer http;

    @BeforeAll
    static void start() {
        server = ArborServer.start(Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1"));
        http = server.http();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static JsonNode schemas() {
        HttpReply reply = http.get("/connectors/custom/credential-schemas");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        return reply.json();
    }

    private static HttpReply custom(String name, String auth, ObjectNode credentials) {
        return http.post(
                "/connectors/custom",
                Json.writeString(Map.of(
                        "name", name, "url", "http://127.0.0.1:9/mcp", "auth_type", auth, "credentials", credentials)));
    }

    @Test
    void thereIsOneSchemaPerAuthTypeWithTheFieldsOfEach() {
        JsonNode list = schemas();

        assertThat(list.path("object").asText()).isEqualTo("list");
        assertThat(list.path("has_more").asBoolean()).isFalse();
        assertThat(list.path("data").findValuesAsText("auth_type")).containsExactly("none", "headers", "oauth");
        Map<String, List<String>> fields = Map.of(
                "none", List.of("passthrough_headers"),
                "headers", List.of("auth_headers", "passthrough_headers"),
                "oauth",
                        List.of(
                                "client_id",
                                "client_secret",
                                "scopes",
                                "authorization_url",
                                "token_url",
                                "authorization",
                                "passthrough_headers"));
        for (JsonNode schema : list.path("data")) {
            assertThat(schema.path("object").asText()).isEqualTo("connector.credential_schema");
            assertThat(schema.path("fields").findValuesAsText("field"))
                    .as(schema.toString())
                    .containsExactlyElementsOf(
                            fields.get(schema.path("auth_type").asText()));
        }
        JsonNode headers = list.path("data").path(1).path("fields").path(0);
        assertThat(headers.path("required").asBoolean()).isTrue();
        assertThat(headers.path("secret").asBoolean()).isTrue();
        assertThat(headers.path("type").asText()).isEqualTo("key_value_list");
    }

    @Test
    void aCustomServersClientIdIsNotRequiredForItMayRegisterClientsItself() {
        JsonNode clientId = schemas().path("data").path(2).path("fields").path(0);

        assertThat(clientId.path("field").asText()).isEqualTo("client_id");
        assertThat(clientId.path("required").asBoolean()).isFalse();
        assertThat(custom("Registers", "oauth", Json.object()).status()).isEqualTo(201);
    }

    @Test
    void everyFieldTheSchemaMarksRequiredIsRefusedWhenMissing() {
        var required = new ArrayList<String>();
        for (JsonNode schema : schemas().path("data")) {
            for (JsonNode field : schema.path("fields")) {
                if (field.path("required").asBoolean()) {
                    String auth = schema.path("auth_type").asText();
                    required.add(auth + " " + field.path("field").asText());
                    custom("Missing", auth, Json.object())
                            .assertError(
                                    400,
                                    "missing_field",
                                    "credentials." + field.path("field").asText());
                }
            }
        }
        assertThat(required).containsExactly("headers auth_headers");
    }

    @ParameterizedTest
    @ValueSource(strings = {"none", "headers", "oauth"})
    void everyFieldTheSchemaListsIsTakenWithAValueOfItsType(String auth) {
        JsonNode schema = Json.object();
        for (JsonNode each : schemas().path("data")) {
            if (each.path("auth_type").asText().equals(auth)) {
                schema = each;
            }
        }
        ObjectNode credentials = Json.object();
        for (JsonNode field : schema.path("fields")) {
            String name = field.path("field").asText();
            switch (field.path("type").asText()) {
                case "string" -> credentials.put(name, "a-value");
                case "select" ->
                    credentials.put(name, field.path("options").path(0).asText());
                case "url" -> credentials.put(name, "http://127.0.0.1:9/" + name);
                case "string_list" -> credentials.putArray(name).add("X-Trace");
                case "key_value_list" ->
                    credentials
                            .putArray(name)
                            .addObject()
                            .put("key", "Authorization")
                            .put("value", "Bearer t");
                default -> throw new AssertionError("a type no editor knows: " + field);
            }
        }

        HttpReply created = custom("Every field " + auth, auth, credentials);

        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(created.json().path("auth_type").asText()).isEqualTo(auth);
    }
}
