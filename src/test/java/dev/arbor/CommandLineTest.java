package dev.arbor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.StudioFiles;
import dev.arbor.testing.TempFolders;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The jar's command line, run as a process of its own as {@code ./arbor} runs it. */
class CommandLineTest {

    @TempDir
    Path data;

    /** A well-formed secret key (32 zero bytes) for folders that fail before their key matters. */
    private static final String A_KEY = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";

    /**
     * What the JVM itself prints before the command runs when the environment gives it options (a machine with
     * {@code JAVA_TOOL_OPTIONS} set, say): not the command's output.
     */
    private static final Pattern JVM_NOTE =
            Pattern.compile("(NOTE: )?Picked up (JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS): .*");

    private final List<Path> made = new ArrayList<>();

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

    @ParameterizedTest
    @ValueSource(strings = {"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS"})
    void aCommandsOneLineIsAllItSaysWhenTheEnvironmentGivesTheJvmOptions(String variable) throws Exception {
        Exit exit = arbor(
                Map.of(variable, "-Darbor.test.option=set"), "backup", data.toString(), "--data", data.toString());

        assertThat(exit.status()).isEqualTo(2);
        assertThat(exit.lines()).containsExactly("arbor: " + data + " exists already; name a new folder");
    }

    @Test
    void aBackupNeverOverwrites() throws Exception {
        Exit exit = arbor("backup", data.toString(), "--data", data.toString());

        assertThat(exit.status()).isEqualTo(2);
        assertThat(exit.lines()).containsExactly("arbor: " + data + " exists already; name a new folder");
    }

    @Test
    void aRestoreBringsBackTheBackupsStateAndKeepsWhatItReplaced() throws Exception {
        Path copy = sibling("copy");
        try (var server = ArborServer.start(withOutbound(data))) {
            server.http().post("/projects", "{\"name\": \"kept\"}");
            server.http()
                    .put(
                            "/notification-channels/team_chat_1",
                            "{\"webhook_url\": \"http://127.0.0.1:9/hooks/secret-token\"}");
            assertSucceeded(arbor("backup", copy.toString(), "--data", data.toString()));
            server.http().post("/projects", "{\"name\": \"made after the backup\"}");
        }

        Exit exit = arbor("restore", copy.toString(), "--data", data.toString());

        assertSucceeded(exit);
        assertThat(exit.lines()).singleElement().asString().startsWith("arbor: restored " + copy + " into " + data);
        try (var restored = ArborServer.start(withOutbound(data))) {
            assertThat(restored.http().get("/projects").json().path("data").findValuesAsText("name"))
                    .containsExactly("kept");
            // the sealed secret opens with the restored key
            assertThat(restored.http()
                            .post("/notification-channels/team_chat_1/test", "{}")
                            .json()
                            .at("/error/code")
                            .asText())
                    .isEqualTo("delivery_failed");
        }
        Path aside = onlyFolderStartingWith(data, "before-restore-");
        assertThat(aside.resolve("arbor.db")).isNotEmptyFile();
        assertThat(aside.resolve("secret.key")).isNotEmptyFile();
        assertThat(modeOf(aside)).isEqualTo("rwx------");
        // what it replaced is itself a backup: restoring it brings back the later project
        assertSucceeded(arbor("restore", aside.toString(), "--data", data.toString()));
        try (var undone = ArborServer.start(withOutbound(data))) {
            assertThat(undone.http().get("/projects").json().path("data").findValuesAsText("name"))
                    .containsExactlyInAnyOrder("kept", "made after the backup");
        }
    }

    @Test
    void uploadedFilesTravelWithTheBackupAndTheRestore() throws Exception {
        Path copy = sibling("copy");
        String fileId;
        try (var server = ArborServer.start(withOutbound(data))) {
            HttpReply upload = StudioFiles.upload(server.http(), "shot.png", "image/png", StudioFiles.PNG);
            assertThat(upload.status()).as(upload.body()).isEqualTo(201);
            fileId = upload.json().path("id").asText();

            Exit backup = arbor("backup", copy.toString(), "--data", data.toString());

            assertSucceeded(backup);
            assertThat(backup.lines()).singleElement().asString().contains("(the database and 1 file)");
        }
        Path fresh = sibling("fresh").resolve("data");

        assertSucceeded(arbor("restore", copy.toString(), "--data", fresh.toString()));

        assertThat(modeOf(fresh.resolve("blobs"))).isEqualTo("rwx------");
        try (var restored = ArborServer.start(withOutbound(fresh))) {
            JsonNode file = restored.http().get("/v1/studio/files/" + fileId).json();
            assertThat(file.path("available").asBoolean()).as(file.toString()).isTrue();
            assertThat(file.path("bytes").asInt()).isEqualTo(StudioFiles.PNG.length);
        }
    }

