package dev.arbor.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TestServer;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SQLite on a disk that fills up: writes answer 503 {@code database_unavailable} (never a 500), nothing is
 * corrupted, and the same server writes again once space returns. The disk is a small tmpfs of the test's own, which
 * needs the right to mount (root, or a container that grants it): where mounting is refused the test is skipped,
 * and says why — a skipped run proves nothing.
 */
class SqliteFullDiskTest {
    private static final String SIZE = "8m";

    @TempDir
    Path folder;

    private Path disk;
    private boolean mounted;

    @BeforeEach
    void mountASmallDisk() throws Exception {
        disk = Files.createDirectory(folder.resolve("disk"));
        String said;
        try {
            Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=" + SIZE, "tmpfs", disk.toString())
                    .redirectErrorStream(true)
                    .start();
            boolean ended = mount.waitFor(30, TimeUnit.SECONDS);
            said = new String(mount.getInputStream().readAllBytes()).strip();
            mounted = ended && mount.exitValue() == 0;
        } catch (IOException noMount) {
            said = noMount.getMessage();
        }
        Assumptions.assumeTrue(mounted, "cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN): " + said);
    }

    @AfterEach
    void unmount() throws Exception {
        if (mounted) {
            new ProcessBuilder("umount", disk.toString()).inheritIO().start().waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aFullDiskAnswers503CorruptsNothingAndWritesAgainWhenSpaceReturns() throws Exception {
        Path data = disk.resolve("data");
        try (var server = ArborServer.start(Map.of("ARBOR_DATA", data.toString()))) {
            TestServer http = server.http();
            Path filler = disk.resolve("filler");
            fill(filler);

            List<String> stored = new ArrayList<>();
            HttpReply refused = null;
            for (int n = 0; n < 10_000 && refused == null; n++) {
                HttpReply reply = write(http, "full-" + n);
                if (reply.status() == 201) {
                    stored.add("full-" + n);
                } else {
                    refused = reply;
                }
            }
            assertThat(refused).as("a write refused on the full disk").isNotNull();
            refused.assertError(503, "database_unavailable", null);
            assertThat(refused.header("retry-after")).isEqualTo("5");
            HttpReply again = write(http, "while-full");
            again.assertError(503, "database_unavailable", null);

            Files.delete(filler);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> write(http, "after").status() == 201);

            assertThat(integrityCheck(data)).containsExactly("ok");
            Set<String> names = projectNames(data);
            assertThat(names).containsAll(stored).contains("after");
            assertThat(names).doesNotContain("while-full");
        }
    }

    /** Writes {@code file} until the disk refuses more. */
    private static void fill(Path file) {
        byte[] block = new byte[64 * 1024];
        try (OutputStream out = Files.newOutputStream(file)) {
            while (true) {
                out.write(block);
            }
        } catch (IOException full) {
            // no space left: the disk is full, as wanted
        }
    }

    private static HttpReply write(TestServer http, String name) {
        return http.post("/projects", "{\"name\": \"" + name + "\", \"description\": \"" + "x".repeat(900) + "\"}");
    }

    private static List<String> integrityCheck(Path data) throws Exception {
        var lines = new ArrayList<String>();
        try (Connection db = DriverManager.getConnection("jdbc:sqlite:" + data.resolve("arbor.db"));
                ResultSet rows = db.createStatement().executeQuery("PRAGMA integrity_check")) {
            while (rows.next()) {
                lines.add(rows.getString(1));
            }
        }
        return lines;
    }

    private static Set<String> projectNames(Path data) throws Exception {
        var names = new HashSet<String>();
        try (Connection db = DriverManager.getConnection("jdbc:sqlite:" + data.resolve("arbor.db"));
                ResultSet rows = db.createStatement().executeQuery("SELECT name FROM projects")) {
            while (rows.next()) {
                names.add(rows.getString(1));
            }
        }
        return names;
    }
}
