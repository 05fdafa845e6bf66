package dev.arbor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.arbor.testing.ShellTour;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The inference page's examples work as written on a fresh install, offline: its curl block runs as the README's tour
 * does (a deployment of the bundled model embeds, a canned_response router answers), then its TypeScript example,
 * type-checked against the official {@code openai} package and run with Node.js, and its Python example: read by
 * {@code python3}, and run where its {@code openai} package is installed. Only the port differs.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DocsExamplesTest {
    private static final Path PAGE = Path.of("docs/inference-and-routers.md");
    private static final String CLIENTS = "## Try it: the OpenAI clients";
    /** What both clients' examples print: the embedding's size, the router's answer, then its streamed answer. */
    private static final List<String> PRINTED = List.of(
            "384 numbers",
            "We are closed until Monday. You wrote: Has my order shipped?",
            "We are closed until Monday. You wrote: And now?");

    private static ArborServer server;
    private static Map<String, String> variables;

    @BeforeAll
    static void start() {
        server = ArborServer.start(Map.of());
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    @Order(1)
    void theCurlExamplesRunAsWritten() throws Exception {
        assumeTrue(ShellTour.curlInstalled(), "the examples' commands need curl");
        List<ShellTour.Line> block = ShellTour.read(PAGE, "## Try it: curl");
        assertThat(block).filteredOn(ShellTour.Command.class::isInstance).hasSizeGreaterThanOrEqualTo(7);
        variables = ShellTour.run(block, server.application().port());
        assertThat(variables).containsKeys("TOKEN", "PROJECT", "DEPLOYMENT");
    }

    @Test
    @Order(2)
    void theTypeScriptExampleCompilesAndPrintsTheAnswers(@TempDir Path folder) throws Exception {
        assumeTrue(variables != null, "the curl examples made the deployment and router it calls");
        Path modules = Path.of("src/test/mcp/node_modules").toAbsolutePath();
        Files.createSymbolicLink(folder.resolve("node_modules"), modules);
        Files.writeString(folder.resolve("package.json"), "{\"type\": \"module\"}");
        Files.writeString(folder.resolve("hello.ts"), example("ts"));
        String compiled = run(
                folder,
                List.of(
                        modules.resolve(".bin/tsc").toString(),
                        "--strict",
                        "--target",
                        "es2022",
                        "--module",
                        "nodenext",
                        "--skipLibCheck",
                        "--outDir",
                        "out",
                        "hello.ts"));
        assertThat(compiled).as("tsc's complaints").isEmpty();
        assertThat(run(folder, List.of("node", "out/hello.js")).lines()).containsExactlyElementsOf(PRINTED);
    }

    @Test
    @Order(3)
    void thePythonExampleIsPython(@TempDir Path folder) throws Exception {
        assumeTrue(run(folder, List.of("python3", "-c", "print('ok')")).equals("ok\n"), "no python3 here to read it");
        Files.writeString(folder.resolve("hello.py"), example("python"));
        assertThat(run(folder, List.of("python3", "-m", "py_compile", "hello.py")))
                .as("python3's complaints")
                .isEmpty();
    }

    @Test
    @Order(4)
    void thePythonExamplePrintsTheAnswers(@TempDir Path folder) throws Exception {
        assumeTrue(variables != null, "the curl examples made the deployment and router it calls");
        assumeTrue(
                run(folder, List.of("python3", "-c", "import openai; print('ok')"))
                        .equals("ok\n"),
                "no python3 with the openai package here (pip install openai)");
        Files.writeString(folder.resolve("hello.py"), example("python"));
        assertThat(run(folder, List.of("python3", "hello.py")).lines()).containsExactlyElementsOf(PRINTED);
    }

    /** The page's first block of this language after the clients' heading, calling the test server. */
    private static String example(String language) throws IOException {
        String text = Files.readString(PAGE);
        int start = text.indexOf("```" + language + "\n", text.indexOf("\n" + CLIENTS + "\n"));
        assertThat(start).as("%s has a %s example", PAGE, language).isPositive();
        start += language.length() + 4;
        return text.substring(start, text.indexOf("```", start))
                .replace("localhost:8420", "localhost:" + server.application().port());
    }

    /** The command's output (standard output and errors), run in {@code folder} with the examples' token. */
    private static String run(Path folder, List<String> command) throws Exception {
        var builder = new ProcessBuilder(command).directory(folder.toFile()).redirectErrorStream(true);
        if (variables != null) {
            builder.environment().put("ARBOR_TOKEN", variables.get("TOKEN"));
        }
        builder.environment().put("no_proxy", "localhost,127.0.0.1");
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            return e.getMessage();
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(2, TimeUnit.MINUTES))
                .as("%s finished", command)
                .isTrue();
        return output;
    }
}
