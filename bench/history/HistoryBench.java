package history;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import common.InProcessServer;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.IntFunction;

/**
 * History at scale: fills history with {@code rows} decisions (1,000 made through the API, then copied in SQL a
 * round at a time, each copy older and with its own id and search text, the statistics' running totals scaled to
 * match), then times, through HTTP, the history routes a person uses: a filtered page, a cursor page deep in the list, a full-text query and the statistics of
 * one template, beside GET /health (the server's floor) measured in the same run. Run with the Arbor jar:
 * java -cp target/arbor.jar bench/history/HistoryBench.java [rows] [jdbc:postgresql://... for PostgreSQL]
 */
public class HistoryBench {
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    static final int SEEDS = 1000;
    static final String[] WORDS = ("invoice refund charge card payment login password reset error outage dashboard "
                    + "report export quote plan enterprise seat upgrade downgrade cancel renewal discount tax receipt address "
                    + "shipping delivery parcel damaged missing late order return exchange warranty broken screen battery "
                    + "update install crash slow timeout email notification account locked security phone verify")
            .split(" ");

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        String postgres = args.length > 1 ? args[1] : null;
        try (var server = InProcessServer.start("history", postgres, Map.of("ARBOR_TEST_MODELS", "1"))) {
            String base = server.base();
            String jdbc = server.jdbc();
            long started = System.nanoTime();
            seed(base);
            try (Connection db = DriverManager.getConnection(jdbc)) {
                copy(db, postgres != null, rows / SEEDS - 1);
            }
            System.out.printf(
                    "filled %,d decisions in %.0f s (%s)%n",
                    rows, (System.nanoTime() - started) / 1e9, postgres != null ? "PostgreSQL" : "SQLite");
            List<String> ids = sampleIds(jdbc);
            var random = new Random(7);
            String list = base + "/v1/studio/decisions";
            System.out.println("| route | p50 ms | p99 ms | p99 / health p99 |");
            System.out.println("|---|---|---|---|");
            double health = report("GET /health (floor)", 300, i -> base + "/health", 0);
            report("first page, no filter", 300, i -> list + "?limit=20", health);
            report(
                    "filtered page (template, answer, act)",
                    300,
                    i -> list + "?template=support&answer.team=" + (i % 2 == 0 ? "billing" : "technical")
                            + "&act=true&limit=20",
                    health);
            report(
                    "cursor page deep in the list",
                    300,
                    i -> list + "?limit=20&after=" + ids.get(random.nextInt(ids.size())),
                    health);
            report(
                    "full-text query (two words)",
                    300,
                    i -> list + "?limit=20&q="
                            + URLEncoder.encode(
                                    WORDS[random.nextInt(WORDS.length)] + " " + (1000 + random.nextInt(9000)),
                                    StandardCharsets.UTF_8),
                    health);
            report("stats of one template", 3, i -> base + "/v1/studio/templates/support/stats", health);
        }
    }

    /** A thousand decisions through the API: varied text, ticket numbers to search for, both teams. */
    static void seed(String base) throws Exception {
        post(base + "/v1/studio/templates", """
                {"id": "support", "model": "hash-decider", "variables": {"message": {"type": "string"}},
                 "state": "{{message}}",
                 "questions": {"team": {"type": "choice", "criteria": ["billing", "technical", "sales"]},
                               "urgent": {"type": "noul"}},
                 "settings": {"act_threshold": 0.4}}""");
        var random = new Random(42);
        for (int i = 0; i < SEEDS; i++) {
            var message = new StringBuilder("Ticket " + (1000 + random.nextInt(9000)) + ":");
            for (int w = 0; w < 40; w++) {
                message.append(' ').append(WORDS[random.nextInt(WORDS.length)]);
            }
            post(
                    base + "/v1/studio/decisions",
                    "{\"template\": \"support\", \"variables\": {\"message\": "
                            + JSON.writeValueAsString(message.toString()) + "}, \"metadata\": {\"customer\": \"c"
                            + (i % 50)
                            + "\"}}");
        }
    }

    /**
     * Copies the seeds {@code rounds} times, round k a thousand decisions k minutes older, with ids that sort as
     * their age does ({@code dec_00<999-k>...} before every real id) and a ticket number of their own.
     */
    static void copy(Connection db, boolean postgres, int rounds) throws Exception {
        db.setAutoCommit(false);
        String prefix = postgres
                ? "'dec_00' || lpad((999 - ?)::text, 3, '0') || substr(%s, 10)"
                : "'dec_00' || printf('%%03d', 999 - ?) || substr(%s, 10)";
        String columns = "status, storage, surface, endpoint, request_id, template_id, template_version, model, act, "
                + "min_certainty, error_code, pinned, metadata, rerun_of, completed_at, total_ms, body, input, "
                + "stored_bytes";
        String decisions = "INSERT INTO studio_decisions (id, created_at, search_text, " + columns + ") SELECT "
                + prefix.formatted("id") + ", created_at - ? * 60000, replace(search_text, 'Ticket ', 'Ticket ' || ? "
                + "|| ' '), " + columns + " FROM studio_decisions WHERE seq <= " + SEEDS;
        String answers = "INSERT INTO studio_decision_answers (decision_seq, question_key, ordinal, position, type, "
                + "answer, value, certainty, act, origin) SELECT c.seq, a.question_key, a.ordinal, a.position, a.type, "
                + "a.answer, a.value, a.certainty, a.act, a.origin FROM studio_decision_answers a "
                + "JOIN studio_decisions d ON d.seq = a.decision_seq "
                + "JOIN studio_decisions c ON c.id = " + prefix.formatted("d.id") + " WHERE d.seq <= " + SEEDS;
        try (var copyDecisions = db.prepareStatement(decisions);
                var copyAnswers = db.prepareStatement(answers)) {
            for (int k = 1; k <= rounds; k++) {
                copyDecisions.setInt(1, k);
                copyDecisions.setInt(2, k);
                copyDecisions.setInt(3, k);
                copyDecisions.executeUpdate();
                copyAnswers.setInt(1, k);
                copyAnswers.executeUpdate();
                db.commit();
                if (k % 100 == 0) {
                    System.out.printf("  %,d decisions%n", (k + 1) * SEEDS);
                }
            }
        }
        db.setAutoCommit(true);
        try (Statement statement = db.createStatement()) {
            // the copies repeat the seeds exactly, so the statistics' running totals grow by the same factor
            int factor = rounds + 1;
            statement.executeUpdate("UPDATE studio_stats_decisions SET n = n * " + factor + ", acted = acted * "
                    + factor + ", timed = timed * " + factor);
            statement.executeUpdate("UPDATE studio_stats_answers SET n = n * " + factor + ", acted = acted * " + factor
                    + ", certainty_e4 = certainty_e4 * " + factor);
            statement.execute(postgres ? "VACUUM ANALYZE" : "ANALYZE");
        }
    }

    static List<String> sampleIds(String jdbc) throws Exception {
        var ids = new ArrayList<String>();
        try (Connection db = DriverManager.getConnection(jdbc);
                Statement statement = db.createStatement();
                ResultSet rs = statement.executeQuery("SELECT id FROM studio_decisions WHERE seq % 997 = 0")) {
            while (rs.next()) {
                ids.add(rs.getString(1));
            }
        }
        return ids;
    }

    /**
     * Times {@code count} requests after a warm-up of a tenth as many (at least two); prints a row, with its p99 over
     * the floor's ({@code healthP99}, 0 for the floor itself), and returns the p99.
     */
    static double report(String name, int count, IntFunction<String> url, double healthP99) throws Exception {
        for (int i = 0; i < Math.max(2, count / 10); i++) {
            get(url.apply(i));
        }
        double[] millis = new double[count];
        for (int i = 0; i < count; i++) {
            long start = System.nanoTime();
            get(url.apply(i));
            millis[i] = (System.nanoTime() - start) / 1e6;
        }
        Arrays.sort(millis);
        double p99 = millis[Math.min(count - 1, (int) Math.ceil(count * 0.99) - 1)];
        System.out.printf(
                "| %s | %.2f | %.2f | %.1f |%n", name, millis[count / 2], p99, healthP99 == 0 ? 1.0 : p99 / healthP99);
        return p99;
    }

    static JsonNode get(String url) throws Exception {
        HttpResponse<String> response =
                HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException(url + " answered " + response.statusCode() + ": " + response.body());
        }
        return JSON.readTree(response.body());
    }

    static void post(String url, String body) throws Exception {
        HttpResponse<String> response = HTTP.send(
                HttpRequest.newBuilder(URI.create(url))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() >= 300) {
            throw new IllegalStateException(url + " answered " + response.statusCode() + ": " + response.body());
        }
    }
}
