package dev.arbor.routers;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.JsonMutator;
import dev.arbor.testing.TestServer;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A seeded fuzzer over the validate body and a router's save body: a valid one mutated at random (fields dropped,
 * values swapped for other JSON, broken expressions and regular expressions) gets 200 or a clear 4xx, never a 500;
 * a save answered 200 is active only with a graph the validate route would pass. The seed is printed so that a
 * failure can be replayed.
 */
class RouterFuzzTest {
    private static final long SEED = Long.getLong("fuzz.seed", System.nanoTime());
    private static final int CASES = Integer.getInteger("fuzz.cases", 150);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> STRINGS = List.of(
            "",
            "(",
            "[a-",
            "request.tokens >",
            "{{",
            "{% for x in y %}",
            "request.model == 'x' and",
            "é\u0000\uFFFF",
            "a".repeat(5000),
            "split",
            "say",
            "nowhere",
            "regex",
            "tag",
            "both",
            "local",
            "openai",
            "header");
    private static final String SAVE = """
            {"status": "active", "tags": ["a"], "dag_config": {"entry_step": "guard", "steps": [
              {"step_id": "guard", "action_type": "content_rules", "next_steps": ["route"],
               "params": {"rules": [{"match": "regex", "pattern": "\\\\d+", "action": "redact", "on": "both"}]}},
              {"step_id": "route", "action_type": "decision_branches", "conditions": ["true"],
               "params": {"branches": [{"name": "big", "condition": "request.tokens > 100", "next_step": "split"},
                                       {"name": "rest", "next_step": "say"}]}},
              {"step_id": "split", "action_type": "weighted_routing",
               "params": {"weights": [{"endpoint": "CLOUD", "weight": 1}, {"endpoint": "CLOUD", "weight": 2}]}},
              {"step_id": "say", "action_type": "canned_response", "params": {"message": "hi"}}]}}""";

    @Test
    void anyMutationOfAValidateOrSaveBodyGetsAClearAnswer() throws Exception {
        System.out.println("RouterFuzzTest seed: " + SEED + " (replay with -Dfuzz.seed=" + SEED + ")");
        var random = new Random(SEED);
        var mutator = new JsonMutator(random, STRINGS);
        try (var server = ArborServer.start(Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1"))) {
            TestServer http = server.http();
            String cloud = http.post(
                            "/models",
                            "{\"model_uri\": \"http://127.0.0.1:9/v1\", \"model_name\": \"Fuzz\", \"model_source\": "
                                    + "\"cloud\", \"engine\": \"remote\", \"remote_model\": \"tiny\"}")
                    .json()
                    .path("id")
                    .asText();
            String project = http.post("/projects", "{\"name\": \"fuzz\"}")
                    .json()
                    .path("id")
                    .asText();
            String router = http.post("/routers", "{\"name\": \"fuzz\"}", "X-Project-Id", project)
                    .json()
                    .path("id")
                    .asText();
            for (int i = 0; i < CASES; i++) {
                ObjectNode save = (ObjectNode) JSON.readTree(SAVE.replace("CLOUD", cloud));
                for (int m = 1 + random.nextInt(3); m > 0; m--) {
                    mutator.mutate(save);
                }
                HttpReply saved = http.put("/routers/" + router, save.toString(), "X-Project-Id", project);
                assertThat(saved.status())
                        .as("save %s -> %s", save, saved.body())
                        .isIn(200, 400);
                if (saved.status() == 200
                        && saved.json().path("status").asText().equals("active")) {
                    for (var step : saved.json().path("dag_config").path("steps")) {
                        ObjectNode check = JSON.createObjectNode();
                        check.set("action_type", step.path("action_type"));
                        check.set("params", step.path("params"));
                        HttpReply checked = http.post("/routers/actions/validate", check.toString());
                        assertThat(checked.json().path("valid").asBoolean())
                                .as("an active router's step passes validate: %s", checked.body())
                                .isTrue();
                    }
                }
                var step = save.path("dag_config").path("steps").path(random.nextInt(4));
                if (step.isObject()) {
                    ObjectNode check = JSON.createObjectNode();
                    check.set("action_type", step.path("action_type"));
                    check.set("params", step.path("params"));
                    mutator.mutate(check);
                    HttpReply checked = http.post("/routers/actions/validate", check.toString());
                    assertThat(checked.status())
                            .as("validate %s -> %s", check, checked.body())
                            .isIn(200, 400);
                }
            }
        }
    }
}
