package dev.arbor.clusters;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A kubeconfig an admin gave, checked before any connection: the context used (the one named, else its
 * {@code current-context}), that context's cluster with an http(s) {@code server}, and its user. A kubeconfig that
 * would make this server read one of its own files or run a command (client certificates by path, {@code exec} or
 * {@code auth-provider} plugins) is refused: credentials are embedded ({@code *-data}, {@code token}) or not at all.
 * So is a {@code proxy-url}: the cluster's token would go to the proxy, an address the outbound policy never judged.
 *
 * @param text the kubeconfig as given (a secret: sealed at rest, never logged or shown)
 * @param context the context used
 * @param server the API server's URL
 * @param namespace where deployments go: the one named, else the context's, else {@code default}
 */
record Kubeconfig(String text, String context, URI server, String namespace) {
    static final String FIELD = "kubeconfig";
    static final String CONTEXT_FIELD = "context";

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    /** Fields of a user or a cluster that read a file of this machine or run a command on it, and what to use. */
    private static final Map<String, String> USER_REFUSED = Map.of(
            "exec", "runs a command on this server: use a token or client-certificate-data instead",
            "auth-provider", "runs a provider's login on this server: use a token instead",
            "client-certificate", "names a file of this server: embed the certificate as client-certificate-data",
            "client-key", "names a file of this server: embed the key as client-key-data",
            "tokenFile", "names a file of this server: embed the token as token");

    private static final Map<String, String> CLUSTER_REFUSED = Map.of(
            "certificate-authority",
            "names a file of this server: embed the certificate as certificate-authority-data",
            "proxy-url",
            "would send the cluster's credentials through another server: Arbor calls the API server directly,"
                    + " remove it");

    Kubeconfig {
        requireNonNull(text, "text");
        requireNonNull(context, "context");
        requireNonNull(server, "server");
        requireNonNull(namespace, "namespace");
    }

    /** Without the kubeconfig's text: it holds credentials, and a record's own string would show them. */
    @Override
    public String toString() {
        return "Kubeconfig[context=" + context + ", server=" + server + ", namespace=" + namespace + "]";
    }

    /**
     * Reads and checks {@code text}, adding every problem found to {@code problems} ({@code invalid_kubeconfig} at
     * {@code kubeconfig}, or at {@code context} for a context it lacks); empty when there was one.
     */
    static Optional<Kubeconfig> read(
            String text, Optional<String> context, Optional<String> namespace, Problems problems) {
        JsonNode root;
        try {
            root = YAML.readTree(text);
        } catch (JsonProcessingException e) {
            problems.add(ErrorCode.INVALID_KUBECONFIG, FIELD, "`kubeconfig` is not YAML: " + yamlError(e) + ".");
            return Optional.empty();
        }
        if (root == null || !root.isObject()) {
            problems.add(
                    ErrorCode.INVALID_KUBECONFIG,
                    FIELD,
                    "`kubeconfig` must be a kubeconfig document (a mapping with clusters, contexts and users).");
            return Optional.empty();
        }
        int found = problems.list().size();
        Optional<String> contextName = context.or(() -> text(root, "current-context"));
        if (contextName.isEmpty()) {
            problems.add(
                    ErrorCode.INVALID_KUBECONFIG,
                    CONTEXT_FIELD,
                    "`kubeconfig` has no current-context: name the context to use in `context`.");
            return Optional.empty();
        }
        Optional<JsonNode> contextEntry = entry(root, "contexts", "context", contextName.get());
        if (contextEntry.isEmpty()) {
            problems.add(
                    ErrorCode.INVALID_KUBECONFIG,
                    context.isPresent() ? CONTEXT_FIELD : FIELD,
                    "`kubeconfig` has no context '" + contextName.get() + "' (it has: "
                            + String.join(", ", names(root, "contexts")) + ").");
            return Optional.empty();
        }
        Optional<URI> server = Optional.empty();
        Optional<String> clusterName = text(contextEntry.get(), "cluster");
        Optional<JsonNode> cluster = clusterName.flatMap(name -> entry(root, "clusters", "cluster", name));
        if (cluster.isEmpty()) {
            problems.add(
                    ErrorCode.INVALID_KUBECONFIG,
                    FIELD,
                    "`kubeconfig`'s context '" + contextName.get() + "' names no cluster of its clusters ("
                            + clusterName.map(name -> "'" + name + "'").orElse("none") + ").");
        } else {
            server = server(cluster.get(), clusterName.get(), problems);
            refuse(cluster.get(), CLUSTER_REFUSED, "cluster '" + clusterName.get() + "'", problems);
        }
        Optional<String> userName = text(contextEntry.get(), "user");
        if (userName.isPresent()) {
            Optional<JsonNode> user = entry(root, "users", "user", userName.get());
            if (user.isEmpty()) {
                problems.add(
                        ErrorCode.INVALID_KUBECONFIG,
                        FIELD,
                        "`kubeconfig`'s context '" + contextName.get() + "' names the user '" + userName.get()
                                + "', which its users lack.");
            } else {
                refuse(user.get(), USER_REFUSED, "user '" + userName.get() + "'", problems);
            }
        }
        if (problems.list().size() > found || server.isEmpty()) {
            return Optional.empty();
        }
        var kubeconfig = new Kubeconfig(
                text,
                contextName.get(),
                server.get(),
                namespace.or(() -> text(contextEntry.get(), "namespace")).orElse("default"));
        try {
            kubeconfig.clientConfig(Duration.ofSeconds(1));
        } catch (RuntimeException e) {
            // a part the checks above do not read is of the wrong kind (a list where a mapping belongs)
            problems.add(
                    ErrorCode.INVALID_KUBECONFIG,
                    FIELD,
                    "`kubeconfig` cannot be read as a kubeconfig: " + firstLine(e.getMessage()) + ".");
            return Optional.empty();
        }
        return Optional.of(kubeconfig);
    }

