package dev.arbor.console;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.json.Json;
import dev.arbor.testing.TempFolders;
import dev.arbor.testing.TestServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Debian's chromium driven by {@code src/test/console/drive.mjs} (playwright-core, installed by the build's npm ci;
 * never a downloaded browser): one scenario per run, its screenshots kept in the test report.
 */
final class ConsoleBrowser {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path DRIVER = Path.of("src/test/console").toAbsolutePath();
    static final Path SHOTS =
            Path.of("target/surefire-reports/console-screenshots").toAbsolutePath();

    private final String baseUrl;

    private ConsoleBrowser(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    /**
     * The browser for a server, its {@code area}'s earlier screenshots cleared (the report shows this run's only);
     * chromium is installed first where it is missing and the tests may install packages (as root), and elsewhere the
     * test is skipped, saying why — a skipped run proves nothing.
     */
    static ConsoleBrowser forServer(TestServer http, String area) throws Exception {
        TempFolders.deleteQuietly(SHOTS.resolve(area));
        if (!Files.isExecutable(CHROMIUM)) {
            Assumptions.assumeTrue(
                    isRoot(), "chromium is missing and only root may install it: apt-get install -y chromium");
            String said = run(List.of("apt-get", "install", "-y", "chromium"));
            if (!Files.isExecutable(CHROMIUM)) {
                said = run(List.of("apt-get", "update")) + run(List.of("apt-get", "install", "-y", "chromium"));
            }
            Assumptions.assumeTrue(Files.isExecutable(CHROMIUM), "could not install chromium: " + said);
        }
        if (!Files.isDirectory(DRIVER.resolve("node_modules/playwright-core"))) {
            throw new IllegalStateException(
                    "playwright-core is missing: the build installs it (npm ci in " + DRIVER + ")");
        }
        return new ConsoleBrowser("http://127.0.0.1:" + http.port());
    }

    /** Runs a scenario of drive.mjs (src/test/console/scenarios) with its arguments; answers what it printed last, or fails with what it said. */
    JsonNode run(String scenario, Map<String, Object> args) throws Exception {
        var builder = new ProcessBuilder("node", DRIVER.resolve("drive.mjs").toString()).redirectErrorStream(true);
        builder.environment().put("ARBOR_URL", baseUrl);
        builder.environment().put("SHOTS", SHOTS.toString());
        builder.environment().put("SCENARIO", scenario);
        builder.environment().put("ARGS", Json.writeString(args));
        builder.environment().put("CHROMIUM", CHROMIUM.toString());
        Process process = builder.start();
        String output;
        try (var out = process.getInputStream()) {
            output = new String(out.readAllBytes(), StandardCharsets.UTF_8);
        }
        if (!process.waitFor(2, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError(scenario + " did not end:\n" + output);
        }
        if (process.exitValue() != 0) {
            throw new AssertionError(scenario + " failed (screenshots in " + SHOTS + "):\n" + output);
        }
        String[] lines = output.strip().split("\n");
        return Json.mapper().readTree(lines[lines.length - 1]);
    }

    /** The same browser for another server of the same test class (its screenshots kept beside this one's). */
    ConsoleBrowser at(TestServer other) {
        return new ConsoleBrowser("http://127.0.0.1:" + other.port());
    }

    /** A new project's id. */
    static String project(TestServer http, String name) {
        return http.post("/projects", Json.object().put("name", name).toString())
                .json()
                .path("id")
                .asText();
    }

    /** A new admin token's secret. */
    static String adminToken(TestServer http) {
        return http.post("/auth/tokens", "{\"name\": \"ops\", \"role\": \"admin\"}")
                .json()
                .path("token")
                .asText();
    }

    /** A new member token's secret, for one project, made by an admin. */
    static String memberToken(TestServer http, String adminToken, String projectId) {
        var body = Json.object().put("name", "dev").put("role", "member");
        body.putArray("projects").add(projectId);
        return http.post("/auth/tokens", body.toString(), bearer(adminToken))
                .json()
                .path("token")
                .asText();
    }

    /** The headers that send a token. */
    static String[] bearer(String token) {
        return TestServer.headers("Authorization", "Bearer " + token);
    }

    private static boolean isRoot() throws Exception {
        return run(List.of("id", "-u")).strip().equals("0");
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output;
        try (var out = process.getInputStream()) {
            output = new String(out.readAllBytes(), StandardCharsets.UTF_8);
        }
        process.waitFor(10, TimeUnit.MINUTES);
        return output.length() > 2000 ? output.substring(output.length() - 2000) : output;
    }
}
