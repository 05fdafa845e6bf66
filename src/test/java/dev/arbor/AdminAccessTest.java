package dev.arbor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TestServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** DESIGN section 4: bearer tokens with roles and projects, the bootstrap token, and the local-admin rule. */
class AdminAccessTest {

    @Test
    void withNoTokenCallersOnThisComputerAreLocalAdmins() {
        try (var server = ArborServer.start(Map.of("ARBOR_TRUSTED_PROXIES", "127.0.0.1"))) {
            TestServer http = server.http();
            JsonNode me = http.get("/auth/me", "X-Forwarded-For", "127.0.0.1").json();
            assertThat(me.path("role").asText()).isEqualTo("admin");
            assertThat(me.path("token_id").asText()).isEqualTo("local");

            http.get("/projects", "X-Forwarded-For", "198.51.100.4")
                    .assertError(403, "remote_access_requires_key", null);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "unknown", "for=127.0.0.1", "_hidden", "127.0.0.1, unknown", "localhost"})
    void aProxyThatNamesNoClientAddressForwardsARemoteCaller(String forwarded) {
        try (var server = ArborServer.start(Map.of("ARBOR_TRUSTED_PROXIES", "127.0.0.1"))) {
            String[] headers = forwarded.isEmpty() ? new String[0] : new String[] {"X-Forwarded-For", forwarded};
            server.http().get("/projects", headers).assertError(403, "remote_access_requires_key", null);
        }
    }

    @Test
    void onceATokenExistsEveryCallNeedsOne() {
        try (var server = ArborServer.start(Map.of())) {
            TestServer http = server.http();
            HttpReply created = http.post("/auth/tokens", "{\"name\":\"ops\",\"role\":\"admin\"}");
            assertThat(created.status()).isEqualTo(201);
            String secret = created.json().path("token").asText();
            assertThat(secret).startsWith("arb_").hasSizeGreaterThan(40);

            http.get("/projects").assertError(401, "missing_api_key", null);
            http.get("/projects", "Authorization", "Bearer arb_not-a-real-token")
                    .assertError(401, "invalid_api_key", null);
            assertThat(http.get("/projects", "Authorization", "Bearer " + secret)
                            .status())
                    .isEqualTo(200);
            http.get("/no-such-path").assertError(404, "not_found", null);
            http.delete("/projects").assertError(405, "method_not_allowed", null);
            assertThat(http.get("/health").status()).isEqualTo(200);
            assertThat(http.get("/openapi.json").status()).isEqualTo(200);
        }
    }

