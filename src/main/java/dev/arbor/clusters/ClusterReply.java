package dev.arbor.clusters;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import org.jspecify.annotations.Nullable;

/**
 * A cluster as the API shows it: {@code local} (this machine, with no server, context, namespace or dates) or a
 * Kubernetes cluster of the registry, whose kubeconfig is never shown.
 */
@JsonPropertyOrder({
    "id",
    "object",
    "name",
    "type",
    "server",
    "context",
    "namespace",
    "kubeconfig_set",
    "created_at",
    "updated_at"
})
record ClusterReply(
        String id,
        String name,
        String type,
        @Nullable String server,
        @Nullable String context,
        @Nullable String namespace,
        @JsonProperty("kubeconfig_set") boolean kubeconfigSet,
        @JsonProperty("created_at") @Nullable Long createdAt,
        @JsonProperty("updated_at") @Nullable Long updatedAt) {

    static final ClusterReply LOCAL =
            new ClusterReply(Clusters.LOCAL, Clusters.LOCAL, "local", null, null, null, false, null, null);

    static ClusterReply of(ClusterStore.Stored stored) {
        return new ClusterReply(
                stored.id(),
                stored.name(),
                "kubernetes",
                stored.server().toString(),
                stored.context(),
                stored.namespace(),
                true,
                stored.createdAt() / 1000,
                stored.updatedAt() / 1000);
    }

    @JsonProperty("object")
    String object() {
        return "cluster";
    }
}
