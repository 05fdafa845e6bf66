package dev.arbor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TestServer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Contract section 5: the studio's API key, the keyless-remote rule, and the cross-site guards. */
class StudioGuardTest {

    @Nested
    class WithAnApiKey {
        @Test
        void everyStudioCallNeedsTheKey() {
            try (var server = ArborServer.start(Map.of("STUDIO_API_KEY", "sk-right"), new ProbeRoutes())) {
                TestServer http = server.http();
                http.get("/v1/studio/templates").assertError(401, "missing_api_key", null);
                http.get("/v1/studio/no-such-path").assertError(404, "not_found", null);
                http.delete("/v1/studio/models").assertError(405, "method_not_allowed", null);
                http.get("/v1/studio/templates", "Authorization", "Bearer sk-wrong")
                        .assertError(401, "invalid_api_key", null);
                http.get("/v1/studio/templates", "Authorization", "Bearer sk-right-but-longer")
                        .assertError(401, "invalid_api_key", null);
                HttpReply error = http.get("/v1/studio/templates", "Authorization", "Bearer sk-wrong");
                assertThat(error.json().path("error").path("type").asText()).isEqualTo("authentication_error");
                assertThat(http.get("/v1/studio/templates", "Authorization", "Bearer sk-right")
                                .status())
                        .isEqualTo(200);
                assertThat(http.post("/v1/studio/probe/echo", "{\"a\":1}", "Authorization", "Bearer sk-right")
                                .json()
                                .path("a")
                                .asInt())
                        .isEqualTo(1);
            }
        }

        @Test
        void theKeyMustComeAsABearerToken() {
            try (var server = ArborServer.start(Map.of("STUDIO_API_KEY", "sk-right"), new ProbeRoutes())) {
                TestServer http = server.http();
                String bare = http.get("/v1/studio/templates", "Authorization", "sk-right")
                        .assertError(401, "invalid_api_key", null)
                        .path("message")
                        .asText();
                assertThat(bare).contains("Authorization: Bearer <token>").doesNotContain("sk-right");
                http.get("/v1/studio/templates", "Authorization", "Basic c2stcmlnaHQ=")
                        .assertError(401, "invalid_api_key", null);
            }
        }

        @Test
        void theKeyIsCheckedBeforeTheBody() {
            try (var server = ArborServer.start(Map.of("STUDIO_API_KEY", "sk-right"), new ProbeRoutes())) {
                server.http().post("/v1/studio/probe/echo", "not json").assertError(401, "missing_api_key", null);
            }
        }

        @Test
        void theKeyDoesNotGuardTheAdminApi() {
            try (var server = ArborServer.start(Map.of("STUDIO_API_KEY", "sk-right"), new ProbeRoutes())) {
                assertThat(server.http().get("/projects").status()).isEqualTo(200);
            }
        }
    }

