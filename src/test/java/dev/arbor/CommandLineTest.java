package dev.arbor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.testing.TempFolders;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The jar's command line, run as a process of its own as {@code ./arbor} runs it. */
class CommandLineTest {
    @TempDir
    Path data;

    record Exit(int status, List<String> lines) {}

    @Test
    void serveOnABusyPortExitsAtOnceWithOneLineAndStartsNothing() throws Exception {
        try (var taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();

            Exit exit = arbor("serve", "--port", Integer.toString(port), "--data", data.toString());

            assertThat(exit.status()).isEqualTo(2);
            assertThat(exit.lines())
                    .containsExactly("arbor: cannot listen on 127.0.0.1:" + port
                            + ": Address already in use (choose another address or port with --host/--port,"
                            + " ARBOR_HOST/ARBOR_PORT)");
            assertThat(data).isEmptyDirectory(); // no database, no key: nothing was started
        }
    }

    @Test
    void serveHelpPrintsItsFlags() throws Exception {
        Exit exit = arbor("serve", "--help");

        assertThat(exit.status()).isZero();
        assertThat(exit.lines().getFirst()).startsWith("usage: arbor serve");
        assertThat(String.join("\n", exit.lines())).contains("--port P", "ARBOR_PORT", "--database-url URL");
    }

    @Test
    void aBackupTakenWhileServingHoldsTheDataAndItsKey() throws Exception {
        Path copy = data.resolveSibling(data.getFileName() + "-copy");
        try (var server =
                ArborServer.start(Map.of("ARBOR_DATA", data.toString(), "ARBOR_OUTBOUND_ALLOW", "127.0.0.1"))) {
            server.http().post("/projects", "{\"name\": \"kept\"}");
            server.http()
                    .put(
                            "/notification-channels/team_chat_1",
                            "{\"webhook_url\": \"http://127.0.0.1:9/hooks/secret-token\"}");

            Exit exit = arbor("backup", copy.toString(), "--data", data.toString());

            assertThat(exit.status()).as(String.join("\n", exit.lines())).isZero();
        }
        try (var restored =
                ArborServer.start(Map.of("ARBOR_DATA", copy.toString(), "ARBOR_OUTBOUND_ALLOW", "127.0.0.1"))) {
            assertThat(restored.http().get("/projects").json().path("data").findValuesAsText("name"))
                    .containsExactly("kept");
            // the sealed secret opens with the copied key
            assertThat(restored.http()
                            .get("/notification-channels/team_chat_1")
                            .json()
                            .path("configured")
                            .asBoolean())
                    .isTrue();
            assertThat(restored.http()
                            .post("/notification-channels/team_chat_1/test", "{}")
                            .json()
                            .at("/error/code")
                            .asText())
                    .isEqualTo("delivery_failed");
        } finally {
            TempFolders.deleteQuietly(copy);
        }
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(data)))
                .isEqualTo("rwx------");
    }

    @Test
    void aBackupNeverOverwrites() throws Exception {
        Exit exit = arbor("backup", data.toString(), "--data", data.toString());

        assertThat(exit.status()).isEqualTo(2);
        assertThat(exit.lines()).containsExactly("arbor: " + data + " exists already; name a new folder");
    }

    @Test
    void migrateBringsANewDatabaseUpToDate() throws Exception {
        Exit exit = arbor("migrate", "--data", data.toString());

        assertThat(exit.status()).isZero();
        assertThat(exit.lines()).anyMatch(line -> line.startsWith("the schema is up to date for arbor "));
        assertThat(data.resolve("arbor.db")).isNotEmptyFile();
    }

    @Test
    void anUnknownCommandIsAnErrorWithTheUsage() throws Exception {
        Exit exit = arbor("serv");

        assertThat(exit.status()).isEqualTo(2);
        assertThat(exit.lines()).first().isEqualTo("arbor: unknown command 'serv'");
        assertThat(exit.lines()).contains("usage: arbor <command> [options]");
    }

    private Exit arbor(String... arguments) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        var command = new java.util.ArrayList<>(List.of(
                java,
                "--enable-native-access=ALL-UNNAMED",
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                "dev.arbor.Arbor"));
        command.addAll(List.of(arguments));
        Path output = Files.createTempFile("arbor-cli-", ".txt");
        try {
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile())
                    .start();
            assertThat(process.waitFor(2, TimeUnit.MINUTES))
                    .as("the command ended")
                    .isTrue();
            return new Exit(process.exitValue(), Files.readAllLines(output, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(output);
        }
    }
}
