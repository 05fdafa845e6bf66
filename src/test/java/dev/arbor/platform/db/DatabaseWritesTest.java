package dev.arbor.platform.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.arbor.testing.TempFolders;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import org.jdbi.v3.core.JdbiException;
import org.junit.jupiter.api.Test;

/** Plain JDBC writes with statements kept on SQLite's writer, and the write-ahead log checkpointed beside it. */
class DatabaseWritesTest {
    private static final String INSERT = "INSERT INTO numbers (n) VALUES (?)";

    private static void insert(Database database, List<Integer> numbers) {
        database.update(handle -> database.jdbc(handle, statements -> {
            PreparedStatement insert = statements.prepare(INSERT);
            for (int n : numbers) {
                insert.setInt(1, n);
                insert.addBatch();
            }
            insert.executeBatch();
        }));
    }

    private static List<Integer> numbers(Database database) {
        return database.read(handle -> handle.createQuery("SELECT n FROM numbers ORDER BY n")
                .mapTo(Integer.class)
                .list());
    }

    @Test
    void aFailedBatchLeavesNothingInTheKeptStatementNorInTheDatabase() throws Exception {
        try (var database =
                Database.openSqlite(TempFolders.newFolder("arbor-db-").resolve("arbor.db"))) {
            database.update(handle -> handle.execute("CREATE TABLE numbers (n INTEGER PRIMARY KEY)"));
            insert(database, List.of(1, 2));
            assertThatThrownBy(() -> insert(database, List.of(3, 4, 1)))
                    .isInstanceOf(JdbiException.class)
                    .hasMessageContaining("UNIQUE");
            assertThat(numbers(database))
                    .as("the failed batch rolled back whole")
                    .containsExactly(1, 2);
            insert(database, List.of(5));
            assertThat(numbers(database))
                    .as("the kept statement carried nothing over")
                    .containsExactly(1, 2, 5);
        }
    }

    @Test
    void plainJdbcOutsideAWriteIsRefused() throws Exception {
        try (var database =
                Database.openSqlite(TempFolders.newFolder("arbor-db-").resolve("arbor.db"))) {
            assertThatThrownBy(() -> database.read(handle -> {
                        database.jdbc(handle, statements -> statements.prepare("SELECT 1"));
                        return null;
                    }))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("inside write()");
        }
    }

    @Test
    void writesReachTheDatabaseFileWithoutTheWriterCheckpointing() throws Exception {
        Path file = TempFolders.newFolder("arbor-db-").resolve("arbor.db");
        try (var database = Database.openSqlite(file)) {
            database.update(handle -> handle.execute("CREATE TABLE numbers (n INTEGER PRIMARY KEY, text TEXT)"));
            long before = Files.size(file);
            // far fewer pages than the writer's own threshold: only the checkpoint thread copies them
            database.update(handle -> handle.execute("""
                    WITH RECURSIVE s (v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM s WHERE v < 200)
                    INSERT INTO numbers (n, text) SELECT v, hex(randomblob(250)) FROM s"""));
            await("the rows copied from the log into the database")
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> Files.size(file) > before);
        }
    }
}
