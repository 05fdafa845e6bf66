package dev.arbor.connectors.gateways;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.TestServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The MCP connector registry: the shipped catalog (at least 25 real servers), search, cursors, each entry's
 * credential schema by auth type, and admins' own entries with every refusal.
 */
class ConnectorRegistryTest {
    @Test
    void theCatalogListsRealServersByNameWithSearchAndCursors() {
        try (var server = ArborServer.start(Map.of())) {
            TestServer http = server.http();
            JsonNode all = http.get("/connectors/registry?limit=100").json();
            List<String> names = new ArrayList<>();
            all.path("data").forEach(c -> {
                names.add(c.path("name").asText());
                assertThat(c.path("url").asText()).startsWith("https://");
                assertThat(c.path("transport").asText()).isIn("streamable_http", "sse");
                assertThat(c.path("auth_type").asText()).isIn("none", "headers", "oauth");
                assertThat(c.path("documentation_url").asText()).startsWith("https://");
                assertThat(c.path("built_in").asBoolean()).isTrue();
            });
            assertThat(names).hasSizeGreaterThanOrEqualTo(25);
            assertThat(names).isSortedAccordingTo(String.CASE_INSENSITIVE_ORDER);

            JsonNode first = http.get("/connectors/registry?limit=10").json();
            assertThat(first.path("has_more").asBoolean()).isTrue();
            JsonNode second = http.get("/connectors/registry?limit=10&after="
                            + first.path("last_id").asText())
                    .json();
            assertThat(second.path("data").get(0).path("name").asText()).isEqualTo(names.get(10));
            JsonNode back = http.get("/connectors/registry?limit=10&before="
                            + second.path("first_id").asText())
                    .json();
            assertThat(back.path("data").toString())
                    .isEqualTo(first.path("data").toString());
            http.get("/connectors/registry?after=nope").assertError(400, "invalid_parameter", "after");

            JsonNode cloudflare = http.get("/connectors/registry?q=CLOUDFLARE").json();
            assertThat(cloudflare.path("data").findValuesAsText("provider"))
                    .hasSize(3)
                    .containsOnly("Cloudflare");
            assertThat(http.get("/connectors/registry?q=zzzz").json().path("data"))
                    .isEmpty();
        }
    }

    @Test
    void eachEntryGivesTheCredentialSchemaOfItsAuthType() {
        try (var server = ArborServer.start(Map.of())) {
            TestServer http = server.http();
            JsonNode github = http.get("/connectors/registry/github").json();
            assertThat(fields(github))
                    .containsExactly(
                            "client_id",
                            "client_secret",
                            "scopes",
                            "authorization_url",
                            "token_url",
                            "authorization",
                            "passthrough_headers");
            assertThat(field(github, "client_id").path("required").asBoolean()).isTrue();
            assertThat(field(github, "scopes").path("type").asText()).isEqualTo("string_list");
            assertThat(field(github, "scopes").path("default").toString()).isEqualTo("[\"repo\",\"read:org\"]");
            assertThat(field(github, "client_secret").path("secret").asBoolean())
                    .isTrue();
            // a server that registers clients itself needs no client id
            assertThat(field(http.get("/connectors/registry/linear").json(), "client_id")
                            .path("required")
                            .asBoolean())
                    .isFalse();
            JsonNode hub = http.get("/connectors/registry/huggingface").json();
            assertThat(fields(hub)).containsExactly("auth_headers", "passthrough_headers");
            assertThat(field(hub, "auth_headers").path("required").asBoolean()).isTrue();
            assertThat(fields(http.get("/connectors/registry/deepwiki").json())).containsExactly("passthrough_headers");
            http.get("/connectors/registry/nope").assertError(404, "connector_not_found", "connector_id");
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "http://127.0.0.1:9/mcp",
                "http://localhost:9/mcp",
                "http://[::1]:9/mcp",
                "http://169.254.169.254/latest/meta-data/"
            })
    void anEntryWhoseUrlTheOutboundPolicyRefusesIsRefused(String url) {
        try (var server = ArborServer.start(Map.of())) {
            TestServer http = server.http();
            JsonNode error = http.post(
                            "/connectors/registry",
                            "{\"id\": \"inside\", \"name\": \"Inside\", \"url\": \"" + url
                                    + "\", \"auth_type\": \"none\"}")
                    .assertError(400, "invalid_field", "url");
            assertThat(error.path("message").asText())
                    .startsWith("`url` cannot be used: ")
                    .contains("a loopback, private or internal address");
            http.get("/connectors/registry/inside").assertError(404, "connector_not_found", "connector_id");
        }
    }

