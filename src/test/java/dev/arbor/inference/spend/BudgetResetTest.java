package dev.arbor.inference.spend;

import static dev.arbor.testing.RouterFixture.single;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.MovableClock;
import dev.arbor.testing.OpenAiUpstream;
import dev.arbor.testing.OpenAiUpstream.Reply;
import dev.arbor.testing.RouterFixture;
import dev.arbor.testing.TestServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A day's budget, in a zone a quarter-hour off UTC, refuses the request that could pass it and lets requests through
 * again from the start of the next day in that zone, on the server's (movable) clock.
 */
class BudgetResetTest {
    private static final String ADMIN = "arb_budget_reset_admin";
    private static final String BODY =
            "{\"model\": \"daily\", \"max_tokens\": 5, \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}";

    @Test
    void aDaysBudgetRefusesUntilItsDayEndsInItsZoneThenServesAgain() throws Exception {
        // 18:00 UTC is 23:45 in +05:45: the budget's day ends a quarter of an hour later
        var clock = MovableClock.stoppedAt(Instant.parse("2026-11-29T18:00:00Z"));
        var upstream = new OpenAiUpstream("daily");
        upstream.always(Reply.ok());
        try (var routers = RouterFixture.start(ADMIN, Map.of(), clock)) {
            TestServer http = routers.http();
            String project = routers.project("daily");
            routers.cloudModel("daily-model", upstream, "remote", "key");
            routers.router(project, "daily", single("go", "daily-model"));
            String[] admin = {"Authorization", "Bearer " + ADMIN, "X-Project-Id", project};
            // room for one request's reservation (its body's bytes and max_tokens), not for a second after the
            // first spent its 17 tokens
            long reservation = BODY.getBytes(StandardCharsets.UTF_8).length + 5;
            HttpReply created = http.post(
                    "/budgets",
                    "{\"scope\": \"project\", \"tokens\": " + (reservation + 5) + ", \"period\": \"day\", "
                            + "\"time_zone\": \"+05:45\"}",
                    admin);
            assertThat(created.status()).as(created.body()).isEqualTo(201);
            JsonNode budget = created.json();
            assertThat(budget.path("resets_at").asLong())
                    .isEqualTo(Instant.parse("2026-11-29T18:15:00Z").getEpochSecond());

            assertThat(http.post("/v1/chat/completions", BODY, admin).status()).isEqualTo(200);
            await().until(() -> http.get("/budgets/" + budget.path("id").asText(), admin)
                            .json()
                            .path("spent_tokens")
                            .asLong()
                    == 17);
            HttpReply refused = http.post("/v1/chat/completions", BODY, admin);
            JsonNode error = refused.assertError(429, "budget_exceeded", null);
            assertThat(error.path("budget_id").asText())
                    .isEqualTo(budget.path("id").asText());
            assertThat(error.path("resets_at").asLong())
                    .isEqualTo(budget.path("resets_at").asLong());
            assertThat(refused.header("retry-after")).isEqualTo("900");
            assertThat(upstream.served()).isEqualTo(1);

            clock.advance(Duration.ofMinutes(15));

            assertThat(http.post("/v1/chat/completions", BODY, admin).status()).isEqualTo(200);
            assertThat(upstream.served()).isEqualTo(2);
        }
    }
}
