package dev.arbor.pipelines;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.ArborServer;
import dev.arbor.pipelines.runs.RunContract;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.JsonMutator;
import dev.arbor.testing.TestServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A seeded fuzzer over pipeline definitions and run params: a valid definition mutated at random (fields dropped,
 * values swapped for other JSON, templates that refer to nothing, broken Jinja) is checked, saved and run. Every
 * answer is 2xx or a clear 4xx, never a 500; exactly the pipelines answered 201 exist afterwards; every run started
 * ends. The seed is printed so that a failure can be replayed.
 */
class PipelineFuzzTest {
    private static final long SEED = Long.getLong("fuzz.seed", System.nanoTime());
    private static final int CASES = Integer.getInteger("fuzz.cases", 150);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final String VALID = """
            {"name": "fuzz", "parameters": [{"name": "n", "type": "integer", "default": 2},
                                            {"name": "s", "type": "string", "required": false}],
             "timeout_seconds": 60,
             "steps": [
               {"id": "a", "action": "set_output", "params": {"key": "v", "value": "{{ params.n * 2 }}"}},
               {"id": "b", "action": "transform", "depends_on": ["a"],
                "params": {"operation": "template", "template": "x{{ steps.a.outputs.v }}"}},
               {"id": "c", "action": "conditional_branch", "depends_on": ["b"],
                "params": {"condition": "params.n > 1", "branches": {"yes": {"condition": "true", "steps": ["d"]}}}},
               {"id": "d", "action": "log", "depends_on": ["c"], "condition": "params.n < 100",
                "params": {"message": "{{ steps.b.outputs.result }}"}, "retry": {"max_attempts": 2}},
               {"id": "e", "action": "aggregate", "depends_on": ["d", "a"],
                "params": {"sources": ["a", "d"], "strategy": "merge"}, "on_failure": "continue"}],
             "outputs": {"out": "{{ steps.e.outputs.result }}"}}""";
    private static final List<String> STRINGS = List.of(
            "",
            "{{",
            "}}",
            "{{ params.nope }}",
            "{{ steps.a.outputs.v",
            "{% for x in y %}",
            "{{ 1/0 }}",
            "{{ params.n ** 99999 }}",
            "é\u0000\uFFFF",
            "a".repeat(5000),
            "merge",
            "fail",
            "continue",
            "log",
            "{{ event.type }}",
            "{{ params.n | sort }}",
            "now",
            "steps");

    @Test
    void anyMutationOfADefinitionGetsAClearAnswerAndRunsEnd() throws Exception {
        System.out.println("PipelineFuzzTest seed: " + SEED + " (replay with -Dfuzz.seed=" + SEED + ")");
        var random = new Random(SEED);
        var mutator = new JsonMutator(random, STRINGS);
        int created = 0;
        var runs = new ArrayList<String>();
        try (var server = ArborServer.start(Map.of())) {
            TestServer http = server.http();
            for (int i = 0; i < CASES; i++) {
                ObjectNode definition = (ObjectNode) JSON.readTree(VALID);
                definition.put("name", "fuzz-" + i);
                for (int m = 1 + random.nextInt(3); m > 0; m--) {
                    mutator.mutate(definition);
                }
                String body = definition.toString();
                HttpReply checked = http.post("/pipelines/validate", body);
                assertThat(checked.status()).as("validate %s", body).isIn(200, 400);
                HttpReply saved = http.post("/pipelines", body);
                assertThat(saved.status())
                        .as("create %s -> %s", body, saved.body())
                        .isIn(201, 400, 409);
                if (checked.status() == 200) {
                    assertThat(saved.status() == 201)
                            .as("valid by validate, so saved: %s", saved.body())
                            .isEqualTo(checked.json().path("valid").asBoolean() || saved.status() == 409);
                }
                if (saved.status() == 201) {
                    created++;
                    ObjectNode params = NODES.objectNode();
                    if (random.nextBoolean()) {
                        params.set(random.nextBoolean() ? "n" : "s", mutator.value(0));
                    }
                    HttpReply started = http.post(
                            "/pipelines/" + saved.json().path("id").asText() + "/runs",
                            NODES.objectNode().set("params", params).toString());
                    assertThat(started.status())
                            .as("run %s -> %s", params, started.body())
                            .isIn(202, 400);
                    if (started.status() == 202) {
                        runs.add(started.json().path("id").asText());
                    }
                }
            }
            for (String run : runs) {
                JsonNode finished = RunContract.finished(http, run);
                assertThat(finished.path("status").asText()).isIn("completed", "failed");
            }
            assertThat(http.get("/pipelines?limit=100").json().path("data").size() + countMore(http))
                    .isEqualTo(created);
        }
    }

    private static int countMore(TestServer http) {
        int more = 0;
        JsonNode page = http.get("/pipelines?limit=100").json();
        while (page.path("has_more").asBoolean()) {
            page = http.get("/pipelines?limit=100&after=" + page.path("last_id").asText())
                    .json();
            more += page.path("data").size();
        }
        return more;
    }
}
