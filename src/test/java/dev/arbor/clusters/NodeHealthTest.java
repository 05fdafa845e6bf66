package dev.arbor.clusters;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** A Kubernetes cluster's status from its nodes: what makes it healthy, degraded or unhealthy, and the reasons. */
class NodeHealthTest {
    record Case(String what, List<Node> nodes, ClusterHealth.Status status, double cpu, List<String> reasons) {
        @Override
        public String toString() {
            return what;
        }
    }

    static Stream<Case> cases() {
        return Stream.of(
                new Case(
                        "every node ready",
                        List.of(node("a", "True", ""), node("b", "True", "")),
                        healthy(),
                        4,
                        List.of()),
                new Case(
                        "one node not ready",
                        List.of(node("a", "True", ""), node("b", "False", "")),
                        ClusterHealth.Status.DEGRADED,
                        2,
                        List.of("node b is not ready (KubeletNotReady: container runtime is down)")),
                new Case(
                        "a ready node under memory pressure",
                        List.of(node("a", "True", "MemoryPressure")),
                        ClusterHealth.Status.DEGRADED,
                        2,
                        List.of("node a reports MemoryPressure (KubeletHasInsufficientMemory)")),
                new Case(
                        "a node with no Ready condition",
                        List.of(node("a", "True", ""), node("b", "", "")),
                        ClusterHealth.Status.DEGRADED,
                        2,
                        List.of("node b is not ready (it reports no Ready condition)")),
                new Case(
                        "a cordoned node (its resources do not count)",
                        List.of(node("a", "True", ""), cordoned(node("b", "True", ""))),
                        healthy(),
                        2,
                        List.of()),
                new Case(
                        "no node ready",
                        List.of(node("a", "False", ""), node("b", "Unknown", "")),
                        ClusterHealth.Status.UNHEALTHY,
                        0,
                        List.of(
                                "node a is not ready (KubeletNotReady: container runtime is down)",
                                "node b is not ready (KubeletNotReady: container runtime is down)",
                                "no node is ready and schedulable")),
                new Case(
                        "no nodes", List.of(), ClusterHealth.Status.UNHEALTHY, 0, List.of("the cluster has no nodes")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void theNodesDecideTheStatus(Case c) {
        ClusterHealth health = KubernetesApi.fromNodes(c.nodes(), ClusterHealth.Status.HEALTHY, List.of());
        assertThat(health.status()).isEqualTo(c.status());
        assertThat(health.nodeCount()).isEqualTo(c.nodes().size());
        assertThat(health.available().cpu()).isEqualTo(c.cpu());
        assertThat(health.reasons()).containsExactlyElementsOf(c.reasons());
    }

    private static ClusterHealth.Status healthy() {
        return ClusterHealth.Status.HEALTHY;
    }

    /** A node allocating 2 CPUs and 8 GiB, Ready as {@code ready} says (none when empty), with one pressure. */
    private static Node node(String name, String ready, String pressure) {
        var builder = new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewStatus()
                .addToAllocatable("cpu", new Quantity("2"))
                .addToAllocatable("memory", new Quantity("8Gi"))
                .endStatus();
        if (!ready.isEmpty()) {
            builder.editStatus()
                    .addNewCondition()
                    .withType("Ready")
                    .withStatus(ready)
                    .withReason("KubeletNotReady")
                    .withMessage("container runtime is down")
                    .endCondition()
                    .endStatus();
        }
        if (!pressure.isEmpty()) {
            builder.editStatus()
                    .addNewCondition()
                    .withType(pressure)
                    .withStatus("True")
                    .withReason("KubeletHasInsufficientMemory")
                    .endCondition()
                    .endStatus();
        }
        return builder.build();
    }

    private static Node cordoned(Node node) {
        return new NodeBuilder(node)
                .withNewSpec()
                .withUnschedulable(true)
                .endSpec()
                .build();
    }
}
