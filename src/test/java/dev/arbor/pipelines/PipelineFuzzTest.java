package dev.arbor.pipelines;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TestServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
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
    private static final List<String> STRINGS = List.of("", "{{", "}}", "{{ params.nope }}", "{{ steps.a.outputs.v",
            "{% for x in y %}", "{{ 1/0 }}", "{{ params.n ** 99999 }}", "é\u0000\uFFFF", "a".repeat(5000),
            "merge", "fail", "continue", "log", "{{ event.type }}", "{{ params.n | sort }}", "now", "steps");

    @Test
    void anyMutationOfADefinitionGetsAClearAnswerAndRunsEnd() throws Exception {
        System.out.println("PipelineFuzzTest seed: " + SEED + " (replay with -Dfuzz.seed=" + SEED + ")");
        var random = new Random(SEED);
        int created = 0;
        var runs = new ArrayList<String>();
        try (var server = ArborServer.start(Map.of())) {
            TestServer http = server.http();
            for (int i = 0; i < CASES; i++) {
                ObjectNode definition = (ObjectNode) JSON.readTree(VALID);
                definition.put("name", "fuzz-" + i);
                for (int m = 1 + random.nextInt(3); m > 0; m--) {
                    mutate(definition, random);
                }
                String body = definition.toString();
                HttpReply checked = http.post("/pipelines/validate", body);
                assertThat(checked.status()).as("validate %s", body).isIn(200, 400);
                HttpReply saved = http.post("/pipelines", body);
                assertThat(saved.status()).as("create %s -> %s", body, saved.body()).isIn(201, 400, 409);
                if (checked.status() == 200) {
                    assertThat(saved.status() == 201).as("valid by validate, so saved: %s", saved.body())
                            .isEqualTo(checked.json().path("valid").asBoolean() || saved.status() == 409);
                }
                if (saved.status() == 201) {
                    created++;
                    ObjectNode params = NODES.objectNode();
                    if (random.nextBoolean()) {
                        params.set(random.nextBoolean() ? "n" : "s", value(random, 0));
                    }
                    HttpReply started = http.post("/pipelines/" + saved.json().path("id").asText() + "/runs",
                            NODES.objectNode().set("params", params).toString());
                    assertThat(started.status()).as("run %s -> %s", params, started.body()).isIn(202, 400);
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
            page = http.get("/pipelines?limit=100&after=" + page.path("last_id").asText()).json();
            more += page.path("data").size();
        }
        return more;
    }

    /** Replaces, drops or adds one thing somewhere in the definition. */
    private static void mutate(JsonNode root, Random random) {
        List<JsonNode> containers = new ArrayList<>();
        collect(root, containers);
        JsonNode target = containers.get(random.nextInt(containers.size()));
        if (target instanceof ObjectNode object && !object.isEmpty()) {
            List<String> names = new ArrayList<>();
            object.fieldNames().forEachRemaining(names::add);
            String name = names.get(random.nextInt(names.size()));
            switch (random.nextInt(4)) {
                case 0 -> object.remove(name);
                case 1 -> object.set(random.nextBoolean() ? name : "x" + random.nextInt(9), value(random, 0));
                default -> object.set(name, value(random, 0));
            }
        } else if (target instanceof ArrayNode array && !array.isEmpty()) {
            int index = random.nextInt(array.size());
            if (random.nextBoolean()) {
                array.remove(index);
            } else {
                array.set(index, value(random, 0));
            }
        }
    }

    private static void collect(JsonNode node, List<JsonNode> into) {
        if (node.isContainerNode()) {
            into.add(node);
            node.forEach(child -> collect(child, into));
        }
    }

    private static JsonNode value(Random random, int depth) {
        return switch (random.nextInt(depth > 2 ? 5 : 7)) {
            case 0 -> NODES.textNode(STRINGS.get(random.nextInt(STRINGS.size())));
            case 1 -> NODES.numberNode(Set.of(0, -1, 1, 7, Integer.MAX_VALUE).stream().skip(random.nextInt(5))
                    .findFirst().orElse(0));
            case 2 -> NODES.booleanNode(random.nextBoolean());
            case 3 -> NODES.nullNode();
            case 4 -> NODES.numberNode(random.nextDouble() * 1e300);
            case 5 -> {
                ArrayNode array = NODES.arrayNode();
                for (int i = random.nextInt(4); i > 0; i--) {
                    array.add(value(random, depth + 1));
                }
                yield array;
            }
            default -> {
                ObjectNode object = NODES.objectNode();
                for (int i = random.nextInt(4); i > 0; i--) {
                    object.set(STRINGS.get(random.nextInt(STRINGS.size())), value(random, depth + 1));
                }
                yield object;
            }
        };
    }
}
