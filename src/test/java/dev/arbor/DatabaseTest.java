package dev.arbor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.Dialect;
import dev.arbor.testing.TestPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The same storage checks on SQLite and on a real PostgreSQL. */
class DatabaseTest {
    @TempDir
    Path temp;

    Database open(Dialect dialect) {
        return dialect == Dialect.SQLITE
                ? Database.openSqlite(temp.resolve("arbor.db"))
                : Database.openPostgres(TestPostgres.newDatabaseUrl());
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void migrationsCreateTheSchemaOnceAndReopenAsANoOp(Dialect dialect) throws Exception {
        String url = dialect == Dialect.POSTGRESQL ? TestPostgres.newDatabaseUrl() : null;
        for (int open = 0; open < 2; open++) {
            try (Database db =
                    url == null ? Database.openSqlite(temp.resolve("arbor.db")) : Database.openPostgres(url)) {
                assertThat(db.dialect()).isEqualTo(dialect);
                List<String> applied = db.read(h -> h.createQuery(
                                "SELECT version FROM flyway_schema_history WHERE success ORDER BY installed_rank")
                        .mapTo(String.class)
                        .list());
                assertThat(applied).startsWith("1");
                assertThat(count(db, "SELECT COUNT(*) FROM projects")).isZero();
            }
        }
        if (url == null) {
            assertThat(Files.exists(temp.resolve("arbor.db-wal")) || Files.exists(temp.resolve("arbor.db")))
                    .isTrue();
        }
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void foreignKeysAreEnforced(Dialect dialect) {
        try (Database db = open(dialect)) {
            assertThatThrownBy(() -> db.update(h -> h.execute(
                            "INSERT INTO api_token_projects (token_id, project_id) VALUES ('tok_x', 'prj_x')")))
                    .isInstanceOf(UnableToExecuteStatementException.class);
        }
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void aFailedTransactionLeavesNothingBehind(Dialect dialect) {
        try (Database db = open(dialect)) {
            assertThatThrownBy(() -> db.update(h -> {
                        h.execute(
                                "INSERT INTO projects (id, name, description, created_at) VALUES ('prj_1', 'a', '', 1)");
                        h.execute(
                                "INSERT INTO projects (id, name, description, created_at) VALUES ('prj_2', 'a', '', 1)");
                    }))
                    .isInstanceOf(UnableToExecuteStatementException.class);
            assertThat(count(db, "SELECT COUNT(*) FROM projects")).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void concurrentWritersAllLand(Dialect dialect) throws Exception {
        try (Database db = open(dialect);
                var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            var writes = IntStream.range(0, 200)
                    .mapToObj(i -> CompletableFuture.runAsync(
                            () -> db.update(
                                    h -> h.createUpdate("INSERT INTO projects (id, name, description, created_at) "
                                                    + "VALUES (:id, :name, '', 1)")
                                            .bind("id", "prj_" + i)
                                            .bind("name", "n" + i)
                                            .execute()),
                            pool));
            var reads = IntStream.range(0, 200)
                    .mapToObj(i -> CompletableFuture.runAsync(
                            () -> db.read(h -> h.createQuery("SELECT COUNT(*) FROM projects")
                                    .mapTo(Integer.class)
                                    .one()),
                            pool));
            CompletableFuture.allOf(Stream.concat(writes, reads).toArray(CompletableFuture[]::new))
                    .get();
            assertThat(count(db, "SELECT COUNT(*) FROM projects")).isEqualTo(200);
        }
    }

    @Test
    void sqliteRunsInWalModeWithForeignKeys() {
        try (Database db = open(Dialect.SQLITE)) {
            assertThat(text(db, "PRAGMA journal_mode")).isEqualTo("wal");
            assertThat(count(db, "PRAGMA foreign_keys")).isEqualTo(1);
            assertThat(count(db, "PRAGMA busy_timeout")).isPositive();
        }
    }

    private static int count(Database db, String sql) {
        Integer value = db.read(h -> h.createQuery(sql).mapTo(Integer.class).one());
        return value;
    }

    private static String text(Database db, String sql) {
        String value = db.read(h -> h.createQuery(sql).mapTo(String.class).one());
        return value;
    }
}
