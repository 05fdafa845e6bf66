package dev.arbor.models.engines;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/** The engines an added model may name, and the files each needs in the model's folder. */
public enum EngineKind {
    EMBEDDING("embedding", List.of(EmbeddingEngine.GRAPHS, List.of(EmbeddingEngine.TOKENIZER))),
    ONNX_CLASSIFIER(
            "onnx-classifier",
            List.of(EmbeddingEngine.GRAPHS, List.of(EmbeddingEngine.TOKENIZER), List.of(ClassifierEngine.CONFIG))),
    /** A generative model in the Hugging Face layout, run by Jlama. */
    CAUSAL_LM(
            "causal-lm",
            List.of(
                    List.of(CausalLmEngine.CONFIG),
                    List.of(CausalLmEngine.TOKENIZER),
                    List.of(CausalLmEngine.WEIGHTS))),
    /** A model behind an OpenAI-compatible endpoint: no files, added from source {@code cloud}. */
    REMOTE("remote", List.of()),
    HASH("hash", List.of());

    private final String wire;
    /** Each needed file as the paths it may have in a folder, the first present taken. */
    private final List<List<String>> files;

    EngineKind(String wire, List<List<String>> files) {
        this.wire = wire;
        this.files = files;
    }

    public String wire() {
        return wire;
    }

    /** What a model of this engine serves: every engine scores; the embedding engine embeds; causal models write. */
    public List<ReplicaSet.Capability> capabilities() {
        return switch (this) {
            case EMBEDDING -> List.of(ReplicaSet.Capability.SCORE, ReplicaSet.Capability.EMBED);
            case CAUSAL_LM -> List.of(ReplicaSet.Capability.SCORE, ReplicaSet.Capability.GENERATE);
            case ONNX_CLASSIFIER, REMOTE, HASH -> List.of(ReplicaSet.Capability.SCORE);
        };
    }

    /**
     * Whether a decision puts only its situation before the model: the embedding engine embeds options once and keeps
     * them, and the test engine hashes the situation; the others read the questions with it every time.
     */
    public boolean readsOnlyTheSituation() {
        return this == EMBEDDING || this == HASH;
    }

    public static Optional<EngineKind> of(String wire) {
        return Arrays.stream(values()).filter(kind -> kind.wire.equals(wire)).findFirst();
    }

    /** The engines a model may be added with: the test engine only where test models are on. */
    public static List<String> available(boolean testModels) {
        return Arrays.stream(values())
                .filter(kind -> kind != HASH || testModels)
                .map(EngineKind::wire)
                .toList();
    }

    public boolean readsFiles() {
        return !files.isEmpty();
    }

    /** The paths of the files this engine reads, chosen among those there are; empty when one is missing. */
    Optional<List<String>> pick(Predicate<String> present) {
        var chosen = new ArrayList<String>();
        for (List<String> paths : files) {
            Optional<String> found = paths.stream().filter(present).findFirst();
            if (found.isEmpty()) {
                return Optional.empty();
            }
            chosen.add(found.get());
        }
        return Optional.of(List.copyOf(chosen));
    }

    public Optional<List<String>> pick(Set<String> paths) {
        return pick(paths::contains);
    }

    public boolean foundIn(Path folder) {
        return pick(path -> Files.isRegularFile(folder.resolve(path))).isPresent();
    }

    /** What a folder must hold, in words. */
    public String needs() {
        var parts = new ArrayList<String>();
        for (List<String> paths : files) {
            parts.add(paths.size() == 1 ? paths.getFirst() : "a graph (" + String.join(", ", paths) + ")");
        }
        return String.join(" and ", parts);
    }
}