    /**
     * The fabric8 client's settings for this kubeconfig and context: nothing read from this machine's own
     * kubeconfig, service account or environment, and each request given up after {@code timeout}, never retried.
     */
    io.fabric8.kubernetes.client.Config clientConfig(Duration timeout) {
        ObjectNode root;
        try {
            root = (ObjectNode) YAML.readTree(text);
            root.put("current-context", context);
            var config = io.fabric8.kubernetes.client.Config.fromKubeconfig(YAML.writeValueAsString(root));
            config.setNamespace(namespace);
            int millis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
            config.setConnectionTimeout(millis);
            config.setRequestTimeout(millis);
            config.setRequestRetryBackoffLimit(0);
            return config;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a kubeconfig read once no longer reads", e);
        }
    }

    private static Optional<URI> server(JsonNode cluster, String name, Problems problems) {
        Optional<String> server = text(cluster, "server");
        String at = "`kubeconfig`'s cluster '" + name + "' ";
        if (server.isEmpty()) {
            problems.add(ErrorCode.INVALID_KUBECONFIG, FIELD, at + "has no server.");
            return Optional.empty();
        }
        try {
            URI uri = new URI(server.get());
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if ((scheme.equals("http") || scheme.equals("https"))
                    && uri.getHost() != null
                    && !uri.getHost().isEmpty()) {
                return Optional.of(uri);
            }
        } catch (URISyntaxException e) {
            // refused below
        }
        problems.add(
                ErrorCode.INVALID_KUBECONFIG,
                FIELD,
                at + "has a server that is not an http or https URL: '" + server.get() + "'.");
        return Optional.empty();
    }

    private static void refuse(JsonNode entry, Map<String, String> refused, String what, Problems problems) {
        refused.keySet().stream().sorted().forEach(field -> {
            if (entry.hasNonNull(field)) {
                problems.add(
                        ErrorCode.INVALID_KUBECONFIG,
                        FIELD,
                        "`kubeconfig`'s " + what + " has " + field + ", which " + refused.get(field) + ".");
            }
        });
    }

    /** The inner mapping ({@code cluster}, {@code context} or {@code user}) of the named entry of a list. */
    private static Optional<JsonNode> entry(JsonNode root, String list, String inner, String name) {
        for (JsonNode item : root.path(list)) {
            if (item.path("name").asText("").equals(name) && item.path(inner).isObject()) {
                return Optional.of(item.path(inner));
            }
        }
        return Optional.empty();
    }

    private static List<String> names(JsonNode root, String list) {
        var names = new ArrayList<String>();
        root.path(list).forEach(item -> {
            if (item.path("name").isTextual()) {
                names.add(item.path("name").textValue());
            }
        });
        return names.isEmpty() ? List.of("none") : names;
    }

    private static Optional<String> text(JsonNode node, String field) {
        JsonNode value = node.path(field);
        return value.isTextual() && !value.textValue().isBlank() ? Optional.of(value.textValue()) : Optional.empty();
    }

    /** The parser's complaint and where, without the text around it (which may hold a token). */
    private static String yamlError(JsonProcessingException e) {
        JsonLocation location = e.getLocation();
        String where = location == null || location.getLineNr() < 1
                ? ""
                : " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")";
        return firstLine(e.getOriginalMessage()) + where;
    }

    private static String firstLine(@Nullable String message) {
        if (message == null || message.isBlank()) {
            return "no reason given";
        }
        String line = message.strip().lines().findFirst().orElseThrow();
        return line.length() > 200 ? line.substring(0, 200) + "…" : line;
    }
}