    @Test
    void aRestoreIntoAFolderThatDoesNotExistMakesItOwnerOnly() throws Exception {
        Path copy = sibling("copy");
        try (var server = ArborServer.start(withOutbound(data))) {
            server.http().post("/projects", "{\"name\": \"kept\"}");
            assertSucceeded(arbor("backup", copy.toString(), "--data", data.toString()));
        }
        Path fresh = sibling("fresh").resolve("data");

        assertSucceeded(arbor("restore", copy.toString(), "--data", fresh.toString()));

        assertThat(modeOf(fresh)).isEqualTo("rwx------");
        assertThat(modeOf(fresh.resolve("arbor.db"))).isEqualTo("rw-------");
        assertThat(modeOf(fresh.resolve("secret.key"))).isEqualTo("rw-------");
        try (Stream<Path> files = Files.list(fresh)) {
            assertThat(files.map(file -> file.getFileName().toString()))
                    .as("nothing moved aside, nothing half-written left")
                    .containsExactlyInAnyOrder("arbor.db", "secret.key", "arbor.lock");
        }
        try (var restored = ArborServer.start(withOutbound(fresh))) {
            assertThat(restored.http().get("/projects").json().path("data").findValuesAsText("name"))
                    .containsExactly("kept");
        }
    }

    @Test
    void aRestoreUnderAServingServerIsRefused() throws Exception {
        Path copy = sibling("copy");
        try (var server = ArborServer.start(withOutbound(data))) {
            assertSucceeded(arbor("backup", copy.toString(), "--data", data.toString()));
            Map<String, byte[]> before = liveFiles(data);

            Exit exit = arbor("restore", copy.toString(), "--data", data.toString());

            assertThat(exit.status()).isEqualTo(2);
            assertThat(exit.lines())
                    .singleElement()
                    .asString()
                    .matches("arbor: " + Pattern.quote(data.toString())
                            + " is in use by another Arbor process \\(pid \\d+, serve\\): stop it first, or use"
                            + " another data folder");
            assertThat(liveFiles(data)).containsOnlyKeys(before.keySet());
            assertThat(server.http().get("/health").status()).isEqualTo(200);
        }
    }

    @Test
    void aSecondServerOnOneSqliteFolderIsRefused() throws Exception {
        try (var server = ArborServer.start(withOutbound(data))) {
            Exit exit = arbor("serve", "--port", "0", "--data", data.toString());

            assertThat(exit.status()).isEqualTo(2);
            assertThat(exit.lines())
                    .last()
                    .asString()
                    .startsWith("arbor: " + data + " is in use by another Arbor process (pid ");
            assertThat(server.http().get("/health").status()).isEqualTo(200);
        }
    }

    @Test
    void migrateUnderAServingServerIsRefused() throws Exception {
        try (var _ = ArborServer.start(withOutbound(data))) {
            Exit exit = arbor("migrate", "--data", data.toString());

            assertThat(exit.status()).isEqualTo(2);
            assertThat(exit.lines())
                    .last()
                    .asString()
                    .startsWith("arbor: " + data + " is in use by another Arbor process (pid ")
                    .endsWith(", serve): stop it first, or use another data folder");
        }
    }

    enum NotABackup {
        EMPTY_FOLDER(folder -> {}, " is not a backup made by 'arbor backup': it holds no arbor.db"),
        NOT_SQLITE(
                folder -> {
                    Files.writeString(folder.resolve("arbor.db"), "not a database at all, but long enough ".repeat(40));
                    Files.writeString(folder.resolve("secret.key"), A_KEY);
                },
                "/arbor.db is not a SQLite database in one piece ("),
        ANOTHER_SQLITE_DATABASE(
                folder -> {
                    try (var other = DriverManager.getConnection("jdbc:sqlite:" + folder.resolve("arbor.db"));
                            var statement = other.createStatement()) {
                        statement.execute("CREATE TABLE notes (body TEXT)");
                    }
                    Files.writeString(folder.resolve("secret.key"), A_KEY);
                },
                "/arbor.db is a SQLite database, but not Arbor's"),
        NO_KEY(
                folder -> Files.copy(Path.of(folder + "-source", "arbor.db"), folder.resolve("arbor.db")),
                " holds no secret.key (a backup made with ARBOR_SECRET_KEY): set ARBOR_SECRET_KEY to the key kept"
                        + " with it"),
        NOT_A_KEY(
                folder -> {
                    Files.copy(Path.of(folder + "-source", "arbor.db"), folder.resolve("arbor.db"));
                    Files.writeString(folder.resolve("secret.key"), "c2hvcnQ=");
                },
                "/secret.key does not hold a secret key (base64 of 32 bytes)");

        final Fill fill;
        final String says;

