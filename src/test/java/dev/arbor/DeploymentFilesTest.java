package dev.arbor;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HTTPGetAction;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Dockerfile and the Kubernetes manifests in {@code deploy/kubernetes} say what the server really does: every
 * manifest loads with the fabric8 client and applies to its API server mock, and what is read back names routes the
 * real server answers, variables it reads and secrets that exist.
 */
@EnableKubernetesMockClient(crud = true)
class DeploymentFilesTest {
    private static final Path MANIFESTS = Path.of("deploy", "kubernetes");
    private static final Path DOCKERFILE = Path.of("Dockerfile");
    private static final String NAMESPACE = "arbor";

    /** Given by the mock's extension: a client of an API server that keeps what it is sent. */
    KubernetesClient client;

    private Deployment deployment;

    @BeforeEach
    void applyEveryManifest() throws Exception {
        List<Path> files;
        try (Stream<Path> all = Files.list(MANIFESTS)) {
            files = all.filter(file -> file.toString().endsWith(".yaml"))
                    .sorted()
                    .toList();
        }
        assertThat(files).isNotEmpty();
        for (Path file : files) {
            try (InputStream in = Files.newInputStream(file)) {
                assertThat(client.load(in).inNamespace(NAMESPACE).create())
                        .as(file.toString())
                        .isNotEmpty();
            }
        }
        deployment = client.apps()
                .deployments()
                .inNamespace(NAMESPACE)
                .withName("arbor")
                .get();
        assertThat(deployment).as("the Deployment arbor").isNotNull();
    }

    @Test
    void theProbesAskRoutesTheServerAnswersOnTheContainersPort() {
        Container container = container();
        List<Probe> probes = Stream.of(
                        container.getStartupProbe(), container.getLivenessProbe(), container.getReadinessProbe())
                .toList();
        assertThat(probes).doesNotContainNull();
        int containerPort = container.getPorts().getFirst().getContainerPort();
        try (var server = ArborServer.start(Map.of())) {
            for (Probe probe : probes) {
                HTTPGetAction get = probe.getHttpGet();
                assertThat(get.getPort().getIntVal()).isEqualTo(containerPort);
                assertThat(server.http().get(get.getPath()).status())
                        .as(get.getPath())
                        .isEqualTo(200);
            }
        }
    }

    @Test
    void theServiceSendsToTheContainersPortAndSelectsItsPods() {
        Service service =
                client.services().inNamespace(NAMESPACE).withName("arbor").get();

        assertThat(service.getSpec().getPorts().getFirst().getTargetPort().getIntVal())
                .isEqualTo(container().getPorts().getFirst().getContainerPort());
        assertThat(podLabels()).containsAllEntriesOf(service.getSpec().getSelector());
    }

    @Test
    void everyVariableIsOneTheServerReadsAndEveryValueIsAccepted() throws Exception {
        Set<String> read = variablesTheServerReads();
        var env = new HashMap<String, String>();
        for (EnvVar variable : container().getEnv()) {
            assertThat(read).as("a variable the server reads").contains(variable.getName());
            // the secrets' values are placeholders: stand in well-formed ones
            env.put(
                    variable.getName(),
                    variable.getValue() != null ? variable.getValue() : standIn(variable.getName()));
        }
        assertThat(env).containsKeys("ARBOR_DATABASE_URL", "ARBOR_SECRET_KEY", "ARBOR_ADMIN_TOKEN");

        var config = Config.load(env, List.of());

        assertThat(config.storage().databaseUrl())
                .as("replicas share PostgreSQL")
                .isPresent();
        assertThat(container().getVolumeMounts())
                .anySatisfy(mount -> assertThat(Path.of(mount.getMountPath()))
                        .isEqualTo(config.storage().dataDir()))
                .anySatisfy(mount -> assertThat(mount.getMountPath()).isEqualTo("/tmp"));
    }

    @Test
    void everySecretKeyReferencedExists() {
        List<EnvVar> fromSecrets = container().getEnv().stream()
                .filter(variable -> variable.getValueFrom() != null)
                .toList();
        assertThat(fromSecrets).hasSize(3);
        for (EnvVar variable : fromSecrets) {
            var reference = variable.getValueFrom().getSecretKeyRef();
            Secret secret = client.secrets()
                    .inNamespace(NAMESPACE)
                    .withName(reference.getName())
                    .get();
            assertThat(secret).as(reference.getName()).isNotNull();
            var keys = new HashSet<String>();
            if (secret.getData() != null) {
                keys.addAll(secret.getData().keySet());
            }
            if (secret.getStringData() != null) {
                keys.addAll(secret.getStringData().keySet());
            }
            assertThat(keys).as(variable.getName()).contains(reference.getKey());
        }
    }