    @Test
    void anEntryOnAnAllowedInternalAddressIsAdded() {
        try (var server = ArborServer.start(Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1"))) {
            JsonNode added = server.http()
                    .post(
                            "/connectors/registry",
                            "{\"id\": \"inside\", \"name\": \"Inside\", \"url\": \"http://127.0.0.1:9/mcp\", "
                                    + "\"auth_type\": \"none\"}")
                    .json();
            assertThat(added.path("url").asText()).isEqualTo("http://127.0.0.1:9/mcp");
        }
    }

    @Test
    void adminsAddAndRemoveTheirOwnEntriesButNotTheCatalogs() {
        try (var server = ArborServer.start(Map.of())) {
            TestServer http = server.http();
            JsonNode error = http.post("/connectors/registry", "{\"id\": \"Bad Id\", \"auth_type\": \"magic\"}")
                    .assertError(400, "missing_field", "name");
            assertThat(error.path("details").findValuesAsText("param"))
                    .containsExactlyInAnyOrder("name", "url", "id", "auth_type");
            http.post(
                            "/connectors/registry",
                            "{\"id\": \"internal\", \"name\": \"Internal\", "
                                    + "\"url\": \"ftp://files.example/mcp\", \"auth_type\": \"none\"}")
                    .assertError(400, "invalid_field", "url");
            http.post(
                            "/connectors/registry",
                            "{\"id\": \"docs\", \"name\": \"Docs\", \"url\": "
                                    + "\"https://mcp.example.com/mcp\", \"auth_type\": \"none\", \"oauth_scopes\": [\"a\"]}")
                    .assertError(400, "invalid_field", "oauth_scopes");

            JsonNode added = http.post("/connectors/registry", """
                    {"id": "acme-tickets", "name": "Acme Tickets", "url": "https://mcp.acme.example/sse",
                     "auth_type": "oauth", "oauth_scopes": ["tickets:read"], "oauth_supports_dcr": true,
                     "category": "support", "documentation_url": "https://acme.example/docs/mcp"}""").json();
            assertThat(added.path("transport").asText()).isEqualTo("sse");
            assertThat(added.path("built_in").asBoolean()).isFalse();
            assertThat(field(added, "client_id").path("required").asBoolean()).isFalse();
            assertThat(http.get("/connectors/registry?q=acme").json().path("data"))
                    .hasSize(1);
            http.post(
                            "/connectors/registry",
                            "{\"id\": \"acme-tickets\", \"name\": \"Again\", \"url\": "
                                    + "\"https://mcp.acme.example/mcp\", \"auth_type\": \"none\"}")
                    .assertError(409, "connector_exists", "id");
            http.post(
                            "/connectors/registry",
                            "{\"id\": \"github\", \"name\": \"Mine\", \"url\": "
                                    + "\"https://mcp.acme.example/mcp\", \"auth_type\": \"none\"}")
                    .assertError(409, "connector_exists", "id");
            http.delete("/connectors/registry/github").assertError(409, "connector_built_in", "connector_id");
            assertThat(http.delete("/connectors/registry/acme-tickets")
                            .json()
                            .path("deleted")
                            .asBoolean())
                    .isTrue();
            http.get("/connectors/registry/acme-tickets").assertError(404, "connector_not_found", "connector_id");
            http.delete("/connectors/registry/acme-tickets").assertError(404, "connector_not_found", "connector_id");
        }
    }

    private static List<String> fields(JsonNode connector) {
        return connector.path("credential_schema").findValuesAsText("field");
    }

    private static JsonNode field(JsonNode connector, String name) {
        for (JsonNode field : connector.path("credential_schema")) {
            if (field.path("field").asText().equals(name)) {
                return field;
            }
        }
        throw new AssertionError("no field " + name);
    }
}
