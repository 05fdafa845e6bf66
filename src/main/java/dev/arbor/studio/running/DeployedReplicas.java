package dev.arbor.studio.running;

import static java.util.Objects.requireNonNull;

import dev.arbor.models.engines.ReplicaSet;
import dev.arbor.models.engines.Scoring;
import java.util.List;

/**
 * A deployment's replicas as a decision uses them instead of this server's own worker for the model: they score the
 * questions zero-shot and, when their model embeds, give the situation's embedding that a template version's fitted
 * heads read (the heads were fitted on that same model's embeddings).
 */
public interface DeployedReplicas {
    Scoring.Answer score(Scoring.Request request);

    /** Whether {@link #embed(List)} answers: the replicas' engine embeds. */
    boolean embeds();

    ReplicaSet.Embeddings embed(List<String> inputs);

    /** Only the calls a decision makes of a replica set, which its owner keeps scaling and closing. */
    static DeployedReplicas of(ReplicaSet replicas) {
        requireNonNull(replicas, "replicas");
        return new DeployedReplicas() {
            @Override
            public Scoring.Answer score(Scoring.Request request) {
                return replicas.score(request);
            }

            @Override
            public boolean embeds() {
                return replicas.capabilities().contains(ReplicaSet.Capability.EMBED);
            }

            @Override
            public ReplicaSet.Embeddings embed(List<String> inputs) {
                return replicas.embed(inputs);
            }
        };
    }
}