    @Test
    void revokingTheLastTokenLocksTheApiUntilAnOperatorMakesANewOne() throws Exception {
        Path data;
        try (var server = ArborServer.start(Map.of())) {
            TestServer http = server.http();
            JsonNode created = http.post("/auth/tokens", "{\"name\":\"ops\",\"role\":\"admin\"}")
                    .json();
            String[] auth = {"Authorization", "Bearer " + created.path("token").asText()};
            assertThat(http.delete("/auth/tokens/" + created.path("id").asText(), auth)
                            .status())
                    .isEqualTo(200);

            JsonNode locked = http.get("/projects").assertError(401, "missing_api_key", null);
            assertThat(locked.path("message").asText()).contains("arbor token create");
            data = server.dataDir();
        }
        // the operator's way back: a token made on the server's machine, straight into its database
        Process command = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "--enable-native-access=ALL-UNNAMED",
                        "-cp",
                        System.getProperty("java.class.path"),
                        "dev.arbor.Arbor",
                        "token",
                        "create",
                        "--name",
                        "restored",
                        "--data",
                        data.toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        String secret = new String(command.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(command.waitFor()).isZero();
        try (var server = ArborServer.start(Map.of("ARBOR_DATA", data.toString()))) {
            JsonNode me = server.http()
                    .get("/auth/me", "Authorization", "Bearer " + secret)
                    .json();
            assertThat(me.path("role").asText()).isEqualTo("admin");
            server.http().get("/projects").assertError(401, "missing_api_key", null);
        }
    }

    @Test
    void theTokenMustComeAsABearerToken() {
        try (var server = ArborServer.start(Map.of())) {
            TestServer http = server.http();
            String secret = firstAdminSecret(http);
            JsonNode bare = http.get("/projects", "Authorization", secret).assertError(401, "invalid_api_key", null);
            assertThat(bare.path("message").asText())
                    .contains("Authorization: Bearer <token>")
                    .doesNotContain(secret);
            JsonNode basic = http.get("/projects", "Authorization", "Basic b3BzOnNlY3JldA==")
                    .assertError(401, "invalid_api_key", null);
            assertThat(basic.path("message").asText())
                    .contains("Authorization: Bearer <token>")
                    .contains("Basic");
            assertThat(http.get("/projects", "Authorization", "bearer " + secret)
                            .status())
                    .isEqualTo(200);
        }
    }

    @Test
    void theSecretIsShownOnceAndStoredOnlyAsAHash() throws Exception {
        try (var server = ArborServer.start(Map.of())) {
            TestServer http = server.http();
            String secret = firstAdminSecret(http);
            String[] auth = {"Authorization", "Bearer " + secret};
            HttpReply list = http.get("/auth/tokens", auth);
            assertThat(list.body()).doesNotContain(secret);
            assertThat(list.json().path("data").path(0).path("hint").asText()).isEqualTo(secret.substring(0, 8));
            byte[] database = java.nio.file.Files.readAllBytes(server.dataDir().resolve("arbor.db"));
            assertThat(new String(database, java.nio.charset.StandardCharsets.ISO_8859_1))
                    .doesNotContain(secret);
        }
    }

    @Test
    void membersActOnlyWithinTheirProjects() {
        try (var server = ArborServer.start(Map.of("ARBOR_ADMIN_TOKEN", "boot-admin-secret"))) {
            TestServer http = server.http();
            String[] admin = {"Authorization", "Bearer boot-admin-secret"};
            String mine = http.post("/projects", "{\"name\":\"mine\"}", admin)
                    .json()
                    .path("id")
                    .asText();
            String theirs = http.post("/projects", "{\"name\":\"theirs\"}", admin)
                    .json()
                    .path("id")
                    .asText();
            HttpReply token = http.post(
                    "/auth/tokens", "{\"name\":\"dev\",\"role\":\"member\",\"projects\":[\"" + mine + "\"]}", admin);
            assertThat(token.json().path("projects").get(0).asText()).isEqualTo(mine);
            String[] member = {
                "Authorization", "Bearer " + token.json().path("token").asText()
            };

            JsonNode visible = http.get("/projects", member).json().path("data");
            assertThat(visible).hasSize(1);
            assertThat(visible.get(0).path("id").asText()).isEqualTo(mine);
            assertThat(http.get("/projects/" + mine, member).status()).isEqualTo(200);
            http.get("/projects/" + theirs, member).assertError(403, "project_forbidden", "project_id");
            http.get("/projects/prj_none", member).assertError(403, "project_forbidden", "project_id");

            JsonNode denied =
                    http.post("/projects", "{\"name\":\"more\"}", member).assertError(403, "admin_required", null);
            assertThat(denied.path("type").asText()).isEqualTo("permission_error");
            http.post("/auth/tokens", "{\"name\":\"x\",\"role\":\"admin\"}", member)
                    .assertError(403, "admin_required", null);
            http.delete("/projects/" + mine, member).assertError(403, "admin_required", null);
        }
    }

    @Test
    void revokedAndExpiredTokensStopWorking() {
        try (var server = ArborServer.start(Map.of("ARBOR_ADMIN_TOKEN", "boot"))) {
            TestServer http = server.http();
            String[] admin = {"Authorization", "Bearer boot"};
            JsonNode created = http.post("/auth/tokens", "{\"name\":\"temp\",\"role\":\"admin\"}", admin)
                    .json();
            String[] temp = {"Authorization", "Bearer " + created.path("token").asText()};
            assertThat(http.get("/auth/me", temp).json().path("token_id").asText())
                    .isEqualTo(created.path("id").asText());

            HttpReply revoked = http.delete("/auth/tokens/" + created.path("id").asText(), admin);
            assertThat(revoked.json().path("revoked_at").isNumber()).isTrue();
            http.get("/auth/me", temp).assertError(401, "invalid_api_key", null);
            assertThat(http.get("/auth/tokens", admin).json().path("data")).isEmpty();
            assertThat(http.get("/auth/tokens?include_revoked=true", admin)
                            .json()
                            .path("data"))
                    .hasSize(1);
            http.delete("/auth/tokens/tok_missing", admin).assertError(404, "token_not_found", "token_id");

            http.post("/auth/tokens", "{\"name\":\"old\",\"role\":\"admin\",\"expires_at\":1000}", admin)
                    .assertError(400, "invalid_field", "expires_at");
            for (String far : List.of("99999999999999999999999", "253402300800", "1e30")) {
                JsonNode error = http.post(
                                "/auth/tokens",
                                "{\"name\":\"far\",\"role\":\"admin\",\"expires_at\":" + far + "}",
                                admin)
                        .assertError(400, "invalid_field", "expires_at");
                assertThat(error.path("message").asText()).as(far).contains("between 0 and 253402300799");
            }
        }
    }

    @Test
    void tokenRequestsAreValidated() {
        try (var server = ArborServer.start(Map.of())) {
            TestServer http = server.http();
            http.post("/auth/tokens", "{\"role\":\"admin\"}").assertError(400, "missing_field", "name");
            http.post("/auth/tokens", "{\"name\":\"a\",\"role\":\"root\"}").assertError(400, "invalid_field", "role");
            http.post("/auth/tokens", "{\"name\":\"a\",\"role\":\"member\",\"projects\":[\"prj_nope\"]}")
                    .assertError(400, "invalid_field", "projects[0]");
            HttpReply warned = http.post("/projects", "{\"name\":\"p\",\"colour\":\"red\"}");
            assertThat(warned.json().path("warnings").path(0).path("code").asText())
                    .isEqualTo("unknown_field_ignored");
            assertThat(warned.json().path("warnings").path(0).path("param").asText())
                    .isEqualTo("colour");
        }
    }

    @Test
    void projectsPageWithCursors() {
        try (var server = ArborServer.start(Map.of())) {
            TestServer http = server.http();
            for (int i = 0; i < 5; i++) {
                http.post("/projects", "{\"name\":\"p" + i + "\"}");
            }
            JsonNode first = http.get("/projects?limit=2").json();
            assertThat(first.path("data").findValuesAsText("name")).containsExactly("p4", "p3");
            assertThat(first.path("has_more").asBoolean()).isTrue();
            JsonNode second = http.get(
                            "/projects?limit=2&after=" + first.path("last_id").asText())
                    .json();
            assertThat(second.path("data").findValuesAsText("name")).containsExactly("p2", "p1");
            JsonNode back = http.get("/projects?limit=2&before="
                            + second.path("first_id").asText())
                    .json();
            assertThat(back.path("data").findValuesAsText("name")).containsExactly("p4", "p3");

            http.get("/projects?limit=101").assertError(400, "invalid_parameter", "limit");
            http.get("/projects?limit=0").assertError(400, "invalid_parameter", "limit");
            http.get("/projects?after=prj_nothing").assertError(400, "invalid_parameter", "after");

            String id = first.path("first_id").asText();
            JsonNode renamed =
                    http.patch("/projects/" + id, "{\"name\":\"renamed\"}").json();
            assertThat(renamed.path("name").asText()).isEqualTo("renamed");
            http.patch("/projects/" + id, "{\"name\":\"p0\"}").assertError(409, "project_exists", "name");
            assertThat(http.delete("/projects/" + id).json().path("deleted").asBoolean())
                    .isTrue();
            http.get("/projects/" + id).assertError(404, "project_not_found", "project_id");
        }
    }

    /** The secret of the first admin token, which a server with none takes from anyone. */
    private static String firstAdminSecret(TestServer http) {
        return http.post("/auth/tokens", "{\"name\":\"ops\",\"role\":\"admin\"}")
                .json()
                .path("token")
                .asText();
    }
}
