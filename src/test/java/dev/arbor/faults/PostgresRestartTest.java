package dev.arbor.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.StoppablePostgres;
import dev.arbor.testing.TestServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL stopped and started again while Arbor serves a steady stream of writes: every request answers within the
 * client's timeout, with the write or a 503 {@code database_unavailable} to retry, never a 500; the same Arbor process
 * serves again once the database is back; and what it said it stored is stored, what it refused is not.
 */
class PostgresRestartTest {
    private static final int WRITERS = 3;

    /** One write and how it was answered; {@code reply} is absent when the client gave up waiting. */
    private record Answer(String name, HttpReply reply) {}

    @Test
    void whilePostgresIsDownWritesAnswer503AndTheSameServerRecoversWithNothingHalfWritten() throws Exception {
        try (var postgres = StoppablePostgres.start();
                var server = ArborServer.start(Map.of("ARBOR_DATABASE_URL", postgres.databaseUrl()))) {
            var answers = new ConcurrentLinkedQueue<Answer>();
            var hung = new ConcurrentLinkedQueue<String>();
            var running = new AtomicBoolean(true);
            var next = new AtomicInteger();
            ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
            for (int w = 0; w < WRITERS; w++) {
                writers.submit(() -> {
                    while (running.get()) {
                        String name = "load-" + next.incrementAndGet();
                        try {
                            answers.add(new Answer(name, write(server.http(), name)));
                        } catch (RuntimeException e) { // the client's timeout, or a connection cut
                            hung.add(name + ": " + e);
                        }
                    }
                });
            }
            try {
                await().atMost(Duration.ofSeconds(30)).until(() -> count(answers, 201) >= 20);

                postgres.stop();
                await().atMost(Duration.ofSeconds(60)).until(() -> count(answers, 503) >= 2 * WRITERS);

                postgres.startAgain();
                int before = count(answers, 201);
                await().atMost(Duration.ofSeconds(60)).until(() -> count(answers, 201) >= before + 20);
            } finally {
                running.set(false);
                writers.shutdown();
                assertThat(writers.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
            }

            assertThat(hung).as("requests the client gave up on").isEmpty();
            List<Answer> refused = answers.stream()
                    .filter(answer -> answer.reply().status() != 201)
                    .toList();
            assertThat(refused).isNotEmpty().allSatisfy(answer -> {
                answer.reply().assertError(503, "database_unavailable", null);
                assertThat(answer.reply().header("retry-after")).isEqualTo("5");
                assertThat(answer.reply().body()).doesNotContain("\tat ", "Exception:");
            });
            Set<String> stored = projectNames(postgres.databaseUrl());
            assertThat(stored)
                    .as("every write answered 201 is stored")
                    .containsAll(names(answers, 201))
                    .as("no write answered 503 is stored")
                    .doesNotContainAnyElementsOf(names(answers, 503));
            assertThat(server.http().get("/projects?limit=1").status()).isEqualTo(200);
        }
    }

    private static HttpReply write(TestServer http, String name) {
        return http.post("/projects", "{\"name\": \"" + name + "\"}");
    }

    private static int count(ConcurrentLinkedQueue<Answer> answers, int status) {
        return (int) answers.stream()
                .filter(answer -> answer.reply().status() == status)
                .count();
    }

    private static List<String> names(ConcurrentLinkedQueue<Answer> answers, int status) {
        var names = new ArrayList<String>();
        answers.stream()
                .filter(answer -> answer.reply().status() == status)
                .forEach(answer -> names.add(answer.name()));
        return names;
    }

    private static Set<String> projectNames(String url) throws Exception {
        var names = new HashSet<String>();
        try (Connection db = DriverManager.getConnection(url);
                ResultSet rows = db.createStatement().executeQuery("SELECT name FROM projects")) {
            while (rows.next()) {
                names.add(rows.getString(1));
            }
        }
        return names;
    }
}