    @Nested
    class WithoutAnApiKey {
        @Test
        void remoteCallersMayOnlyDecide() {
            try (var server = ArborServer.start(Map.of("ARBOR_TRUSTED_PROXIES", "127.0.0.1"), new ProbeRoutes())) {
                TestServer http = server.http();
                String[] remote = {"X-Forwarded-For", "203.0.113.7"};
                HttpReply refused = http.get("/v1/studio/templates", remote);
                refused.assertError(403, "remote_access_requires_key", null);
                assertThat(refused.json().path("error").path("type").asText()).isEqualTo("permission_error");
                http.post("/v1/studio/decisions", "{}", remote).assertError(400, "state_required", "state");
                http.post("/v1/studio/probe/echo", "{}", remote).assertError(403, "remote_access_requires_key", null);
                assertThat(http.get("/v1/studio/templates", "X-Forwarded-For", "127.0.0.1")
                                .status())
                        .isEqualTo(200);
            }
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', textBlock = """
                127.0.0.1:8080                   | 200
                [::1]                            | 200
                [::1]:8080                       | 200
                ::1                              | 200
                203.0.113.7:443                  | 403
                [2001:db8::7]:443                | 403
                203.0.113.7, 127.0.0.1           | 403
                ::1, 127.0.0.1                   | 200
                127.0.0.1, 203.0.113.7           | 403
                for=127.0.0.1                    | 403
                for="[::1]:8080"                 | 403
                unknown                          | 403
                127.0.0.1:port                   | 403
                127.0.0.1,                       | 403
                """)
        void aForwardedHopCountsOnlyWhenItIsAnAddressWithOrWithoutAPort(String forwarded, int status) {
            try (var server = ArborServer.start(Map.of("ARBOR_TRUSTED_PROXIES", "127.0.0.1,::1"), new ProbeRoutes())) {
                assertThat(server.http()
                                .get("/v1/studio/templates", "X-Forwarded-For", forwarded)
                                .status())
                        .isEqualTo(status);
            }
        }

        @Test
        void aForwardedRequestWithoutTheHeaderIsRemote() {
            try (var server = ArborServer.start(Map.of("ARBOR_TRUSTED_PROXIES", "127.0.0.1"), new ProbeRoutes())) {
                server.http().get("/v1/studio/templates").assertError(403, "remote_access_requires_key", null);
            }
        }

        @Test
        void everyForwardedForHeaderCounts() {
            try (var server = ArborServer.start(Map.of("ARBOR_TRUSTED_PROXIES", "127.0.0.1"), new ProbeRoutes())) {
                server.http()
                        .get("/v1/studio/templates", "X-Forwarded-For", "127.0.0.1", "X-Forwarded-For", "203.0.113.7")
                        .assertError(403, "remote_access_requires_key", null);
            }
        }

        @Test
        void forwardedAddressesCountOnlyFromTrustedProxies() {
            try (var server = ArborServer.start(Map.of(), new ProbeRoutes())) {
                assertThat(server.http()
                                .get("/v1/studio/templates", "X-Forwarded-For", "203.0.113.7")
                                .status())
                        .isEqualTo(200);
            }
        }
    }

    @Nested
    class CrossSite {
        @Test
        void writesFromOtherSitesAreRefused() {
            try (var server = ArborServer.start(Map.of(), new ProbeRoutes())) {
                TestServer http = server.http();
                String[] json = {"Content-Type", "application/json"};
                http.post("/v1/studio/probe/echo", "{}", TestServer.with(json, "Origin", "https://evil.example"))
                        .assertError(403, "cross_site_request", null);
                http.post("/v1/studio/probe/echo", "{}", TestServer.with(json, "Origin", "null"))
                        .assertError(403, "cross_site_request", null);
                http.post("/v1/studio/probe/echo", "{}", TestServer.with(json, "Sec-Fetch-Site", "same-site"))
                        .assertError(403, "cross_site_request", null);
                http.post("/v1/studio/probe/echo", "{}", TestServer.with(json, "Sec-Fetch-Site", "cross-site"))
                        .assertError(403, "cross_site_request", null);
                http.post("/projects", "{\"name\":\"x\"}", TestServer.with(json, "Origin", "http://localhost:1"))
                        .assertError(403, "cross_site_request", null);
            }
        }

        @Test
        void readsFromOtherSitesAreNotGuarded() {
            try (var server = ArborServer.start(Map.of(), new ProbeRoutes())) {
                HttpReply reply = server.http().get("/v1/studio/templates", "Origin", "https://evil.example");
                assertThat(reply.status()).isEqualTo(200);
                assertThat(reply.header("access-control-allow-origin")).isNull();
            }
        }

        @Test
        void sameOriginBrowserWritesMustBeJson() {
            try (var server = ArborServer.start(Map.of(), new ProbeRoutes())) {
                TestServer http = server.http();
                for (String own : new String[] {"http://127.0.0.1:" + http.port(), "http://localhost:" + http.port()}) {
                    assertThat(http.post(
                                            "/v1/studio/probe/echo",
                                            "{}",
                                            "Origin",
                                            own,
                                            "Content-Type",
                                            "application/json")
                                    .status())
                            .isEqualTo(200);
                    http.post("/v1/studio/probe/echo", "{}", "Origin", own, "Content-Type", "text/plain")
                            .assertError(415, "unsupported_media_type", null);
                }
                assertThat(http.post(
                                        "/v1/studio/probe/echo",
                                        "{}",
                                        "Sec-Fetch-Site",
                                        "same-origin",
                                        "Content-Type",
                                        "application/json; charset=utf-8")
                                .status())
                        .isEqualTo(200);
                http.post(
                                "/v1/studio/probe/echo",
                                "{}",
                                "Sec-Fetch-Site",
                                "same-origin",
                                "Content-Type",
                                "application/x-www-form-urlencoded")
                        .assertError(415, "unsupported_media_type", null);
            }
        }

        @Test
        void nonBrowserClientsMaySendJsonWithAnyContentType() {
            try (var server = ArborServer.start(Map.of(), new ProbeRoutes())) {
                HttpReply reply = server.http()
                        .post(
                                "/v1/studio/probe/echo",
                                "{\"q\":2}",
                                "Content-Type",
                                "application/x-www-form-urlencoded");
                assertThat(reply.status()).isEqualTo(200);
                assertThat(reply.json().path("q").asInt()).isEqualTo(2);
            }
        }

        @Test
        void listedOriginsGetCorsHeadersAndMayWrite() {
            try (var server =
                    ArborServer.start(Map.of("STUDIO_CORS_ORIGINS", "https://app.example/"), new ProbeRoutes())) {
                TestServer http = server.http();
                HttpReply write = http.post(
                        "/v1/studio/probe/echo",
                        "{}",
                        "Origin",
                        "https://app.example",
                        "Content-Type",
                        "application/json");
                assertThat(write.status()).isEqualTo(200);
                assertThat(write.header("access-control-allow-origin")).isEqualTo("https://app.example");
                assertThat(write.header("access-control-expose-headers")).contains("x-request-id");

                HttpReply preflight = http.send(
                        "OPTIONS",
                        "/v1/studio/probe/echo",
                        null,
                        "Origin",
                        "https://app.example",
                        "Access-Control-Request-Method",
                        "POST");
                assertThat(preflight.status()).isEqualTo(204);
                assertThat(preflight.header("access-control-allow-methods")).contains("POST");
                assertThat(preflight.header("access-control-allow-headers")).contains("idempotency-key");

                http.send(
                                "OPTIONS",
                                "/v1/studio/probe/echo",
                                null,
                                "Origin",
                                "https://evil.example",
                                "Access-Control-Request-Method",
                                "POST")
                        .assertError(403, "cross_site_request", null);
            }
        }

        @Test
        void foreignHostNamesAreRefusedOnLoopback() {
            try (var server = ArborServer.start(Map.of(), new ProbeRoutes())) {
                String response = server.http()
                        .raw(("GET /health HTTP/1.1\r\nHost: rebound.evil.example\r\n" + "Connection: close\r\n\r\n")
                                .getBytes(StandardCharsets.US_ASCII));
                assertThat(response).startsWith("HTTP/1.1 403").contains("\"code\":\"host_not_allowed\"");
                String ok = server.http()
                        .raw(("GET /health HTTP/1.1\r\nHost: localhost:"
                                        + server.http().port() + "\r\nConnection: close\r\n\r\n")
                                .getBytes(StandardCharsets.US_ASCII));
                assertThat(ok).startsWith("HTTP/1.1 200");
            }
        }
    }
}
