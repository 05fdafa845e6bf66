import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;

/**
 * A PostgreSQL server for the history benchmark when none is at hand: the embedded binaries the tests use, in a
 * temporary folder, until this program is stopped. Prints the JDBC URL to give HistoryBench. Run with the test
 * class path (./mvnw dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=cp.txt):
 * java -cp "$(cat cp.txt)" bench/history/LocalPostgres.java
 */
public class LocalPostgres {
    public static void main(String[] args) throws Exception {
        try (var server = EmbeddedPostgres.builder()
                .setDataDirectory(Files.createTempDirectory("arbor-bench-pg-"))
                .setCleanDataDirectory(true)
                .start()) {
            try (var connection = server.getPostgresDatabase().getConnection()) {
                connection.createStatement().execute("CREATE DATABASE arbor_bench");
            }
            System.out.println(server.getJdbcUrl("postgres", "arbor_bench"));
            Thread.currentThread().join();
        }
    }
}
