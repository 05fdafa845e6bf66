package dev.arbor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.testing.HttpReply;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The server serves its own manual at {@code /docs}: the pages of {@code docs/} and the README as HTML in the
 * console's style, with links between them that work, and nothing else: an unknown page is 404 in the one error
 * envelope, and no path reaches a file outside the manual.
 */
class ManualTest {
    private static final Pattern LOCAL_LINK = Pattern.compile("(?:href|src)=\"(/docs[^\"]*)\"");
    private static final Pattern HEADING_ID = Pattern.compile("<h[1-6] id=\"([^\"]+)\"");
    private static ArborServer server;

    @BeforeAll
    static void start() {
        server = ArborServer.start(Map.of());
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void theIndexIsTheTableOfContents() {
        HttpReply index = server.http().get("/docs");
        assertThat(index.status()).isEqualTo(200);
        assertThat(index.header("content-type")).startsWith("text/html");
        assertThat(index.header("content-security-policy")).contains("default-src 'none'");
        assertThat(index.body())
                .contains("<title>Arbor's manual · Arbor</title>")
                .contains("<h1 id=\"arbors-manual\">Arbor's manual</h1>")
                .contains("href=\"/docs/inference-and-routers\"")
                .contains("href=\"/docs/operations/configuration\"")
                .contains("href=\"/docs/api\"");
    }

    @Test
    void aPageInAFolderRendersWithItsLinksMadeServerAddresses() {
        HttpReply page = server.http().get("/docs/operations/configuration");
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.header("content-type")).startsWith("text/html");
        assertThat(page.body())
                .contains("<h1 id=\"configuration\">Configuration</h1>")
                .contains("<table>")
                .contains("<code>ARBOR_SECRET_KEY</code>")
                .contains("href=\"/docs/operations/security#admin-access\"")
                .doesNotContain(".md\"");
    }

    @Test
    void theReadmeIsServedWithItsTour() {
        HttpReply readme = server.http().get("/docs/readme");
        assertThat(readme.status()).isEqualTo(200);
        assertThat(readme.body())
                .contains("<h2 id=\"a-short-tour\">A short tour</h2>")
                .contains("href=\"/docs/inference-and-routers\"");
    }

    @Test
    void everyLinkOfTheServedManualLeadsToWhatIsThere() {
        var seen = new HashSet<String>();
        var toVisit = new ArrayDeque<String>();
        toVisit.add("/docs");
        var broken = new ArrayList<String>();
        while (!toVisit.isEmpty()) {
            String page = toVisit.poll();
            if (!seen.add(page)) {
                continue;
            }
            HttpReply reply = server.http().get(page);
            assertThat(reply.status()).as(page).isEqualTo(200);
            if (!reply.header("content-type").startsWith("text/html") || page.startsWith("/docs/api")) {
                continue;
            }
            for (var link : LOCAL_LINK.matcher(reply.body()).results().toList()) {
                String target = link.group(1);
                int hash = target.indexOf('#');
                String path = hash < 0 ? target : target.substring(0, hash);
                if (hash >= 0) {
                    String ids = server.http().get(path).body();
                    if (HEADING_ID
                            .matcher(ids)
                            .results()
                            .noneMatch(m -> m.group(1).equals(target.substring(hash + 1)))) {
                        broken.add(page + " → " + target);
                    }
                }
                toVisit.add(path);
            }
        }
        assertThat(broken).as("links to headings that are not there").isEmpty();
        assertThat(seen).contains("/docs/readme", "/docs/console.png", "/docs/console.css", "/docs/operations/backup");
    }

    @Test
    void thePagesWearTheConsolesStyles() throws Exception {
        HttpReply styles = server.http().get("/docs/console.css");
        assertThat(styles.status()).isEqualTo(200);
        assertThat(styles.header("content-type")).startsWith("text/css");
        assertThat(styles.body()).isEqualTo(Files.readString(Path.of("console/src/styles.css")));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"/docs/nowhere", "/docs/operations/nowhere", "/docs/nowhere/configuration", "/docs/studio.md"})
    void anUnknownPageIs404InTheErrorEnvelope(String path) {
        server.http().get(path).assertError(404, "not_found", null);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/docs/..%2F..%2Fpom.xml",
                "/docs/%2e%2e",
                "/docs/..%2FREADME.md",
                "/docs/operations/..%2F..%2F..%2Fpom",
                "/docs/..%5C..%5Cpom.xml",
                "/docs/manual%2Fdocs%2Fstudio"
            })
    void aPathThatLeavesTheManualReachesNothing(String path) {
        HttpReply reply = server.http().get(path);
        reply.assertError(404, "not_found", null);
        assertThat(reply.body()).doesNotContain("<project").doesNotContain("# Arbor");
    }
}
