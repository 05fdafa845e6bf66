package dev.arbor.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TestServer;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The console as the jar serves it: public, cached by content hash, under a strict Content-Security-Policy. */
class ConsoleServingTest {
    private static final Pattern SCRIPT = Pattern.compile("src=\"(/console/assets/index-[A-Za-z0-9_-]+\\.js)\"");

    private static ArborServer server;
    private static TestServer http;

    @BeforeAll
    static void start() {
        // with an admin token configured, every admin call needs one: the console's paths still must not
        server = ArborServer.start(Map.of("ARBOR_ADMIN_TOKEN", "arb_console_test_admin_secret_0123456789"));
        http = server.http();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void theRootRedirectsToTheConsole() {
        HttpReply root = http.get("/");
        assertThat(root.status()).isEqualTo(302);
        assertThat(root.header("location")).isEqualTo("/console");
    }

    @Test
    void thePageLoadsWithoutATokenWhileTheApiStaysGuarded() {
        HttpReply page = http.get("/console");
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.header("content-type")).startsWith("text/html");
        assertThat(page.body()).contains("<div id=\"app\"></div>").doesNotContain("https://");
        http.get("/auth/me").assertError(401, "missing_api_key", null);
    }

    @Test
    void thePageItselfIsNeverCachedStale() {
        assertThat(http.get("/console").header("cache-control")).isEqualTo("no-cache");
    }

    @ParameterizedTest
    @ValueSource(strings = {"/console/connectors", "/console/agents/support-bot", "/console/oauth/return"})
    void theConsolesOwnRoutesGetThePage(String path) {
        HttpReply reply = http.get(path);
        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.body()).isEqualTo(http.get("/console").body());
        assertThat(reply.header("cache-control")).isEqualTo("no-cache");
    }

    @Test
    void hashedAssetsAreCachedForAYear() {
        var script = SCRIPT.matcher(http.get("/console").body());
        assertThat(script.find()).as("the page names its script").isTrue();
        HttpReply asset = http.get(script.group(1));
        assertThat(asset.status()).isEqualTo(200);
        assertThat(asset.header("content-type")).startsWith("text/javascript");
        assertThat(asset.header("cache-control")).isEqualTo("public, max-age=31536000, immutable");
    }

    @ParameterizedTest
    @ValueSource(strings = {"/console", "/console/triggers"})
    void everyAnswerForbidsInlineScriptFramingAndSniffing(String path) {
        HttpReply reply = http.get(path);
        String policy = reply.header("content-security-policy");
        assertThat(policy)
                .contains("default-src 'self'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'")
                .doesNotContain("unsafe-inline", "unsafe-eval");
        assertThat(reply.header("x-content-type-options")).isEqualTo("nosniff");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/console/assets/missing-0000.js",
                "/console/assets/index.html",
                "/console/assets/..%2F..%2Fdocs%2Findex.html",
                "/console/assets/sub/file.js"
            })
    void onlyTheBuildsOwnAssetsAreServed(String path) {
        http.get(path).assertError(404, "not_found", null);
    }
}
