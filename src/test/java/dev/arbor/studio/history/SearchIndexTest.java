package dev.arbor.studio.history;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.MovableClock;
import dev.arbor.testing.TempFolders;
import dev.arbor.testing.TestServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * On SQLite the full-text index takes new decisions in batches (migration V12). A search still finds every decision
 * written before it, deletes and redactions of decisions the index holds or not yet holds leave it exact, and FTS5's
 * own integrity check agrees.
 */
class SearchIndexTest {
    private static final String D = "/v1/studio/decisions";

    @Test
    void searchFindsExactlyWhatHistoryHoldsWhileTheIndexCatchesUpInBatches() throws Exception {
        // the server's time stands still: a batch that waits for time waits until the search catches it up
        try (var server = ArborServer.start(Map.of("ARBOR_TEST_MODELS", "1"), new MovableClock())) {
            TestServer http = server.http();
            var alphas = new ArrayList<String>();
            for (int i = 0; i < 300; i++) {
                alphas.add(decide(http, "alpha parcel number " + i));
            }
            String db = "jdbc:sqlite:" + server.dataDir().resolve("arbor.db");
            assertThat(indexedSeq(db))
                    .as("the writes caught the index up on their own")
                    .isGreaterThan(0);

            assertThat(found(http, "parcel 299")).containsExactly(alphas.get(299));
            var betas = new ArrayList<String>(); // five, fewer than a batch, in no time at all

            for (int i = 0; i < 5; i++) {
                betas.add(decide(http, "beta crate number " + i));
            }
            assertThat(indexedSeq(db))
                    .as("the newest decisions wait for a batch")
                    .isLessThan(maxSeq(db));
            http.delete(D + "/" + betas.get(0));
            http.delete(D + "/" + alphas.get(0));
            http.post(D + "/" + betas.get(1) + "/redact", "{\"fields\": [\"input.state\"]}");
            http.post(D + "/" + alphas.get(1) + "/redact", "{\"fields\": [\"input.state\"]}");

            assertThat(found(http, "beta")).containsExactlyInAnyOrderElementsOf(betas.subList(2, 5));
            assertThat(found(http, "alpha")).hasSize(298).doesNotContain(alphas.get(0), alphas.get(1));
            assertThat(found(http, "parcel 7")).containsExactly(alphas.get(7));
            assertThat(indexedSeq(db)).as("the search caught the index up").isEqualTo(maxSeq(db));

            http.delete(D + "/" + alphas.get(7));
            http.post(D + "/" + alphas.get(8) + "/redact", "{\"fields\": [\"input.state\"]}");
            assertThat(found(http, "parcel 7")).isEmpty();
            assertThat(found(http, "parcel 8")).isEmpty();
            assertThat(found(http, "alpha")).hasSize(296);
            try (Connection c = DriverManager.getConnection(db)) {
                c.createStatement()
                        .execute("INSERT INTO studio_decisions_search (studio_decisions_search) "
                                + "VALUES ('integrity-check')");
            }
        }
    }

    @Test
    void aDatabaseThatLostItsTextIndexAnswersSearchUnavailableAndEverythingElseWorks() throws Exception {
        Path data = TempFolders.newFolder("arbor-no-fts-");
        var env = Map.of("ARBOR_TEST_MODELS", "1", "ARBOR_DATA", data.toString());
        String kept;
        try (var server = ArborServer.start(env)) {
            kept = decide(server.http(), "alpha parcel kept");
            decide(server.http(), "alpha parcel deleted later");
        }
        // as a restore through a SQLite without FTS5 leaves it: no index, no triggers, every migration applied
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + data.resolve("arbor.db"))) {
            c.createStatement().execute("DROP TRIGGER studio_decisions_search_delete");
            c.createStatement().execute("DROP TRIGGER studio_decisions_search_update");
            c.createStatement().execute("DROP TABLE studio_decisions_search");
        }
        try (var server = ArborServer.start(env)) {
            TestServer http = server.http();
            http.get(D + "?q=alpha").assertError(400, "search_unavailable", "q");
            String made = decide(http, "alpha parcel made without an index");
            assertThat(http.get(D + "?limit=10").json().path("data")).hasSize(3);
            http.post(D + "/" + kept + "/redact", "{\"fields\": [\"input.state\"]}");
            assertThat(http.delete(D + "/" + made).status()).isEqualTo(200);
            assertThat(http.get(D + "?limit=10").json().path("data")).hasSize(2);
        }
    }

    private static String decide(TestServer http, String state) {
        JsonNode made = http.post(
                        D,
                        "{\"model\": \"hash-decider\", \"state\": \"" + state + "\", "
                                + "\"questions\": {\"ok\": {\"type\": \"noul\"}}}")
                .json();
        return made.path("id").asText();
    }

    private static List<String> found(TestServer http, String words) {
        var ids = new ArrayList<String>();
        String after = "";
        while (true) {
            JsonNode page = http.get(D + "?limit=100&q=" + words.replace(" ", "+") + after)
                    .json();
            page.path("data").forEach(d -> ids.add(d.path("id").asText()));
            if (!page.path("has_more").asBoolean()) {
                return ids;
            }
            after = "&after=" + ids.getLast();
        }
    }

    private static long indexedSeq(String db) throws Exception {
        return single(db, "SELECT indexed_seq FROM studio_search_progress");
    }

    private static long maxSeq(String db) throws Exception {
        return single(db, "SELECT MAX(seq) FROM studio_decisions");
    }

    private static long single(String db, String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(db);
                ResultSet r = c.createStatement().executeQuery(sql)) {
            r.next();
            return r.getLong(1);
        }
    }
}
