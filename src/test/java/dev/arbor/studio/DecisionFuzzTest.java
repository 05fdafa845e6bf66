package dev.arbor.studio;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TestServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A seeded, structure-aware fuzzer over decision bodies: valid bodies with random fields removed, replaced, renamed
 * or retyped. Any of them gets a 200 or a 4xx envelope, never a 500, and history holds exactly the decisions whose
 * responses said they were stored, each whole. The seed is printed so that a failure can be replayed.
 */
class DecisionFuzzTest {
    private static final long SEED = Long.getLong("fuzz.seed", System.nanoTime());
    private static final int CASES = Integer.getInteger("fuzz.cases", 300);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final List<String> SEEDS = List.of(
            "{\"model\": \"hash-decider\", \"state\": \"Billed twice\", \"metadata\": {\"k\": \"v\"}, "
                    + "\"questions\": " + StudioApiContract.ALL_TYPES + ", \"settings\": {\"temperature\": 1.5, "
                    + "\"questions\": {\"team\": {\"act_threshold\": 0.5}}}, \"include\": [\"input\"]}",
            "{\"template\": \"fuzz\", \"variables\": {\"message\": \"hi\", \"n\": 2}, \"skip\": [\"b\"], "
                    + "\"add_options\": {\"a\": [\"z\"]}, \"questions\": {\"x\": {\"type\": \"noul\"}}, "
                    + "\"store\": \"answers_only\", \"act_threshold\": 0.5}",
            "{\"model\": \"hash-decider\", \"state\": {\"a\": [1, {\"b\": null}]}, \"media\": [{\"data\": "
                    + "\"data:image/png;base64,iVBORw0KGgo=\", \"name\": \"p\"}], \"background\": true, "
                    + "\"questions\": {\"q\": {\"type\": \"number\", \"criteria\": {\"1\": \"one\", \"2.5\": null}}}}");

    @Test
    void anyDecisionBodyGetsAnAnswerOrAClearRefusalAndHistoryStaysWhole() throws Exception {
        System.out.println("DecisionFuzzTest seed: " + SEED + " (replay with -Dfuzz.seed=" + SEED + ")");
        try (var server = ArborServer.start(Map.of("ARBOR_TEST_MODELS", "1"))) {
            TestServer http = server.http();
            assertThat(http.post("/v1/studio/templates", """
                    {"id": "fuzz", "model": "hash-decider",
                     "variables": {"message": {"type": "string"}, "n": {"type": "integer", "required": false}},
                     "state": "{{message}} ({{n}})",
                     "questions": {"a": {"type": "choice", "criteria": ["x", "y"]}, "b": {"type": "noul"}},
                     "extensions": {"options": true, "skip": true}}""").status()).isEqualTo(201);
            Random random = new Random(SEED);
            Set<String> stored = new HashSet<>();
            for (int i = 0; i < CASES; i++) {
                JsonNode body = JSON.readTree(SEEDS.get(random.nextInt(SEEDS.size())));
                for (int m = random.nextInt(4); m >= 0; m--) {
                    body = mutate(body, random);
                }
                String text = JSON.writeValueAsString(body);
                for (String path : List.of("/v1/studio/decisions", "/v1/studio/decisions/preview", "/v1/decide")) {
                    HttpReply reply = http.post(path, text);
                    assertThat(reply.status())
                            .as("case %d on %s: %s\n%s", i, path, text, reply.body())
                            .isIn(200, 400, 404, 409, 413);
                    if (reply.status() >= 400) {
                        assertThat(reply.json().path("error").path("code").asText())
                                .as(reply.body())
                                .isNotBlank();
                        String failed =
                                reply.json().path("error").path("decision_id").asText(null);
                        if (failed != null) {
                            stored.add(failed);
                        }
                    } else if (reply.header("x-studio-decision-id") != null) {
                        stored.add(reply.header("x-studio-decision-id"));
                    }
                }
            }
            try (Connection db = DriverManager.getConnection(
                    "jdbc:sqlite:" + server.dataDir().resolve("arbor.db"))) {
                var ids = new HashSet<String>();
                ResultSet rows = db.createStatement().executeQuery("SELECT id FROM studio_decisions");
                while (rows.next()) {
                    ids.add(rows.getString(1));
                }
                assertThat(ids)
                        .as("history holds exactly what the responses said was stored")
                        .isEqualTo(stored);
                ResultSet orphans = db.createStatement().executeQuery("""
                        SELECT count(*) FROM studio_decisions d WHERE d.status = 'completed'
                        AND NOT EXISTS (SELECT 1 FROM studio_decision_answers a WHERE a.decision_seq = d.seq)""");
                orphans.next();
                assertThat(orphans.getInt(1))
                        .as("completed decisions without their answers")
                        .isZero();
            }
        }
    }

