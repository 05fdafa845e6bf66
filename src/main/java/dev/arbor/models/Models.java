package dev.arbor.models;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.models.engines.EngineKind;
import dev.arbor.models.engines.Scoring;
import dev.arbor.models.runtime.RunnableModel;
import dev.arbor.models.runtime.RunnableModels;
import dev.arbor.models.workers.Worker;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.secrets.SecretBox;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Clock;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one model registry: the models this server knows, what each can run, and where it stands. Other features ask
 * it, never a table of its.
 */
public final class Models implements RunnableModels {
    private static final String CATALOG = "/catalog/models.json";
    private static final List<String> MODALITIES = List.of("text", "image", "audio", "video");

    /** The registry as it stands: built-in models first, then added ones in the order they came. */
    private volatile Map<String, Model> models;

    /** Cloud models' endpoints as {@link #remoteEndpoint} opened them, for the registry as it stands. */
    private volatile Map<String, RemoteEndpoint> endpoints = new ConcurrentHashMap<>();

    /** The catalog's models, as the registry starts from at every reload. */
    private final Map<String, Model> builtIn;

    private final Optional<ModelStore> store;
    private final Optional<SecretBox> secrets;
    private final Clock clock;
    private final boolean testModels;

    /** The catalog alone, for tools and tests that add no models. */
    public Models(boolean testModels) {
        this(testModels, Optional.empty(), Optional.empty(), Clock.systemUTC());
    }

    /** The catalog and the models added to this database, their endpoint keys sealed by {@code secrets}. */
    public Models(boolean testModels, Database database, SecretBox secrets, Clock clock) {
        this(testModels, Optional.of(new ModelStore(database)), Optional.of(secrets), clock);
    }

    /** Reads the catalog; a catalog entry that does not make sense stops the start. */
    private Models(boolean testModels, Optional<ModelStore> store, Optional<SecretBox> secrets, Clock clock) {
        this.testModels = testModels;
        this.store = store;
        this.secrets = secrets;
        this.clock = requireNonNull(clock, "clock");
        var all = new LinkedHashMap<String, Model>();
        for (JsonNode entry : readCatalog()) {
            if (entry.path("test_only").asBoolean() && !testModels) {
                continue;
            }
            Model model = fromCatalog(entry);
            all.put(model.id(), model);
        }
        this.builtIn = Collections.unmodifiableMap(new LinkedHashMap<>(all));
        store.ifPresent(added -> {
            added.stopInterrupted();
            added.all().forEach(model -> all.putIfAbsent(model.id(), model));
        });
        this.models = Collections.unmodifiableMap(all);
    }

    /**
     * Reads the added models again, when another server sharing the database added, removed or changed one: without
     * it a cloud model registered there would be unknown here until a restart. The endpoints opened before are
     * forgotten, so that a changed key or URL is used from the next request.
     */
    public synchronized void reload() {
        if (store.isEmpty()) {
            return;
        }
        var all = new LinkedHashMap<>(builtIn);
        store.get().all().forEach(model -> all.putIfAbsent(model.id(), model));
        replace(all);
    }

    public List<Model> list() {
        return List.copyOf(models.values());
    }

    public Optional<Model> find(String id) {
        return Optional.ofNullable(models.get(id));
    }

    /** The model, or 404 {@code model_not_found} naming the models there are. */
    public Model require(String id, String param) {
        Map<String, Model> now = models;
        return Optional.ofNullable(now.get(id))
                .orElseThrow(() -> ApiException.of(
                        ErrorCode.MODEL_NOT_FOUND,
                        param,
                        "There is no model '" + id + "'; the models are "
                                + (now.isEmpty() ? "none" : String.join(", ", now.keySet())) + "."));
    }

    /**
     * The cloud models added from {@code provider}: a provider known by name (such as openai), or the API URL they
     * were added from.
     */
    public List<Model> ofProvider(String provider) {
        String url = ModelOperations.providerUrl(requireNonNull(provider, "provider"))
                .orElse(provider);
        return models.values().stream()
                .filter(model -> model.source().equals("cloud") && model.uri().equals(url))
                .toList();
    }

    /**
     * The id of {@code provider}'s cloud model that {@code asked} names: its registry id, else the provider's own name
     * for it (the first such model of the registry); empty when none does.
     */
    public Optional<String> providerModel(String provider, String asked) {
        requireNonNull(asked, "asked");
        List<Model> served = ofProvider(provider);
        return served.stream()
                .filter(model -> model.id().equals(asked))
                .findFirst()
                .or(() -> served.stream()
                        .filter(model -> model.options()
                                .getOrDefault("model", model.name())
                                .equals(asked))
                        .findFirst())
                .map(Model::id);
    }

    /**
     * The endpoint of a cloud model (engine {@code remote}), its key opened; empty for any other model or id. Opened
     * once per model, not per call: inference traffic asks for it on every request.
     */
    public Optional<RemoteEndpoint> remoteEndpoint(String id) {
        requireNonNull(id, "id");
        Map<String, RemoteEndpoint> opened = endpoints;
        RemoteEndpoint known = opened.get(id);
        if (known != null) {
            return Optional.of(known);
        }
        Model model = models.get(id);
        if (model == null || !model.engine().equals(EngineKind.REMOTE.wire())) {
            return Optional.empty();
        }
        var endpoint = new RemoteEndpoint(
                model.id(),
                URI.create(model.uri()),
                model.options().getOrDefault("model", model.name()),
                model.apiKey().flatMap(sealedKey -> secrets.map(box -> box.open(sealedKey, keyContext(model.id())))),
                RemoteEndpoint.timeouts(model.options()));
        opened.put(id, endpoint);
        return Optional.of(endpoint);
    }