    @Test
    void podsRunAsTheImagesUserOnAReadOnlyRootWithTwoReplicas() throws Exception {
        PodSpec pod = deployment.getSpec().getTemplate().getSpec();

        assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
        assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(pod.getSecurityContext().getRunAsUser()).isEqualTo(Long.parseLong(dockerfile("USER (\\d+):")));
        assertThat(container().getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(container().getSecurityContext().getAllowPrivilegeEscalation())
                .isFalse();
        assertThat(container().getResources().getLimits()).containsKey("memory");
        assertThat(pod.getVolumes())
                .anySatisfy(volume -> assertThat(volume.getEmptyDir()).isNotNull());
        var claims = pod.getVolumes().stream()
                .filter(volume -> volume.getPersistentVolumeClaim() != null)
                .map(volume -> volume.getPersistentVolumeClaim().getClaimName())
                .toList();
        assertThat(claims).hasSize(1);
        assertThat(client.persistentVolumeClaims()
                        .inNamespace(NAMESPACE)
                        .withName(claims.getFirst())
                        .get())
                .as("the shared data folder's claim")
                .isNotNull();
    }

    @Test
    void theDisruptionBudgetKeepsOneOfTheDeploymentsPods() {
        PodDisruptionBudget budget = client.policy()
                .v1()
                .podDisruptionBudget()
                .inNamespace(NAMESPACE)
                .withName("arbor")
                .get();

        assertThat(budget.getSpec().getMinAvailable().getIntVal()).isEqualTo(1);
        assertThat(budget.getSpec().getSelector().getMatchLabels()).isNotEmpty();
        assertThat(podLabels())
                .containsAllEntriesOf(budget.getSpec().getSelector().getMatchLabels());
        assertThat(deployment.getSpec().getSelector().getMatchLabels())
                .isEqualTo(budget.getSpec().getSelector().getMatchLabels());
    }

    @Test
    void theDockerfilesHealthCheckPortAndVariablesAreReal() throws Exception {
        String port = dockerfile("(?m)^EXPOSE (\\d+)$");
        String path = dockerfile(
                "HEALTHCHECK [^\\n]*\\\\\\n\\s*CMD curl [^\"]*\"http://127\\.0\\.0\\.1:\\$\\{ARBOR_PORT}(/[^\"]*)\"");
        var env = new HashMap<String, String>();
        Matcher variables = Pattern.compile("(?m)^\\s*(?:ENV\\s+)?([A-Z_]+)=(\\S+?)(?: \\\\)?$")
                .matcher(Files.readString(DOCKERFILE, StandardCharsets.UTF_8));
        while (variables.find()) {
            env.put(variables.group(1), variables.group(2));
        }

        assertThat(env).containsEntry("ARBOR_PORT", port).containsKeys("ARBOR_HOST", "ARBOR_DATA");
        assertThat(variablesTheServerReads()).containsAll(env.keySet());
        var config = Config.load(env, List.of());
        assertThat(config.http().host()).isEqualTo("0.0.0.0");
        assertThat(dockerfile("(?m)^VOLUME (.*)$"))
                .contains("\"" + config.storage().dataDir() + "\"", "\"/tmp\"");
        assertThat(Integer.parseInt(dockerfile("(?m)^USER (\\d+):"))).isPositive();
        try (var server = ArborServer.start(Map.of())) {
            assertThat(server.http().get(path).status()).as(path).isEqualTo(200);
        }
    }

    private Container container() {
        List<Container> containers =
                deployment.getSpec().getTemplate().getSpec().getContainers();
        assertThat(containers).hasSize(1);
        return containers.getFirst();
    }

    private Map<String, String> podLabels() {
        return deployment.getSpec().getTemplate().getMetadata().getLabels();
    }

    /** The names the configuration reads: the quoted variable names in {@code Config}'s source. */
    private static Set<String> variablesTheServerReads() throws Exception {
        String source = Files.readString(Path.of("src/main/java/dev/arbor/Config.java"), StandardCharsets.UTF_8);
        var names = new HashSet<String>();
        Matcher quoted = Pattern.compile("\"((?:ARBOR|STUDIO)_[A-Z_]+)\"").matcher(source);
        while (quoted.find()) {
            names.add(quoted.group(1));
        }
        assertThat(names).contains("ARBOR_DATA", "ARBOR_SECRET_KEY");
        return names;
    }

    private static String standIn(String variable) {
        return switch (variable) {
            case "ARBOR_DATABASE_URL" -> "postgresql://arbor:password@postgres:5432/arbor";
            case "ARBOR_SECRET_KEY" -> "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
            default -> "a-long-random-string";
        };
    }

    /** The first group of {@code pattern} in the Dockerfile; the test fails when it is not there. */
    private static String dockerfile(String pattern) throws Exception {
        Matcher matcher = Pattern.compile(pattern).matcher(Files.readString(DOCKERFILE, StandardCharsets.UTF_8));
        assertThat(matcher.find()).as(pattern).isTrue();
        return matcher.group(1);
    }
}