    /** One random change somewhere in the document. */
    private static JsonNode mutate(JsonNode root, Random random) {
        var containers = new ArrayList<JsonNode>();
        collect(root, containers);
        JsonNode target = containers.get(random.nextInt(containers.size()));
        if (target instanceof ObjectNode object && !object.isEmpty()) {
            var names = new ArrayList<String>();
            object.fieldNames().forEachRemaining(names::add);
            String name = names.get(random.nextInt(names.size()));
            switch (random.nextInt(4)) {
                case 0 -> object.remove(name);
                case 1 -> object.set(name, randomValue(random, 2));
                case 2 -> object.set(name + (random.nextBoolean() ? "_" : "."), object.remove(name));
                default -> object.set(randomKey(random), randomValue(random, 2));
            }
        } else if (target instanceof ArrayNode array) {
            if (!array.isEmpty() && random.nextBoolean()) {
                array.set(random.nextInt(array.size()), randomValue(random, 2));
            } else {
                array.add(randomValue(random, 2));
            }
        }
        return root;
    }

    private static void collect(JsonNode node, List<JsonNode> out) {
        if (node.isContainerNode()) {
            out.add(node);
            node.forEach(child -> collect(child, out));
        }
    }

    private static String randomKey(Random random) {
        String[] keys = {
            "template",
            "variables",
            "state",
            "questions",
            "skip",
            "add_options",
            "settings",
            "extensions",
            "media",
            "metadata",
            "store",
            "background",
            "stream",
            "model",
            "act_threshold",
            "on_store_error",
            "include",
            "type",
            "criteria",
            "instructions",
            "threshold",
            "unit",
            "temperature",
            "data",
            "file_id",
            "questions",
            "a",
            "b",
            "x",
            "q"
        };
        return keys[random.nextInt(keys.length)];
    }

    private static JsonNode randomValue(Random random, int depth) {
        return switch (random.nextInt(depth > 0 ? 12 : 9)) {
            case 0 -> NODES.nullNode();
            case 1 -> NODES.booleanNode(random.nextBoolean());
            case 2 -> NODES.numberNode(random.nextInt(2001) - 1000);
            case 3 -> NODES.numberNode(random.nextDouble() * (random.nextBoolean() ? 1 : 1e300));
            case 4 -> NODES.textNode("");
            case 5 ->
                NODES.textNode(List.of(
                                "noul",
                                "choice",
                                "score",
                                "multi",
                                "rank",
                                "number",
                                "none",
                                "full",
                                "hash-decider",
                                "hash-small",
                                "fuzz",
                                "fuzz@1",
                                "fuzz@9",
                                "{{message}}",
                                "data:image/png;base64,",
                                "file_x",
                                "fail",
                                "serve",
                                "input")
                        .get(random.nextInt(19)));
            case 6 -> NODES.textNode("x".repeat(random.nextInt(3) == 0 ? 300 : 5));
            case 7 -> NODES.textNode("\u0000\uFFFF" + random.nextLong());
            case 8 -> NODES.numberNode(new java.math.BigDecimal("1e" + (random.nextInt(800) - 400)));
            case 9 -> {
                ArrayNode array = NODES.arrayNode();
                for (int i = random.nextInt(4); i > 0; i--) {
                    array.add(randomValue(random, depth - 1));
                }
                yield array;
            }
            default -> {
                ObjectNode object = NODES.objectNode();
                for (int i = random.nextInt(4); i > 0; i--) {
                    object.set(randomKey(random), randomValue(random, depth - 1));
                }
                yield object;
            }
        };
    }
}
