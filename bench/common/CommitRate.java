package common;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;

/** What a database allows on this machine: the baseline the benches that commit per request report against. */
public final class CommitRate {
    private CommitRate() {}

    /** One-row transactions committed one after another for a second and a half: how many a second. */
    public static double measure(String jdbc) throws Exception {
        try (Connection db = DriverManager.getConnection(jdbc)) {
            try (var statement = db.createStatement()) {
                statement.execute("CREATE TABLE IF NOT EXISTS bench_commits (id INTEGER, at BIGINT)");
            }
            db.setAutoCommit(false);
            int count = 0;
            long start = System.nanoTime();
            try (PreparedStatement insert = db.prepareStatement("INSERT INTO bench_commits VALUES (?, ?)")) {
                while (System.nanoTime() - start < 1_500_000_000L) {
                    insert.setInt(1, count);
                    insert.setLong(2, System.currentTimeMillis());
                    insert.executeUpdate();
                    db.commit();
                    count++;
                }
            }
            double rate = count / ((System.nanoTime() - start) / 1e9);
            try (var statement = db.createStatement()) {
                statement.execute("DELETE FROM bench_commits");
            }
            db.commit();
            return rate;
        }
    }
}
