package dev.arbor.clusters;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.ArborServer;
import dev.arbor.platform.json.Json;
import dev.arbor.testing.AdminFixture;
import dev.arbor.testing.HttpReceiver;
import dev.arbor.testing.KubernetesApiMock;
import dev.arbor.testing.TestServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Clusters through the real server: {@code local} from this machine (nvidia-smi replaced by scripts that print what a
 * real one prints, or fail), Kubernetes clusters against fabric8's API server mock, and every refusal with its code
 * and param.
 */
class ClustersTest {
    private static final long MIB = 1L << 20;

    /** One server for the refusals: none of them stores anything. */
    private static ArborServer refusing;

    @TempDir
    Path scripts;

    @BeforeAll
    static void startRefusingServer() {
        refusing = ArborServer.start(Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1"));
    }

    @AfterAll
    static void stopRefusingServer() {
        refusing.close();
    }

    @Test
    void localIsAlwaysThereAndCannotBeChangedOrDeleted() {
        try (var server = ArborServer.start(Map.of())) {
            TestServer http = server.http();
            JsonNode list = http.get("/clusters").json();
            assertThat(list.path("data")).hasSize(1);
            JsonNode local = list.path("data").path(0);
            assertThat(local.path("id").asText()).isEqualTo("local");
            assertThat(local.path("type").asText()).isEqualTo("local");
            assertThat(local.path("kubeconfig_set").asBoolean()).isFalse();
            assertThat(http.get("/clusters/local").json()).isEqualTo(local);
            http.patch("/clusters/local", "{\"name\": \"here\"}").assertError(409, "cluster_built_in", "cluster_id");
            http.delete("/clusters/local").assertError(409, "cluster_built_in", "cluster_id");
            http.get("/clusters/clu_none").assertError(404, "cluster_not_found", "cluster_id");
            http.get("/clusters/clu_none/health").assertError(404, "cluster_not_found", "cluster_id");
        }
    }

    @Test
    void localHealthReadsThisMachineAndHasNoGpusWithoutNvidiaSmi() {
        try (var server = ArborServer.start(
                Map.of("ARBOR_NVIDIA_SMI", scripts.resolve("no-such-nvidia-smi").toString()))) {
            JsonNode health = server.http().get("/clusters/local/health").json();
            assertThat(health.path("object").asText()).isEqualTo("cluster.health");
            assertThat(health.path("status").asText()).isIn("healthy", "degraded", "unhealthy");
            assertThat(health.path("node_count").asInt()).isEqualTo(1);
            JsonNode resources = health.path("available_resources");
            assertThat(resources.path("cpu").asDouble())
                    .isEqualTo(Runtime.getRuntime().availableProcessors())
                    .isGreaterThanOrEqualTo(1);
            assertThat(resources.path("memory_bytes").asLong()).isPositive();
            assertThat(resources.path("gpus").isArray()).isTrue();
            assertThat(resources.path("gpus")).isEmpty();
            // a reason for each status short of healthy, and none about GPUs
            assertThat(health.path("reasons").isEmpty())
                    .isEqualTo(health.path("status").asText().equals("healthy"));
            assertThat(health.path("reasons").toString()).doesNotContain("nvidia-smi");
        }
    }

    @Test
    void localHealthListsTheGpusNvidiaSmiPrintsWithTheirFreeMemory() throws IOException {
        Path nvidiaSmi = script("nvidia-smi", """
                [ "$*" = "--query-gpu=name,memory.total,memory.used --format=csv,noheader,nounits" ] || exit 2
                echo 'NVIDIA H100 80GB HBM3, 81559, 1024'
                echo 'NVIDIA L4, 23034, 0'
                """);
        try (var server = ArborServer.start(Map.of("ARBOR_NVIDIA_SMI", nvidiaSmi.toString()))) {
            JsonNode health = server.http().get("/clusters/local/health").json();
            assertThat(health.path("available_resources").path("gpus"))
                    .containsExactly(
                            Json.object().put("name", "NVIDIA H100 80GB HBM3").put("memory_bytes", 80535 * MIB),
                            Json.object().put("name", "NVIDIA L4").put("memory_bytes", 23034 * MIB));
            assertThat(health.path("reasons").toString()).doesNotContain("nvidia-smi");
        }
    }

    @Test
    void aFailingNvidiaSmiDegradesLocalAndSaysWhy() throws IOException {
        Path nvidiaSmi = script("nvidia-smi", """
                echo "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."
                exit 9
                """);
        try (var server = ArborServer.start(Map.of("ARBOR_NVIDIA_SMI", nvidiaSmi.toString()))) {
            JsonNode health = server.http().get("/clusters/local/health").json();
            assertThat(health.path("status").asText()).isIn("degraded", "unhealthy");
            assertThat(health.path("available_resources").path("gpus")).isEmpty();
            assertThat(health.path("reasons").toString())
                    .contains("nvidia-smi failed (exit 9): NVIDIA-SMI has failed because it couldn't communicate");
        }
    }

    @Test
    void aKubernetesClusterIsCheckedStoredAndItsKubeconfigNeverShown() {
        try (var mock = new KubernetesApiMock();
                var server = ArborServer.start(Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1"))) {
            TestServer http = server.http();
            var created = http.post("/clusters", body("gpu-farm", mock.kubeconfig()));
            assertThat(created.status()).as(created.body()).isEqualTo(201);
            JsonNode cluster = created.json();
            String id = cluster.path("id").asText();
            assertThat(id).startsWith("clu_");
            assertThat(created.header("location")).isEqualTo("/clusters/" + id);
            assertThat(cluster.path("type").asText()).isEqualTo("kubernetes");
            assertThat(cluster.path("server").asText()).isEqualTo(mock.url());
            assertThat(cluster.path("context").asText()).isEqualTo("mock");
            assertThat(cluster.path("namespace").asText()).isEqualTo("serving");
            assertThat(cluster.path("kubeconfig_set").asBoolean()).isTrue();
            assertThat(cluster.has("kubeconfig")).isFalse();
            assertThat(http.get("/clusters/" + id).json()).isEqualTo(cluster);
            JsonNode list = http.get("/clusters").json();
            assertThat(list.path("data").findValuesAsText("id")).containsExactly("local", id);
            assertThat(created.body() + list + http.get("/clusters/" + id).body())
                    .doesNotContain(KubernetesApiMock.TOKEN);
            http.post("/clusters", body("gpu-farm", mock.kubeconfig())).assertError(409, "cluster_exists", "name");
            http.post("/clusters", body("local", mock.kubeconfig())).assertError(409, "cluster_exists", "name");
        }
    }

    @Test
    void kubernetesHealthCountsReadyNodesAndSaysWhatDegradesIt() {
        try (var mock = new KubernetesApiMock()
                        .node("gpu-1", Map.of("Ready", "True"), "7500m", "30Gi", 2)
                        .node("cpu-1", Map.of("Ready", "True", "MemoryPressure", "False"), "4", "16Gi", 0)
                        .node("cpu-2", Map.of("Ready", "False"), "4", "16Gi", 0)
                        .node("cpu-3", Map.of("Ready", "True", "DiskPressure", "True"), "2", "8Gi", 0);
                var server = ArborServer.start(Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1"))) {
            TestServer http = server.http();
            String id = http.post("/clusters", body("farm", mock.kubeconfig()))
                    .json()
                    .path("id")
                    .asText();
            JsonNode health = http.get("/clusters/" + id + "/health").json();
            assertThat(health.path("cluster_id").asText()).isEqualTo(id);
            assertThat(health.path("status").asText()).isEqualTo("degraded");
            assertThat(health.path("node_count").asInt()).isEqualTo(4);
            JsonNode resources = health.path("available_resources");
            // the ready nodes' allocatable resources: cpu-2 is not ready and counts nothing
            assertThat(resources.path("cpu").asDouble()).isEqualTo(13.5);
            assertThat(resources.path("memory_bytes").asLong()).isEqualTo((30L + 16 + 8) << 30);
            assertThat(resources.path("gpus"))
                    .containsExactly(
                            Json.object().put("name", "NVIDIA-L4").put("memory_bytes", 23034 * MIB),
                            Json.object().put("name", "NVIDIA-L4").put("memory_bytes", 23034 * MIB));
            assertThat(texts(health.path("reasons")))
                    .containsExactlyInAnyOrder(
                            "node cpu-2 is not ready (KubeletNotReady)",
                            "node cpu-3 reports DiskPressure (KubeletDiskPressure)");
        }
    }

    @Test
    void anApiServerThatIsNotReadyDegradesTheCluster() {
        try (var mock = new KubernetesApiMock()
                        .node("a", Map.of("Ready", "True"), "2", "4Gi", 0)
                        .readiness(500, "[-]etcd failed: reason withheld");
                var server = ArborServer.start(Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1"))) {
            TestServer http = server.http();
            String id = http.post("/clusters", body("slow", mock.kubeconfig()))
                    .json()
                    .path("id")
                    .asText();
            JsonNode health = http.get("/clusters/" + id + "/health").json();
            assertThat(health.path("status").asText()).isEqualTo("degraded");
            assertThat(health.path("node_count").asInt()).isEqualTo(1);
            assertThat(texts(health.path("reasons")))
                    .singleElement()
                    .asString()
                    .startsWith("the API server is not ready: the API server " + mock.url() + " answered 500");
        }
    }

    @Test
    void aClusterWhoseApiServerIsGoneIsUnhealthy() {
        try (var server = ArborServer.start(Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1"))) {
            TestServer http = server.http();
            String id;
            try (var mock = new KubernetesApiMock().node("a", Map.of("Ready", "True"), "2", "4Gi", 0)) {
                id = http.post("/clusters", body("gone", mock.kubeconfig()))
                        .json()
                        .path("id")
                        .asText();
                assertThat(http.get("/clusters/" + id + "/health")
                                .json()
                                .path("status")
                                .asText())
                        .isEqualTo("healthy");
            }
            JsonNode health = http.get("/clusters/" + id + "/health").json();
            assertThat(health.path("status").asText()).isEqualTo("unhealthy");
            assertThat(health.path("node_count").asInt()).isZero();
            assertThat(health.path("available_resources").path("cpu").asDouble())
                    .isZero();
            assertThat(texts(health.path("reasons")))
                    .singleElement()
                    .asString()
                    .endsWith("cannot be reached: the connection was refused");
        }
    }

    /** A kubeconfig refused at creation: what the API server does, the body, and the refusal. */
    record Refusal(
            String what, Function<KubernetesApiMock, String> body, int status, String code, String param, String says) {
        @Override
        public String toString() {
            return what;
        }
    }

    static Stream<Refusal> refusals() {
        return Stream.of(
                new Refusal(
                        "not YAML",
                        mock -> body("x", "clusters: [unclosed"),
                        400,
                        "invalid_kubeconfig",
                        "kubeconfig",
                        "is not YAML"),
                new Refusal(
                        "not a mapping",
                        mock -> body("x", "- just\n- a list\n"),
                        400,
                        "invalid_kubeconfig",
                        "kubeconfig",
                        "must be a kubeconfig document"),
                new Refusal(
                        "no current context",
                        mock -> body("x", mock.kubeconfig().replace("current-context: mock\n", "")),
                        400,
                        "invalid_kubeconfig",
                        "context",
                        "has no current-context"),
                new Refusal(
                        "a context it lacks",
                        mock -> body(Json.object().put("context", "prod"), "x", mock.kubeconfig()),
                        400,
                        "invalid_kubeconfig",
                        "context",
                        "has no context 'prod' (it has: mock)"),
                new Refusal(
                        "a user that runs a command",
                        mock -> body(
                                "x",
                                mock.kubeconfig()
                                        .replace(
                                                "    token: " + KubernetesApiMock.TOKEN,
                                                "    exec:\n      command: /bin/rm\n      apiVersion: v1")),
                        400,
                        "invalid_kubeconfig",
                        "kubeconfig",
                        "has exec, which runs a command on this server"),
                new Refusal(
                        "a certificate read from a file",
                        mock -> body(
                                "x",
                                mock.kubeconfig()
                                        .replace(
                                                "    server: " + mock.url(),
                                                "    server: " + mock.url() + "\n    certificate-authority: /etc/ca")),
                        400,
                        "invalid_kubeconfig",
                        "kubeconfig",
                        "has certificate-authority, which names a file of this server"),
                new Refusal(
                        "a server that is not a URL",
                        mock -> body(
                                "x", KubernetesApiMock.kubeconfig("ftp://cluster.example", KubernetesApiMock.TOKEN)),
                        400,
                        "invalid_kubeconfig",
                        "kubeconfig",
                        "not an http or https URL: 'ftp://cluster.example'"),
                new Refusal(
                        "a server the outbound policy refuses",
                        mock -> body(
                                "x", KubernetesApiMock.kubeconfig("https://10.255.0.1:6443", KubernetesApiMock.TOKEN)),
                        400,
                        "invalid_field",
                        "kubeconfig",
                        "10.255.0.1, a loopback, private or internal address"),
                new Refusal(
                        "a server nobody answers at",
                        mock -> body(
                                "x",
                                KubernetesApiMock.kubeconfig(
                                        "http://127.0.0.1:" + closedPort(), KubernetesApiMock.TOKEN)),
                        400,
                        "cluster_unreachable",
                        "kubeconfig",
                        "cannot be reached: the connection was refused"),
                new Refusal(
                        "credentials the API server rejects (401)",
                        mock -> body(
                                "x",
                                mock.answer("/api/v1/nodes?limit=1", 401, "Unauthorized")
                                        .kubeconfig()),
                        400,
                        "cluster_unauthorized",
                        "kubeconfig",
                        "does not accept the kubeconfig's credentials (401)"),
                new Refusal(
                        "a user that may not list nodes (403)",
                        mock -> body(
                                "x",
                                mock.answer(
                                                "/api/v1/nodes?limit=1",
                                                403,
                                                "nodes is forbidden: User \"arbor\" cannot list")
                                        .kubeconfig()),
                        400,
                        "cluster_forbidden",
                        "kubeconfig",
                        "does not let the kubeconfig's user list nodes (403)"),
                new Refusal(
                        "no kubeconfig", mock -> "{\"name\": \"x\"}", 400, "missing_field", "kubeconfig", "kubeconfig"),
                new Refusal(
                        "a namespace Kubernetes would refuse",
                        mock -> body(Json.object().put("namespace", "Not_A_Label"), "x", mock.kubeconfig()),
                        400,
                        "invalid_field",
                        "namespace",
                        "must be a Kubernetes namespace"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void aKubeconfigThatCannotServeIsRefusedAndNothingStored(Refusal refusal) {
        try (var mock = new KubernetesApiMock().node("a", Map.of("Ready", "True"), "2", "4Gi", 0)) {
            TestServer http = refusing.http();
            JsonNode error = http.post("/clusters", refusal.body().apply(mock))
                    .assertError(refusal.status(), refusal.code(), refusal.param());
            assertThat(error.path("message").asText()).contains(refusal.says()).doesNotContain(KubernetesApiMock.TOKEN);
            assertThat(http.get("/clusters").json().path("data")).hasSize(1);
        }
    }

    @Test
    void changesAreCheckedAgainAndARefusedChangeChangesNothing() {
        try (var mock = new KubernetesApiMock().node("a", Map.of("Ready", "True"), "2", "4Gi", 0);
                var other = new KubernetesApiMock().node("b", Map.of("Ready", "True"), "8", "32Gi", 0);
                var server = ArborServer.start(Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1"))) {
            TestServer http = server.http();
            String id = http.post("/clusters", body("first", mock.kubeconfig()))
                    .json()
                    .path("id")
                    .asText();
            http.post("/clusters", body("second", other.kubeconfig())).json();
            JsonNode renamed = http.patch("/clusters/" + id, "{\"name\": \"renamed\", \"namespace\": \"models\"}")
                    .json();
            assertThat(renamed.path("name").asText()).isEqualTo("renamed");
            assertThat(renamed.path("namespace").asText()).isEqualTo("models");

            http.patch("/clusters/" + id, "{\"name\": \"second\"}").assertError(409, "cluster_exists", "name");
            http.patch(
                            "/clusters/" + id,
                            body(
                                    "renamed",
                                    KubernetesApiMock.kubeconfig(
                                            "http://127.0.0.1:" + closedPort(), KubernetesApiMock.TOKEN)))
                    .assertError(400, "cluster_unreachable", "kubeconfig");
            http.patch("/clusters/" + id, "{\"context\": \"prod\"}").assertError(400, "invalid_kubeconfig", "context");
            assertThat(http.get("/clusters/" + id).json()).isEqualTo(renamed);

            JsonNode moved = http.patch("/clusters/" + id, body("renamed", other.kubeconfig()))
                    .json();
            assertThat(moved.path("server").asText()).isEqualTo(other.url());
            assertThat(moved.path("namespace").asText()).isEqualTo("models");
            assertThat(http.get("/clusters/" + id + "/health")
                            .json()
                            .path("available_resources")
                            .path("cpu")
                            .asDouble())
                    .isEqualTo(8);
            http.patch("/clusters/clu_none", "{}").assertError(404, "cluster_not_found", "cluster_id");
        }
    }

    @Test
    void aKubeconfigProxyIsRefusedAndNeverCalled() throws IOException {
        try (var mock = new KubernetesApiMock().node("a", Map.of("Ready", "True"), "2", "4Gi", 0);
                var proxy = new HttpReceiver()) {
            String kubeconfig = mock.kubeconfig()
                    .replace(
                            "    server: " + mock.url(),
                            "    server: " + mock.url() + "\n    proxy-url: " + proxy.url(""));
            JsonNode error = refusing.http()
                    .post("/clusters", body("proxied", kubeconfig))
                    .assertError(400, "invalid_kubeconfig", "kubeconfig");
            assertThat(error.path("message").asText())
                    .contains("cluster 'mock' has proxy-url, which would send the cluster's credentials through another"
                            + " server");
            assertThat(proxy.received()).isEmpty();
            assertThat(refusing.http().get("/clusters").json().path("data")).hasSize(1);
        }
    }

    @Test
    void anApiServerRedirectIsNotFollowedAndTheHealthSaysSo() throws IOException {
        try (var mock = new KubernetesApiMock().node("a", Map.of("Ready", "True"), "2", "4Gi", 0);
                var elsewhere = new HttpReceiver();
                // only the API server's own port may be called: the receiver's port stands for a refused address
                var server = ArborServer.start(Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1:" + mock.port()))) {
            TestServer http = server.http();
            String id = http.post("/clusters", body("moving", mock.kubeconfig()))
                    .json()
                    .path("id")
                    .asText();
            mock.redirect("/readyz", elsewhere.url("/latest/meta-data/"))
                    .redirect("/api/v1/nodes", elsewhere.url("/latest/meta-data/"));
            JsonNode health = http.get("/clusters/" + id + "/health").json();
            assertThat(health.path("status").asText()).isEqualTo("unhealthy");
            assertThat(texts(health.path("reasons")))
                    .singleElement()
                    .asString()
                    .isEqualTo("the nodes cannot be listed: the API server " + mock.url()
                            + " answered 302, a redirect: Arbor calls only the API server the kubeconfig names and"
                            + " follows no redirect");
            assertThat(elsewhere.received()).isEmpty();
        }
    }

    @Test
    void aDeletedClusterIsGone() {
        try (var mock = new KubernetesApiMock();
                var server = ArborServer.start(Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1"))) {
            TestServer http = server.http();
            String id = http.post("/clusters", body("brief", mock.kubeconfig()))
                    .json()
                    .path("id")
                    .asText();
            JsonNode deleted = http.delete("/clusters/" + id).json();
            assertThat(deleted.path("object").asText()).isEqualTo("cluster.deleted");
            assertThat(deleted.path("deleted").asBoolean()).isTrue();
            http.get("/clusters/" + id).assertError(404, "cluster_not_found", "cluster_id");
            http.delete("/clusters/" + id).assertError(404, "cluster_not_found", "cluster_id");
            assertThat(http.get("/clusters").json().path("data")).hasSize(1);
        }
    }

    @Test
    void membersReadClustersAndTheirHealthButOnlyAdminsChangeThem() {
        String admin = "arb_clusters_admin";
        try (var mock = new KubernetesApiMock().node("a", Map.of("Ready", "True"), "2", "4Gi", 0);
                var server =
                        ArborServer.start(Map.of("ARBOR_ADMIN_TOKEN", admin, "ARBOR_OUTBOUND_ALLOW", "127.0.0.1"))) {
            TestServer http = server.http();
            var fixture = new AdminFixture(http, admin);
            String id = fixture.create("/clusters", body("shared", mock.kubeconfig()));
            String project = fixture.create("/projects", "{\"name\": \"team\"}");
            String[] member = {
                "Authorization",
                "Bearer " + fixture.memberToken(project).path("token").asText()
            };
            assertThat(http.get("/clusters", member).json().path("data").findValuesAsText("id"))
                    .containsExactly("local", id);
            assertThat(http.get("/clusters/" + id, member).status()).isEqualTo(200);
            assertThat(http.get("/clusters/" + id + "/health", member)
                            .json()
                            .path("status")
                            .asText())
                    .isEqualTo("healthy");
            http.post("/clusters", body("mine", mock.kubeconfig()), member).assertError(403, "admin_required", null);
            http.patch("/clusters/" + id, "{\"name\": \"mine\"}", member).assertError(403, "admin_required", null);
            http.delete("/clusters/" + id, member).assertError(403, "admin_required", null);
            assertThat(fixture.admin("GET", "/clusters/" + id, null)
                            .path("name")
                            .asText())
                    .isEqualTo("shared");
        }
    }

    static String body(String name, String kubeconfig) {
        return body(Json.object(), name, kubeconfig);
    }

    static String body(ObjectNode extra, String name, String kubeconfig) {
        return extra.put("name", name).put("kubeconfig", kubeconfig).toString();
    }

    static List<String> texts(JsonNode array) {
        return Json.mapper()
                .convertValue(array, Json.mapper().getTypeFactory().constructCollectionType(List.class, String.class));
    }

    /** A port nothing listens on (it did a moment ago). */
    static int closedPort() {
        try (var socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private Path script(String name, String body) throws IOException {
        Path script = scripts.resolve(name);
        Files.writeString(script, "#!/bin/sh\n" + body);
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        return script;
    }
}