        NotABackup(Fill fill, String says) {
            this.fill = fill;
            this.says = says;
        }

        interface Fill {
            void into(Path folder) throws Exception;
        }
    }

    @ParameterizedTest
    @EnumSource(NotABackup.class)
    void aRestoreOfAFolderThatIsNotABackupIsRefusedAndLeavesTheDataAsItWas(NotABackup source) throws Exception {
        Path folder = sibling("source");
        try (var server = ArborServer.start(withOutbound(data))) {
            server.http().post("/projects", "{\"name\": \"current\"}");
            // a real Arbor database for the cases that need one
            assertSucceeded(arbor("backup", folder + "-source", "--data", data.toString()));
        }
        Files.createDirectory(folder);
        source.fill.into(folder);
        Map<String, byte[]> before = liveFiles(data);

        Exit exit = arbor("restore", folder.toString(), "--data", data.toString());

        assertThat(exit.status()).isEqualTo(2);
        assertThat(exit.lines())
                .singleElement()
                .asString()
                .startsWith("arbor: " + folder)
                .contains(source.says);
        Map<String, byte[]> after = liveFiles(data);
        assertThat(after).containsOnlyKeys(before.keySet());
        before.forEach((name, bytes) -> assertThat(after.get(name)).as(name).isEqualTo(bytes));
    }

    @Test
    void aRestoreOnPostgresqlPointsToPgDump() throws Exception {
        Exit exit =
                arbor(Map.of("ARBOR_DATABASE_URL", "postgresql://arbor@127.0.0.1:9/arbor"), "restore", data.toString());

        assertThat(exit.status()).isEqualTo(2);
        assertThat(exit.lines())
                .containsExactly("arbor: the database is PostgreSQL: restore it with pg_restore (or psql) from your"
                        + " pg_dump, and set ARBOR_SECRET_KEY to the key kept with it");
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

    /** A new path beside the test's data folder, removed after the test. */
    private Path sibling(String name) {
        Path path = data.resolveSibling(data.getFileName() + "-" + name);
        made.add(path);
        made.add(Path.of(path + "-source"));
        return path;
    }

    @AfterEach
    void removeSiblings() {
        made.forEach(TempFolders::deleteQuietly);
    }

    private static Map<String, String> withOutbound(Path data) {
        return Map.of("ARBOR_DATA", data.toString(), "ARBOR_OUTBOUND_ALLOW", "127.0.0.1");
    }

    private static void assertSucceeded(Exit exit) {
        assertThat(exit.status()).as(String.join("\n", exit.lines())).isZero();
    }

    private static String modeOf(Path path) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
    }

    /**
     * The data folder's files (not folders) by name, with their bytes; not the lock file, which a restore may take
     * before it refuses (and whose reading would release a server's lock in this process).
     */
    private static Map<String, byte[]> liveFiles(Path folder) throws Exception {
        var files = new TreeMap<String, byte[]>();
        try (Stream<Path> all = Files.list(folder)) {
            for (Path file : all.filter(Files::isRegularFile)
                    .filter(file -> !file.getFileName().toString().equals("arbor.lock"))
                    .toList()) {
                files.put(file.getFileName().toString(), Files.readAllBytes(file));
            }
        }
        try (Stream<Path> all = Files.list(folder)) {
            assertThat(all.filter(Files::isDirectory).map(Path::getFileName).map(Path::toString))
                    .as("nothing moved aside")
                    .noneMatch(name -> name.startsWith("before-restore-"));
        }
        return files;
    }

    private static Path onlyFolderStartingWith(Path folder, String prefix) throws Exception {
        try (Stream<Path> all = Files.list(folder)) {
            var found = all.filter(path -> path.getFileName().toString().startsWith(prefix))
                    .toList();
            assertThat(found).hasSize(1);
            return found.getFirst();
        }
    }

    private Exit arbor(String... arguments) throws Exception {
        return arbor(Map.of(), arguments);
    }

    private Exit arbor(Map<String, String> env, String... arguments) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        var command = new ArrayList<>(List.of(
                java,
                "--enable-native-access=ALL-UNNAMED",
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                "dev.arbor.Arbor"));
        command.addAll(List.of(arguments));
        Path output = Files.createTempFile("arbor-cli-", ".txt");
        try {
            var builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
            builder.environment().putAll(env);
            Process process = builder.start();
            assertThat(process.waitFor(2, TimeUnit.MINUTES))
                    .as("the command ended")
                    .isTrue();
            return new Exit(
                    process.exitValue(),
                    Files.readAllLines(output, StandardCharsets.UTF_8).stream()
                            .filter(line -> !JVM_NOTE.matcher(line).matches())
                            .toList());
        } finally {
            Files.deleteIfExists(output);
        }
    }
}
