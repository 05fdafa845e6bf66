package dev.arbor.models.engines;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Replicas of one registered model serving a deployment on this machine: worker processes of their own (apart from
 * the studio's one worker per model), each with its socket and log, behind one entry point that gives every call to
 * the least busy ready replica. A replica whose process ends is started again; with autoscaling the count moves
 * between the bounds from the calls in flight. The caller owns the set: it runs until {@link #close()}.
 *
 * <p>Calls fail with the models' codes ({@code model_load_failed}, {@code model_crashed}, {@code model_timeout},
 * {@code model_rejected_input}) and, for a call the model cannot serve, {@code model_capability_unsupported}.
 */
public interface ReplicaSet extends AutoCloseable {
    String modelId();

    /** What this model can serve, from its engine: every engine scores; some embed; causal models generate. */
    List<Capability> capabilities();

    /** The replicas asked for now (autoscaling moves it). */
    int desired();

    /** Each replica as it stands, in start order. */
    List<ReplicaState> replicas();

    /** Starts or stops replicas until {@code replicas} run; autoscaling, when on, takes over again from there. */
    void scale(int replicas);

    /** Moves the count between its bounds from the calls in flight; {@link Optional#empty()} turns it off. */
    void autoscale(Optional<Autoscaling> autoscaling);

    Scoring.Answer score(Scoring.Request request);

    /** Embeds within the model's own time to answer. */
    default Embeddings embed(List<String> inputs) {
        return embed(inputs, ChronoUnit.FOREVER.getDuration());
    }

    /**
     * Embeds, giving up ({@code model_timeout}) when no answer came within {@code patience} (or the model's own time to
     * answer, when that is shorter): the replica's connection is closed and its answer dropped.
     */
    Embeddings embed(List<String> inputs, Duration patience);

    /** Generates within the model's own time to answer; see {@link #generate(GenerationRequest, Duration, Consumer)}. */
    default Generation generate(GenerationRequest request, Consumer<String> deltas) {
        return generate(request, ChronoUnit.FOREVER.getDuration(), deltas);
    }

    /**
     * Generates an answer, handing each piece of text to {@code deltas} as it comes (streaming), then the whole. The
     * first piece and each next must come within {@code patience} ({@code model_timeout} otherwise, and the
     * generation stops at its next piece), the whole within the model's own time to answer.
     */
    Generation generate(GenerationRequest request, Duration patience, Consumer<String> deltas);

    /** Stops every replica and the set's housekeeping; calls under way end with {@code model_ejected}. */
    @Override
    void close();

    enum Capability {
        SCORE,
        EMBED,
        GENERATE
    }

    enum ReplicaStatus {
        STARTING,
        READY,
        FAILED,
        STOPPING
    }

    /** Told when a replica changes status (ready, failed, replaced), so a deployment can report progress. */
    @FunctionalInterface
    interface Listener {
        Listener NONE = event -> {};

        void changed(ReplicaState replica);
    }

    /** @param error why it failed, when it did */
    record ReplicaState(int index, long pid, ReplicaStatus status, int inFlight, Optional<String> error) {
        public ReplicaState {
            requireNonNull(status, "status");
            requireNonNull(error, "error");
        }
    }

    /**
     * What each replica's worker process may use: its Java heap ({@code -Xmx}; a model's native memory, ONNX
     * Runtime's, comes on top) and the processors the JVM sizes its thread pools to
     * ({@code -XX:ActiveProcessorCount}; a hint, not a cap). The JVM's defaults where empty.
     */
    record WorkerLimits(Optional<Long> heapBytes, Optional<Integer> processors) {
        public static final WorkerLimits NONE = new WorkerLimits(Optional.empty(), Optional.empty());

        public WorkerLimits {
            requireNonNull(heapBytes, "heapBytes");
            requireNonNull(processors, "processors");
        }

        /** The JVM options that set them. */
        public List<String> jvmOptions() {
            var options = new ArrayList<String>();
            heapBytes.ifPresent(bytes -> options.add("-Xmx" + bytes));
            processors.ifPresent(count -> options.add("-XX:ActiveProcessorCount=" + count));
            return options;
        }
    }

    record Autoscaling(int minReplicas, int maxReplicas, int targetInFlight) {
        public Autoscaling {
            if (minReplicas < 1 || maxReplicas < minReplicas || targetInFlight < 1) {
                throw new IllegalArgumentException("autoscaling needs 1 <= min <= max and a target of at least 1");
            }
        }
    }

    /** One vector per input, in order, and the tokens read. */
    record Embeddings(List<float[]> vectors, int inputTokens) {
        public Embeddings {
            vectors = List.copyOf(vectors);
        }
    }

    /** A chat turn: {@code role} is system, user or assistant. */
    record Message(String role, String content) {
        public Message {
            requireNonNull(role, "role");
            requireNonNull(content, "content");
        }
    }

    /** What to generate from: the conversation and the sampling settings of an OpenAI chat request. */
    record GenerationRequest(
            List<Message> messages,
            int maxTokens,
            double temperature,
            double topP,
            List<String> stop,
            Optional<Long> seed) {
        public GenerationRequest {
            messages = List.copyOf(messages);
            stop = List.copyOf(stop);
            requireNonNull(seed, "seed");
        }
    }

    /** @param finishReason {@code stop} or {@code length}, as OpenAI's API says it */
    record Generation(String text, String finishReason, int promptTokens, int completionTokens) {
        public Generation {
            requireNonNull(text, "text");
            requireNonNull(finishReason, "finishReason");
        }
    }
}
