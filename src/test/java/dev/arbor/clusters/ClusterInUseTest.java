package dev.arbor.clusters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.arbor.platform.config.StorageSettings;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.outbound.AllowedDestination;
import dev.arbor.platform.outbound.OutboundPolicy;
import dev.arbor.platform.secrets.SecretBox;
import dev.arbor.testing.KubernetesApiMock;
import dev.arbor.testing.TestPostgres;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A cluster deployments run on is not deleted, on each database's migration: the seam the deployments feature fills
 * (until then the server's answer is that none run), given deployments here by hand.
 */
class ClusterInUseTest {
    @TempDir
    Path data;

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void aClusterIsDeletedOnlyOnceNoDeploymentRunsOnIt(String dialect) {
        var storage = new StorageSettings(
                data,
                dialect.equals("postgresql") ? Optional.of(TestPostgres.newDatabaseUrl()) : Optional.empty(),
                Optional.empty());
        Set<String> running = ConcurrentHashMap.newKeySet();
        try (var mock = new KubernetesApiMock();
                var database = Database.open(storage)) {
            var clusters = new Clusters(
                    database,
                    SecretBox.forStorage(storage),
                    new OutboundPolicy(List.of(AllowedDestination.parse("127.0.0.1"))),
                    clusterId -> List.copyOf(running),
                    ClusterSettings.DEFAULT,
                    data,
                    Clock.systemUTC());
            var problems = new Problems();
            Kubeconfig kubeconfig = Kubeconfig.read(mock.kubeconfig(), Optional.empty(), Optional.empty(), problems)
                    .orElseThrow();
            assertThat(problems.list()).isEmpty();
            String id = clusters.add("busy", kubeconfig).id();
            assertThat(clusters.check(id, Clusters.CHECK_TIMEOUT).status()).isEqualTo(ClusterHealth.Status.UNHEALTHY);

            running.add("chat-7b");
            assertThatThrownBy(() -> clusters.remove(id)).isInstanceOfSatisfying(ApiException.class, e -> {
                assertThat(e.code()).isEqualTo(ErrorCode.CLUSTER_IN_USE);
                assertThat(e.status()).isEqualTo(409);
                assertThat(e.problems().getFirst().param()).isEqualTo("cluster_id");
                assertThat(e.problems().getFirst().message()).contains("chat-7b");
            });
            assertThat(clusters.check(id, Clusters.CHECK_TIMEOUT).reasons())
                    .containsExactly("the cluster has no nodes");

            running.clear();
            assertThat(clusters.remove(id)).isEqualTo(id);
            assertThatThrownBy(() -> clusters.check(id, Clusters.CHECK_TIMEOUT))
                    .isInstanceOfSatisfying(
                            ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CLUSTER_NOT_FOUND));
        }
    }
}
