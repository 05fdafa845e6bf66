package dev.arbor.models;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.models.engines.CausalLmEngine;
import dev.arbor.models.engines.ClassifierEngine;
import dev.arbor.models.engines.EngineKind;
import dev.arbor.models.engines.Scoring;
import dev.arbor.models.runtime.ModelRuntime;
import dev.arbor.platform.errors.Warning;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.outbound.OutboundPolicy;
import dev.arbor.platform.references.ReferenceGuard;
import dev.arbor.platform.references.Referrers;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What may be done to the registry's models, by the admin routes and by pipeline steps alike: add (downloads start
 * at once), delete, and measure one.
 */
public final class ModelOperations {
    /** Providers known by name; any other provider is the URL of an OpenAI-compatible API. */
    private static final Map<String, String> PROVIDERS = Map.of(
            "openai", "https://api.openai.com/v1",
            "mistral", "https://api.mistral.ai/v1",
            "groq", "https://api.groq.com/openai/v1",
            "together", "https://api.together.xyz/v1",
            "fireworks", "https://api.fireworks.ai/inference/v1",
            "deepseek", "https://api.deepseek.com/v1",
            "openrouter", "https://openrouter.ai/api/v1");

    /** The API URL of a provider known by name. */
    public static Optional<String> providerUrl(String name) {
        return Optional.ofNullable(PROVIDERS.get(requireNonNull(name, "name").toLowerCase(Locale.ROOT)));
    }

    /** A model just added, with warnings about fields of the request that were not read. */
    public record Added(Model model, List<Warning> warnings, Duration maxWait) {}

    /** Latency percentiles in milliseconds and answers per second, one caller, over {@code calls} answers. */
    public record Benchmark(double latencyP50Millis, double latencyP99Millis, double throughput, int calls) {}

    private final Models models;
    private final ModelRuntime runtime;
    private final Downloads downloads;
    private final OutboundPolicy endpoints;
    private final ReferenceGuard guard;

    /** @param referrers what may use a model (active routers), asked before one is deleted */
    public ModelOperations(
            Models models, ModelRuntime runtime, Downloads downloads, OutboundPolicy endpoints, Referrers referrers) {
        this.guard = new ReferenceGuard(referrers);
        this.models = requireNonNull(models, "models");
        this.runtime = requireNonNull(runtime, "runtime");
        this.downloads = requireNonNull(downloads, "downloads");
        this.endpoints = requireNonNull(endpoints, "endpoints");
    }

    /** Adds a model as {@code POST /models} describes it; its download, if any, runs in the background. */
    public Added add(ObjectNode request) {
        AddModel.Added added = AddModel.read(request, models.testModels(), downloads, endpoints);
        // the hub is asked before anything is registered, so that a wrong repository leaves nothing behind
        var files = added.repository()
                .map(repository -> downloads.plan(
                        repository.name(), repository.revision(), added.model().engine()));
        boolean archive = added.model().source().equals("url");
        long archiveSize =
                archive ? downloads.planArchive(URI.create(added.model().uri())) : 0;
        Model model = models.add(added.model(), added.apiKey());
        if (added.repository().isPresent()) {
            downloads.start(
                    model,
                    added.repository().get().name(),
                    added.repository().get().revision(),
                    files.orElseThrow());
        } else if (archive) {
            downloads.startArchive(
                    model,
                    URI.create(model.uri()),
                    archiveSize,
                    Optional.ofNullable(model.options().get("sha256")));
        }
        return new Added(model, added.warnings(), added.maxWait());
    }

    /**
     * The request a pipeline's Add Model step makes: models from a hub or a URL run on the embedding engine; a local
     * folder runs on the engine its config names: a sequence classifier on the classifier engine, a generative model
     * on the causal-lm engine.
     */
    public static ObjectNode addRequest(String uri, String name, String source) {
        ObjectNode request =
                Json.object().put("model_uri", uri).put("model_name", name).put("model_source", source);
        EngineKind engine = EngineKind.EMBEDDING;
        try {
            Path folder = Path.of(uri.startsWith("file://") ? uri.substring("file://".length()) : uri);
            if (source.equals("local") && ClassifierEngine.classifies(folder)) {
                engine = EngineKind.ONNX_CLASSIFIER;
            } else if (source.equals("local") && CausalLmEngine.generates(folder)) {
                engine = EngineKind.CAUSAL_LM;
            }
        } catch (java.nio.file.InvalidPathException e) {
            // AddModel says what is wrong with the path
        }
        return request.put("engine", engine.wire());
    }

    /** The request of an Add Cloud Model step: a provider by name or API URL, its model id, and the key. */
    public static ObjectNode cloudRequest(String provider, String remoteModel, Optional<String> apiKey) {
        ObjectNode request = Json.object()
                .put("model_uri", PROVIDERS.getOrDefault(provider.toLowerCase(Locale.ROOT), provider))
                .put("model_name", remoteModel)
                .put("model_source", "cloud")
                .put("engine", EngineKind.REMOTE.wire())
                .put("remote_model", remoteModel);
        apiKey.ifPresent(key -> request.put("api_key", key));
        return request;
    }

    /** Waits up to {@code wait} for a model's download; the model as it then is. */
    public Model awaitDownload(String modelId, Duration wait) {
        return downloads.await(modelId, wait);
    }

    public Optional<Model> find(String modelId) {
        return models.find(modelId);
    }

    public List<Model> list() {
        return models.list();
    }

    /**
     * Removes an added model: its download stops, its worker goes, and files it downloaded are deleted. While active
     * routers use it, 409 {@code in_use} unless {@code whenInUse} releases them (they become inactive); the warnings
     * say which were.
     */
    public List<Warning> delete(String modelId, ReferenceGuard.WhenInUse whenInUse) {
        Model model = models.require(modelId, "model_id");
        Models.requireRemovable(model); // before routers are asked: a forced delete must not release them in vain
        List<Warning> warnings = guard.beforeDelete(
                Referrers.Kind.MODEL, Set.of(model.id()), "model '" + model.id() + "'", "model_id", whenInUse);
        models.remove(model);
        downloads.cancel(model.id());
        runtime.eject(model.id());
        if (model.source().equals("model_hub")) {
            downloads.deleteFiles(model.id());
        }
        return warnings;
    }

    /**
     * Measures a model with one caller: one answer to warm it up (loading it if needed), then each prompt as the
     * situation of a yes/no question, over and over until {@code calls} answers.
     */
    public Benchmark benchmark(String modelId, List<String> prompts, int calls) {
        models.require(modelId, "model_id");
        List<String> situations = prompts.isEmpty() ? List.of("The service answers requests slowly today.") : prompts;
        var question = new Scoring.Question(
                "relevant",
                Scoring.Primitive.NOUL.wire(),
                "Does this need attention?",
                List.of(new Scoring.Option("yes", "yes", ""), new Scoring.Option("no", "no", "")));
        runtime.score(modelId, new Scoring.Request(situations.getFirst(), List.of(), List.of(question)));
        var millis = new ArrayList<Double>();
        long began = System.nanoTime();
        for (int i = 0; i < calls; i++) {
            long start = System.nanoTime();
            runtime.score(
                    modelId, new Scoring.Request(situations.get(i % situations.size()), List.of(), List.of(question)));
            millis.add((System.nanoTime() - start) / 1e6);
        }
        double seconds = (System.nanoTime() - began) / 1e9;
        double[] sorted =
                millis.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return new Benchmark(percentile(sorted, 0.50), percentile(sorted, 0.99), calls / seconds, calls);
    }

    private static double percentile(double[] sorted, double p) {
        int index = (int) Math.ceil(p * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }
}
