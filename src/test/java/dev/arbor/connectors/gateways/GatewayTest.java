package dev.arbor.connectors.gateways;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.platform.db.Dialect;
import dev.arbor.testing.TestPostgres;
import dev.arbor.testing.TestServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Gateways configured from the registry and custom: credentials checked against their schema (every missing field
 * named) and sealed, scopes that decide which projects' agents see a gateway, toggle, clients, delete.
 */
class GatewayTest {
    private static final String SECRET = "hf_secret_value_42";

    @Test
    void aCustomGatewaySaysWhatEachFieldMustBe() {
        try (var server = ArborServer.start(Map.of())) {
            JsonNode error = server.http().post("/connectors/custom", """
                    {"every": 1, "name": " ", "transport": 5, "url": "", "description": ""}""").assertError(400, "invalid_field", "every");
            assertThat(error.path("details").findValuesAsText("message"))
                    .containsExactly(
                            "`every` is not a field of a custom gateway (its fields: args, auth_type, clients, command, "
                                    + "credentials, description, name, scope, transport, url).",
                            "`name` must be a non-empty string of at most 200 characters.",
                            "`transport` must be a non-empty string of at most 20 characters.",
                            "`url` must be a non-empty string of at most 2048 characters.",
                            "`auth_type` is required.",
                            "`description` must be a non-empty string of at most 2000 characters.");
        }
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void gatewaysAreConfiguredScopedToggledAndDeleted(Dialect dialect) throws Exception {
        var env = dialect == Dialect.POSTGRESQL
                ? Map.of("ARBOR_DATABASE_URL", TestPostgres.newDatabaseUrl(), "ARBOR_OUTBOUND_ALLOW", "127.0.0.1")
                : Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1");
        try (var server = ArborServer.start(env)) {
            TestServer http = server.http();
            String red = http.newProject("red");
            String blue = http.newProject("blue");

            JsonNode missing = http.post(
                            "/connectors/gateways",
                            "{\"connector_id\": \"github\", \"credentials\": "
                                    + "{\"scopes\": \"repo\", \"token\": 1}}")
                    .assertError(400, "invalid_field", "credentials.token");
            assertThat(missing.path("details").findValuesAsText("param"))
                    .containsExactlyInAnyOrder("credentials.client_id", "credentials.scopes", "credentials.token");
            http.post("/connectors/gateways", "{\"connector_id\": \"huggingface\"}")
                    .assertError(400, "missing_field", "credentials.auth_headers");
            http.post(
                            "/connectors/gateways",
                            "{\"connector_id\": \"huggingface\", \"credentials\": {\"auth_headers\": "
                                    + "[{\"key\": \"Bad Header\", \"value\": \"x\"}]}}")
                    .assertError(400, "invalid_field", "credentials.auth_headers[0]");
            http.post("/connectors/gateways", "{\"connector_id\": \"nope\"}")
                    .assertError(404, "connector_not_found", "connector_id");
            http.post("/connectors/gateways", "{}").assertError(400, "missing_field", "connector_id");
            http.post(
                            "/connectors/gateways",
                            "{\"connector_id\": \"deepwiki\", \"scope\": {\"global\": true, " + "\"projects\": [\""
                                    + red + "\"]}}")
                    .assertError(400, "invalid_field", "scope.projects");
            http.post(
                            "/connectors/gateways",
                            "{\"connector_id\": \"deepwiki\", \"scope\": {\"projects\": " + "[\"proj_nope\"]}}")
                    .assertError(400, "invalid_field", "scope.projects[0]");

            JsonNode hub = http.post(
                            "/connectors/gateways",
                            "{\"connector_id\": \"huggingface\", \"name\": \"HF\", "
                                    + "\"credentials\": {\"auth_headers\": [{\"key\": \"Authorization\", \"value\": \"Bearer "
                                    + SECRET
                                    + "\"}], \"passthrough_headers\": [\"X-Trace\"]}, \"scope\": {\"projects\": [\""
                                    + red + "\", \""
                                    + red + "\"]}}")
                    .json();
            assertThat(hub.path("name").asText()).isEqualTo("HF");
            assertThat(hub.path("source").asText()).isEqualTo("registry");
            assertThat(hub.at("/credentials/auth_headers/0/key").asText()).isEqualTo("Authorization");
            assertThat(hub.at("/credentials/auth_headers/0/value_set").asBoolean())
                    .isTrue();
            assertThat(hub.toString()).doesNotContain(SECRET);
            assertThat(hub.at("/scope/projects").toString()).isEqualTo("[\"" + red + "\"]");
            JsonNode github = http.post(
                            "/connectors/gateways",
                            "{\"connector_id\": \"github\", \"credentials\": "
                                    + "{\"client_id\": \"abc\", \"client_secret\": \"s3\"}, \"scope\": {\"global\": true}}")
                    .json();
            assertThat(github.at("/credentials/scopes").toString()).isEqualTo("[\"repo\",\"read:org\"]");
            assertThat(github.at("/credentials/client_secret_set").asBoolean()).isTrue();
            // credentials are replaced whole, checked as at creation; a bad set changes nothing
            String gh = github.path("id").asText();
            http.patch("/connectors/configured/" + gh, "{\"credentials\": {\"client_secret\": \"s4\"}}")
                    .assertError(400, "missing_field", "credentials.client_id");
            assertThat(http.get("/connectors/configured?limit=100").json().toString())
                    .contains("\"abc\"");
            JsonNode rotated = http.patch(
                            "/connectors/configured/" + gh,
                            "{\"credentials\": {\"client_id\": " + "\"def\", \"scopes\": [\"repo\"]}}")
                    .json();
            assertThat(rotated.at("/credentials/client_id").asText()).isEqualTo("def");
            assertThat(rotated.at("/credentials/scopes").toString()).isEqualTo("[\"repo\"]");
            assertThat(rotated.at("/credentials/client_secret_set").asBoolean()).isFalse();
            assertThat(rotated.at("/scope/global").asBoolean()).isTrue();
            JsonNode closed = http.post("/connectors/gateways", "{\"connector_id\": \"deepwiki\"}")
                    .json();
            assertThat(closed.at("/scope/global").asBoolean()).isFalse();

            http.post(
                            "/connectors/custom",
                            "{\"name\": \"Inside\", \"url\": \"http://10.9.9.9/mcp\", " + "\"auth_type\": \"none\"}")
                    .assertError(400, "invalid_field", "url");
            http.post("/connectors/custom", "{\"url\": \"http://127.0.0.1:9/sse\", \"auth_type\": \"telepathy\"}")
                    .assertError(400, "missing_field", "name");
            JsonNode custom = http.post(
                            "/connectors/custom",
                            "{\"name\": \"Local\", \"url\": \"http://127.0.0.1:9/sse\", "
                                    + "\"auth_type\": \"oauth\", \"scope\": {\"projects\": [\"" + blue
                                    + "\"]}, \"clients\": "
                                    + "[\"prompt\"]}")
                    .json();
            assertThat(custom.path("transport").asText()).isEqualTo("sse");
            assertThat(custom.path("source").asText()).isEqualTo("custom");
            assertThat(custom.path("clients").toString()).isEqualTo("[\"prompt\"]");

            assertThat(ids(http, "/connectors/available?project_id=" + red))
                    .containsExactlyInAnyOrder(
                            hub.path("id").asText(), github.path("id").asText());
            assertThat(ids(http, "/connectors/available?project_id=" + blue))
                    .containsExactlyInAnyOrder(
                            custom.path("id").asText(), github.path("id").asText());
            assertThat(ids(http, "/connectors/available"))
                    .containsExactly(github.path("id").asText());
            http.get("/connectors/available?project_id=proj_nope").assertError(404, "project_not_found", "project_id");

            assertThat(http.patch("/connectors/configured/" + gh + "/toggle", "")
                            .json()
                            .at("/scope/enabled")
                            .asBoolean())
                    .isFalse();
            assertThat(ids(http, "/connectors/available?project_id=" + red))
                    .containsExactly(hub.path("id").asText());
            assertThat(ids(http, "/connectors/configured")).doesNotContain(gh);
            assertThat(ids(http, "/connectors/configured?include_disabled=true"))
                    .contains(gh);
            assertThat(http.patch("/connectors/configured/" + gh + "/toggle", "{\"enabled\": true}")
                            .json()
                            .at("/scope/enabled")
                            .asBoolean())
                    .isTrue();

            JsonNode narrowed = http.patch(
                            "/connectors/configured/" + gh,
                            "{\"scope\": {\"global\": false, " + "\"projects\": [\"" + blue
                                    + "\"]}, \"clients\": [\"studio\"]}")
                    .json();
            assertThat(narrowed.path("clients").toString()).isEqualTo("[\"studio\"]");
            assertThat(ids(http, "/connectors/available?project_id=" + red)).doesNotContain(gh);
            assertThat(ids(http, "/connectors/available?project_id=" + blue)).contains(gh);
            http.patch("/connectors/configured/" + gh, "{\"clients\": [\"desktop\"]}")
                    .assertError(400, "invalid_field", "clients");
            http.patch("/connectors/configured/gw_nope", "{}").assertError(404, "gateway_not_found", "gateway_id");
            JsonNode read = http.get("/connectors/configured/" + gh).json();
            narrowed.fieldNames().forEachRemaining(field -> {
                if (!field.equals("detached_agents")) {
                    assertThat(read.path(field))
                            .as("its read shows %s as the change answered", field)
                            .isEqualTo(narrowed.path(field));
                }
            });
            assertThat(read.has("detached_agents")).isFalse();
            http.get("/connectors/configured/gw_nope").assertError(404, "gateway_not_found", "gateway_id");

            assertThat(http.delete("/connectors/gateways/" + gh)
                            .json()
                            .path("deleted")
                            .asBoolean())
                    .isTrue();
            http.delete("/connectors/gateways/" + gh).assertError(404, "gateway_not_found", "gateway_id");
            assertThat(ids(http, "/connectors/available?project_id=" + blue)).doesNotContain(gh);

            if (dialect == Dialect.SQLITE) {
                try (Stream<Path> files = Files.list(server.dataDir())) {
                    for (Path file : files.filter(
                                    f -> f.getFileName().toString().startsWith("arbor.db"))
                            .toList()) {
                        assertThat(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1))
                                .doesNotContain(SECRET);
                    }
                }
            }
        }
    }

    private static java.util.List<String> ids(TestServer http, String path) {
        return http.get(path).json().path("data").findValuesAsText("id");
    }
}
