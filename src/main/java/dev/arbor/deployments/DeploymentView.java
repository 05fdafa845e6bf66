package dev.arbor.deployments;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every deployment as last read from the database, so that a request naming one is answered from memory. The server
 * reloads it after each change it makes (before the change is answered), and when another server's change moves the
 * deployments' change counter. A reload reads the table whole: deployments are few, and their rows small.
 */
final class DeploymentView {
    private final DeploymentStore store;
    private volatile Index index;

    DeploymentView(DeploymentStore store) {
        this.store = requireNonNull(store, "store");
        this.index = Index.of(store.list(Optional.empty()));
    }

    /**
     * Reads the table again. Serialised, and each reload reads after it holds the lock, so the last one to finish read
     * the latest committed state: a slower reload never puts back what a later one replaced.
     */
    synchronized void reload() {
        index = Index.of(store.list(Optional.empty()));
    }

    /** The deployments called {@code nameOrId} or with that id, by id. */
    List<Deployment> named(String nameOrId) {
        return index.named(requireNonNull(nameOrId, "nameOrId"));
    }

    /** The deployments on a cluster, by name. */
    List<Deployment> onCluster(String clusterId) {
        requireNonNull(clusterId, "clusterId");
        return index.all.stream()
                .filter(deployment -> deployment.clusterId().equals(clusterId))
                .sorted(Comparator.comparing(Deployment::name))
                .toList();
    }

    private record Index(List<Deployment> all, Map<String, Deployment> byId, Map<String, List<Deployment>> byName) {
        static Index of(List<Deployment> deployments) {
            var byId = new HashMap<String, Deployment>();
            var byName = new HashMap<String, List<Deployment>>();
            for (Deployment deployment : deployments) {
                byId.put(deployment.id(), deployment);
                byName.computeIfAbsent(deployment.name(), name -> new ArrayList<>())
                        .add(deployment);
            }
            byName.replaceAll((name, list) ->
                    list.stream().sorted(Comparator.comparing(Deployment::id)).toList());
            return new Index(List.copyOf(deployments), Map.copyOf(byId), Map.copyOf(byName));
        }

        List<Deployment> named(String nameOrId) {
            Deployment withId = byId.get(nameOrId);
            List<Deployment> withName = byName.getOrDefault(nameOrId, List.of());
            if (withId == null) {
                return withName;
            }
            var found = new ArrayList<>(withName);
            if (!found.contains(withId)) {
                found.add(withId);
                found.sort(Comparator.comparing(Deployment::id));
            }
            return List.copyOf(found);
        }
    }
}
