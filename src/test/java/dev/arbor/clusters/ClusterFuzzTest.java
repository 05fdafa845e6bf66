package dev.arbor.clusters;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.arbor.ArborServer;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.json.Json;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.JsonMutator;
import dev.arbor.testing.KubernetesApiMock;
import dev.arbor.testing.TestServer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A seeded fuzzer over the bodies that add and change clusters: the body mutated, the kubeconfig inside it mutated as
 * a document, or cut short. Every answer is a clear 201/200 or a 4xx envelope with a code of the registry, never a
 * 5xx, and exactly the clusters answered 201 exist afterwards. The seed is printed so that a failure can be replayed.
 */
class ClusterFuzzTest {
    private static final long SEED = Long.getLong("fuzz.seed", System.nanoTime());
    private static final int CASES = Integer.getInteger("fuzz.cases", 200);
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final List<String> STRINGS = List.of(
            "",
            " ",
            "mock",
            "arbor",
            "local",
            "default",
            "Not_A_Label",
            "http://127.0.0.1:9",
            "ftp://x",
            "https://10.0.0.1:6443",
            "/etc/passwd",
            "exec",
            "token",
            "é\u0000\uFFFF",
            "a".repeat(5000),
            "{{ x }}");
    private static final Set<Integer> CLEAR = Set.of(200, 201, 400, 404, 409);
    private static final Set<String> CODES =
            Set.copyOf(Arrays.stream(ErrorCode.values()).map(ErrorCode::code).toList());

    @Test
    void anyMutationOfAClusterBodyGetsAClearAnswerAndStoresWholeClustersOnly() throws Exception {
        System.out.println("ClusterFuzzTest seed: " + SEED + " (replay with -Dfuzz.seed=" + SEED + ")");
        Random random = new Random(SEED);
        var mutator = new JsonMutator(random, STRINGS);
        try (var mock = new KubernetesApiMock().node("a", Map.of("Ready", "True"), "2", "4Gi", 0);
                var server = ArborServer.start(Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1"))) {
            TestServer http = server.http();
            String target = http.post("/clusters", ClustersTest.body("target", mock.kubeconfig()))
                    .json()
                    .path("id")
                    .asText();
            int created = 1;
            for (int i = 0; i < CASES; i++) {
                ObjectNode body = Json.object()
                        .put("name", "fuzz-" + i)
                        .put("kubeconfig", mock.kubeconfig())
                        .put("context", "mock")
                        .put("namespace", "serving");
                String sent = switch (random.nextInt(3)) {
                    case 0 -> {
                        mutator.mutate(body);
                        yield body.toString();
                    }
                    case 1 -> {
                        JsonNode kubeconfig = YAML.readTree(mock.kubeconfig());
                        mutator.mutate(kubeconfig);
                        yield body.put("kubeconfig", YAML.writeValueAsString(kubeconfig))
                                .toString();
                    }
                    default -> {
                        String kubeconfig = mock.kubeconfig();
                        yield body.put("kubeconfig", kubeconfig.substring(0, random.nextInt(kubeconfig.length())))
                                .toString();
                    }
                };
                boolean patch = random.nextInt(4) == 0;
                HttpReply reply = patch ? http.patch("/clusters/" + target, sent) : http.post("/clusters", sent);
                String what = "case " + i + " (seed " + SEED + "): " + sent + " -> " + reply.body();
                assertThat(CLEAR).as(what).contains(reply.status());
                if (reply.status() >= 400) {
                    JsonNode error = reply.json().path("error");
                    assertThat(CODES).as(what).contains(error.path("code").asText());
                    assertThat(error.path("message").asText()).as(what).isNotBlank();
                } else if (!patch) {
                    created++;
                }
                assertThat(http.get("/clusters/" + target).status()).as(what).isEqualTo(200);
            }
            assertThat(http.get("/clusters").json().path("data")).hasSize(created + 1);
            assertThat(http.get("/clusters/" + target + "/health")
                            .json()
                            .path("status")
                            .asText())
                    .isEqualTo("healthy");
        }
    }
}
