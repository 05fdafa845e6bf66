package dev.arbor.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.arbor.ArborServer;
import dev.arbor.testing.StoppablePostgres;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * While PostgreSQL is down the job engines (pipelines, triggers) fail every poll; the log says so once, with no stack
 * trace, and once more when the database is back, instead of a trace per poll.
 */
class JobEngineLogOnPostgresTest {
    private static final String DOWN = "the job engines cannot reach the database";
    private static final String BACK = "the job engines reach the database again";

    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();

    @BeforeEach
    void capture() {
        log.setContext(root.getLoggerContext());
        log.start();
        root.addAppender(log);
    }

    @AfterEach
    void release() {
        root.detachAppender(log);
        log.stop();
    }

    @Test
    void theEnginesSayOnceThatTheDatabaseIsOutOfReachAndOnceThatItIsBackWithoutATracePerPoll() {
        try (var postgres = StoppablePostgres.start();
                var server = ArborServer.start(Map.of("ARBOR_DATABASE_URL", postgres.databaseUrl()))) {
            postgres.stop();
            await().atMost(Duration.ofSeconds(60)).until(() -> !messages(DOWN).isEmpty());
            // more polls fail while it stays down: each of these waits out the pool's connect timeout meanwhile
            for (int i = 0; i < 3; i++) {
                assertThat(server.http()
                                .post("/projects", "{\"name\": \"while-down-" + i + "\"}")
                                .status())
                        .isEqualTo(503);
            }
            postgres.startAgain();
            await().atMost(Duration.ofSeconds(60)).until(() -> !messages(BACK).isEmpty());

            assertThat(messages(DOWN)).hasSize(1);
            assertThat(messages(BACK)).hasSize(1);
            assertThat(events().stream()
                            .filter(event -> event.getLoggerName().startsWith("com.github.kagkarlsson"))
                            .filter(event -> event.getThrowableProxy() != null
                                    || event.getLevel().isGreaterOrEqual(ch.qos.logback.classic.Level.WARN))
                            .map(ILoggingEvent::getFormattedMessage)
                            .toList())
                    .as("the engines' own errors and traces while the database was down")
                    .isEmpty();
        }
    }

    private List<ILoggingEvent> events() {
        synchronized (log) {
            return List.copyOf(log.list);
        }
    }

    private List<String> messages(String start) {
        return events().stream()
                .map(ILoggingEvent::getFormattedMessage)
                .filter(message -> message.startsWith(start))
                .toList();
    }
}