    /**
     * Adds a model whose files are in place (a local folder) or that needs none (a remote one, with the key of its
     * endpoint, sealed here); 409 {@code model_exists} when the id is taken.
     */
    synchronized Model add(Model unsealed, Optional<String> apiKey) {
        Model model = unsealed.withApiKey(
                apiKey.map(key -> secrets.orElseThrow(() -> new IllegalStateException("this registry keeps no secrets"))
                        .seal(key, keyContext(unsealed.id()))));
        if (models.containsKey(model.id())) {
            throw ApiException.of(
                    ErrorCode.MODEL_EXISTS,
                    "id",
                    "There is a model '" + model.id() + "' already; " + "send another `id`, or delete that one first.");
        }
        store.orElseThrow(() -> new IllegalStateException("this registry keeps no added models"))
                .insert(model, clock.millis());
        var all = new LinkedHashMap<>(models);
        all.put(model.id(), model);
        replace(all);
        return model;
    }

    @Override
    public RunnableModel runnable(String modelId, String param) {
        Model model = require(modelId, param);
        return new RunnableModel(
                model.id(),
                model.engine(),
                model.options(),
                model.path(),
                model.engine().equals(EngineKind.REMOTE.wire()) ? Optional.of(model.uri()) : Optional.empty(),
                model.status(),
                model.error(),
                workerEnvironment(model));
    }

    /** What a model's worker finds in its environment: the opened key of a remote endpoint, never on its command line. */
    private Map<String, String> workerEnvironment(Model model) {
        return model.apiKey()
                .flatMap(sealedKey -> secrets.map(box -> box.open(sealedKey, keyContext(model.id()))))
                .map(key -> Map.of(Worker.API_KEY_ENV, key))
                .orElse(Map.of());
    }

    private static String keyContext(String modelId) {
        return "model " + modelId + " api_key";
    }

    /** 409 {@code model_built_in} for a built-in model: it can be ejected but not deleted. */
    static void requireRemovable(Model model) {
        if (model.builtIn()) {
            throw ApiException.of(
                    ErrorCode.MODEL_BUILT_IN,
                    "model_id",
                    "Model '" + model.id() + "' is built in; " + "it can be ejected but not deleted.");
        }
    }

    /** Removes an added model from the registry (its files stay where they are); built-in ones cannot go. */
    synchronized void remove(Model model) {
        requireRemovable(model);
        store.ifPresent(added -> added.delete(model.id()));
        var all = new LinkedHashMap<>(models);
        all.remove(model.id());
        replace(all);
    }

    /** Records where an added model's download stands. */
    synchronized Model status(Model model, String status, Optional<String> error, long sizeBytes) {
        Model updated = model.withStatus(status, error, sizeBytes);
        store.ifPresent(added -> added.status(model.id(), status, error, sizeBytes));
        if (models.containsKey(model.id())) {
            var all = new LinkedHashMap<>(models);
            all.put(model.id(), updated);
            replace(all);
        }
        return updated;
    }

    /** The registry from now on; the endpoints opened for the one before are forgotten. */
    private void replace(Map<String, Model> all) {
        models = Collections.unmodifiableMap(all);
        endpoints = new ConcurrentHashMap<>();
    }

    /** Whether the deterministic test engine may be used (ARBOR_TEST_MODELS). */
    boolean testModels() {
        return testModels;
    }

    static int modalityOrder(String a, String b) {
        return Integer.compare(MODALITIES.indexOf(a), MODALITIES.indexOf(b));
    }

    private static Model fromCatalog(JsonNode entry) {
        String id = entry.path("id").asText();
        Set<String> modalities = strings(entry.path("modalities"));
        Set<String> types = strings(entry.path("types"));
        if (id.isBlank()
                || !MODALITIES.containsAll(modalities)
                || !modalities.contains("text")
                || !Scoring.Primitive.wires().containsAll(types)
                || types.isEmpty()
                || entry.path("max_options").asInt() < 2
                || entry.path("max_questions").asInt() < 1
                || entry.path("context_tokens").asInt() < 1) {
            throw new IllegalStateException("model catalog entry '" + id + "' is invalid: " + entry);
        }
        var notes = new java.util.ArrayList<String>();
        entry.path("notes").forEach(note -> notes.add(note.asText()));
        var facts = new ModelFacts(
                modalities,
                types,
                entry.path("max_options").asInt(),
                entry.path("max_questions").asInt(),
                entry.path("context_tokens").asInt(),
                notes);
        return new Model(
                id,
                entry.path("name").asText(id),
                "builtin",
                "",
                entry.path("engine").asText(),
                facts,
                formOptions(entry.path("form")),
                Optional.empty(),
                0,
                "downloaded",
                Optional.empty(),
                Optional.empty());
    }

    /**
     * A catalog entry's {@code form} (what its engine needs around the text: the bundled files, a prefix, its tokens,
     * pooling and temperature per primitive question type) as the options its engine is loaded with.
     */
    static Map<String, String> formOptions(JsonNode form) {
        var options = new LinkedHashMap<String, String>();
        form.properties().forEach(field -> {
            if (field.getKey().equals("temperatures")) {
                field.getValue()
                        .properties()
                        .forEach(type -> options.put(
                                "temperature." + type.getKey(), type.getValue().asText()));
            } else {
                options.put(field.getKey(), field.getValue().asText());
            }
        });
        return options;
    }

    private static Set<String> strings(JsonNode array) {
        var values = new HashSet<String>();
        array.forEach(item -> values.add(item.asText()));
        return values;
    }

    private static JsonNode readCatalog() {
        try (InputStream in = requireNonNull(Models.class.getResourceAsStream(CATALOG), CATALOG)) {
            return Json.read(in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
