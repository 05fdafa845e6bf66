package dev.arbor.models;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static dev.arbor.platform.http.bodies.BodyField.Presence.REQUIRED;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.models.engines.EngineKind;
import dev.arbor.models.engines.RemoteEngine;
import dev.arbor.models.engines.Scoring;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Warning;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodyReader;
import dev.arbor.platform.http.bodies.BodySpec;
import dev.arbor.platform.outbound.OutboundPolicy;
import dev.arbor.platform.outbound.OutboundRefusedException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads a request to add a model ({@code POST /models}) into a registry entry: the contract's {@code model_uri},
 * {@code model_name} and {@code model_source}, the engine that runs it, and what it can answer (the engine's
 * defaults unless sent). Every problem of the body at once.
 */
final class AddModel {
    private static final Pattern ID = Pattern.compile("[a-z0-9][a-z0-9._-]{0,63}");
    private static final Set<String> MODALITIES = Set.of("text", "image", "audio", "video");
    private static final Pattern SHA256 = Pattern.compile("[0-9a-fA-F]{64}");
    private static final Pattern REPOSITORY = Pattern.compile(
            "([A-Za-z0-9][A-Za-z0-9._-]*(?:/[A-Za-z0-9][A-Za-z0-9._-]*)?)(?:@([A-Za-z0-9][A-Za-z0-9._/-]*))?");

    private static final BodyField.Text URI_FIELD = BodyField.text(REQUIRED, "model_uri", 2048);
    private static final BodyField.Text NAME = BodyField.text(REQUIRED, "model_name", 200);
    private static final BodyField.Choice SOURCE = BodyField.choice(
            REQUIRED,
            "model_source",
            List.of("model_hub", "url", "local", "cloud"),
            "must be model_hub, url, local or cloud");
    private static final BodyField.Text ENGINE = BodyField.text(REQUIRED, "engine", 40);
    private static final BodyField.Text ID_FIELD = BodyField.text(OPTIONAL, "id", 64)
            .matching(ID, "must be 1 to 64 of a-z, 0-9, '.', '_' and '-', starting with a letter or digit");
    private static final BodyField.Texts MODALITIES_FIELD = BodyField.texts(OPTIONAL, "modalities", 4, 10);
    private static final BodyField.Texts TYPES_FIELD = BodyField.texts(OPTIONAL, "types", 3, 10);
    private static final BodyField.Whole MAX_OPTIONS = BodyField.integer(OPTIONAL, "max_options", 2, 100_000);
    private static final BodyField.Whole MAX_QUESTIONS = BodyField.integer(OPTIONAL, "max_questions", 1, 10_000);
    private static final BodyField.Whole CONTEXT_TOKENS = BodyField.integer(OPTIONAL, "context_tokens", 1, 10_000_000);
    private static final BodyField.Whole MAX_WAIT = BodyField.integer(OPTIONAL, "max_wait_seconds", 0, 3_600);
    private static final BodyField.Text REMOTE_MODEL = BodyField.text(OPTIONAL, "remote_model", 200);
    private static final BodyField.Text API_KEY = BodyField.text(OPTIONAL, "api_key", 4096);
    private static final BodyField.Text SHA256_FIELD = BodyField.text(OPTIONAL, "sha256", 64);
    /** A cloud model's own timeouts, under what a router step sets and over the server's (names as the steps'). */
    private static final List<BodyField.Whole> TIMEOUTS = List.of(
            BodyField.integer(OPTIONAL, RemoteEndpoint.CONNECT_TIMEOUT, 1, 600_000),
            BodyField.integer(OPTIONAL, RemoteEndpoint.FIRST_BYTE_TIMEOUT, 1, 600_000),
            BodyField.integer(OPTIONAL, RemoteEndpoint.IDLE_TIMEOUT, 1, 600_000),
            BodyField.integer(OPTIONAL, RemoteEndpoint.TOTAL_TIMEOUT, 1, 3_600_000));
    /** {@code POST /models}. */
    static final BodySpec BODY = BodySpec.of(
            URI_FIELD,
            NAME,
            SOURCE,
            ENGINE,
            ID_FIELD,
            MODALITIES_FIELD,
            TYPES_FIELD,
            MAX_OPTIONS,
            MAX_QUESTIONS,
            CONTEXT_TOKENS,
            MAX_WAIT,
            REMOTE_MODEL,
            API_KEY,
            SHA256_FIELD,
            TIMEOUTS.get(0),
            TIMEOUTS.get(1),
            TIMEOUTS.get(2),
            TIMEOUTS.get(3));

    /** A repository of a model hub, at a revision (a branch, tag or commit). */
    record Repository(String name, String revision) {}

    /**
     * A checked request: the model, the repository to download it from, how long the caller waits for the download
     * ({@code max_wait_seconds}, 0 when not sent), and warnings about unread fields.
     */
    record Added(
            Model model,
            Optional<Repository> repository,
            Duration maxWait,
            List<Warning> warnings,
            Optional<String> apiKey) {}

    private AddModel() {}

    /**
     * @param downloads where a model from a hub goes, and whether downloads are allowed
     * @param endpoints which addresses a remote model's endpoint may have
     */
    static Added read(ObjectNode request, boolean testModels, Downloads downloads, OutboundPolicy endpoints) {
        BodyReader body = BODY.reader(request);
        Optional<String> uri = URI_FIELD.read(body);
        Optional<String> name = NAME.read(body);
        Optional<String> source = SOURCE.read(body);
        Optional<String> engine = ENGINE.read(body);
        Optional<String> id = ID_FIELD.read(body);
        Optional<List<String>> modalities = MODALITIES_FIELD.read(body);
        Optional<List<String>> types = TYPES_FIELD.read(body);
        Optional<Long> maxOptions = MAX_OPTIONS.read(body);
        Optional<Long> maxQuestions = MAX_QUESTIONS.read(body);
        Optional<Long> contextTokens = CONTEXT_TOKENS.read(body);
        Optional<Long> maxWait = MAX_WAIT.read(body);
        Optional<String> remoteModel = REMOTE_MODEL.read(body);
        Optional<String> apiKey = API_KEY.read(body);
        Optional<String> sha256 = SHA256_FIELD.read(body);
        var timeouts = new java.util.LinkedHashMap<String, String>();
        for (BodyField.Whole field : TIMEOUTS) {
            field.read(body).ifPresent(millis -> timeouts.put(field.name(), Long.toString(millis)));
        }
        boolean cloud = source.orElse("").equals("cloud");
        boolean remote = engine.orElse("").equals(EngineKind.REMOTE.wire());
        if (source.isPresent() && engine.isPresent() && cloud != remote) {
            body.reject(
                    "engine",
                    ErrorCode.INVALID_FIELD,
                    cloud
                            ? "must be remote for a model from the cloud"
                            : "is remote, which runs models from source cloud only");
        }
        if (!remote) {
            remoteModel.ifPresent(
                    m -> body.reject("remote_model", ErrorCode.INVALID_FIELD, "is for remote models only"));
            apiKey.ifPresent(k -> body.reject("api_key", ErrorCode.INVALID_FIELD, "is for remote models only"));
            timeouts.keySet()
                    .forEach(field -> body.reject(field, ErrorCode.INVALID_FIELD, "is for remote models only"));
        }
        boolean fromUrl = source.orElse("").equals("url");
        uri.filter(u -> cloud || fromUrl).ifPresent(u -> endpoint(u, body, endpoints));
        sha256.filter(sha -> !fromUrl || !SHA256.matcher(sha).matches())
                .ifPresent(sha -> body.reject(
                        "sha256",
                        ErrorCode.INVALID_FIELD,
                        fromUrl ? "must be 64 hexadecimal digits" : "is for models from a url only"));
        boolean fromHub = source.orElse("").equals("model_hub");
        if (fromHub || fromUrl) {
            downloads.requireAllowed();
        }
        Optional<Repository> repository = uri.filter(u -> fromHub).flatMap(u -> repository(u, body));
        engine.filter(e -> !EngineKind.available(testModels).contains(e))
                .ifPresent(e -> body.reject(
                        "engine",
                        ErrorCode.INVALID_FIELD,
                        "is '" + e + "'; this release runs added models on "
                                + String.join(", ", EngineKind.available(testModels))));
        String modelId = id.or(() -> name.map(AddModel::slug)).orElse("");
        // an id that was sent but refused already has its problem: the name needs no usable id then
        if (!request.hasNonNull("id")
                && name.isPresent()
                && !ID.matcher(modelId).matches()) {
            body.reject("model_name", ErrorCode.INVALID_FIELD, "gives no usable id; send an `id`");
        }
        modalities
                .filter(m -> !MODALITIES.containsAll(m) || !m.contains("text"))
                .ifPresent(m -> body.reject(
                        "modalities",
                        ErrorCode.INVALID_FIELD,
                        "must include text, and only text, image, audio, video"));
        types.filter(t -> !Scoring.Primitive.wires().containsAll(t) || t.isEmpty())
                .ifPresent(t -> body.reject("types", ErrorCode.INVALID_FIELD, "must be among choice, score, noul"));
        Optional<Path> folder =
                uri.filter(u -> source.orElse("").equals("local")).flatMap(u -> folder(u, body, engine.orElse("")));
        List<Warning> warnings = body.finish();
        boolean hash = engine.orElseThrow().equals(EngineKind.HASH.wire());
        Path files = folder.orElseGet(() -> downloads.folder(modelId));
        var facts = new ModelFacts(
                Set.copyOf(modalities.orElse(hash ? List.copyOf(MODALITIES) : List.of("text"))),
                Set.copyOf(types.orElse(List.copyOf(Scoring.Primitive.wires()))),
                maxOptions.orElse(remote ? RemoteEngine.MAX_OPTIONS : 1000L).intValue(),
                maxQuestions.orElse(64L).intValue(),
                contextTokens.orElse(defaultContext(engine.get())).intValue(),
                List.of("Added from " + uri.orElseThrow() + "."));
        var remoteOptions = new java.util.LinkedHashMap<String, String>(timeouts);
        remoteOptions.put("model", remoteModel.orElse(name.orElseThrow()));
        Map<String, String> options = remote
                ? Map.copyOf(remoteOptions)
                : sha256.map(sha -> Map.of("sha256", sha.toLowerCase(Locale.ROOT)))
                        .orElse(Map.of());
        boolean downloaded = !fromHub && !fromUrl;
        return new Added(
                new Model(
                        modelId,
                        name.orElseThrow(),
                        source.orElseThrow(),
                        uri.get(),
                        engine.get(),
                        facts,
                        options,
                        remote ? Optional.empty() : Optional.of(files),
                        downloaded && !remote ? size(files) : 0,
                        downloaded ? "downloaded" : "not_downloaded",
                        Optional.empty(),
                        Optional.empty()),
                repository,
                Duration.ofSeconds(maxWait.orElse(0L)),
                warnings,
                apiKey);
    }

    /** How much of the situation an engine reads unless the caller says otherwise. */
    private static long defaultContext(String engine) {
        return switch (EngineKind.of(engine).orElseThrow()) {
            case EMBEDDING -> 256;
            case ONNX_CLASSIFIER -> 512;
            case CAUSAL_LM -> 2048;
            case REMOTE -> 8192;
            case HASH -> 100_000;
        };
    }

    /** A remote model's endpoint, or a model archive's URL: an http(s) URL the outbound policy lets this server call. */
    private static void endpoint(String uri, BodyReader body, OutboundPolicy endpoints) {
        try {
            endpoints.check(URI.create(uri));
        } catch (IllegalArgumentException e) {
            body.reject(
                    "model_uri",
                    ErrorCode.INVALID_FIELD,
                    "must be the URL of an OpenAI-compatible API, such " + "as https://api.example.com/v1");
        } catch (OutboundRefusedException e) {
            body.reject("model_uri", ErrorCode.INVALID_FIELD, "cannot be called: " + e.getMessage());
        }
    }

    /** The repository of a model added from a hub, read back from its uri. */
    static Repository repository(String uri) {
        var matcher = REPOSITORY.matcher(uri);
        if (!matcher.matches()) {
            throw new IllegalStateException("not a repository: " + uri);
        }
        return new Repository(
                matcher.group(1), Optional.ofNullable(matcher.group(2)).orElse("main"));
    }

    /** {@code owner/name} or {@code owner/name@revision} ({@code main} by default). */
    private static Optional<Repository> repository(String uri, BodyReader body) {
        var matcher = REPOSITORY.matcher(uri);
        if (!matcher.matches()) {
            body.reject(
                    "model_uri",
                    ErrorCode.INVALID_FIELD,
                    "must name a repository of the model hub, as " + "owner/name or owner/name@revision");
            return Optional.empty();
        }
        return Optional.of(repository(uri));
    }

    /** An absolute folder that holds what the engine needs. */
    private static Optional<Path> folder(String uri, BodyReader body, String engine) {
        Path path;
        try {
            path = Path.of(uri.startsWith("file://") ? uri.substring("file://".length()) : uri);
        } catch (InvalidPathException e) {
            body.reject("model_uri", ErrorCode.INVALID_FIELD, "is not a path");
            return Optional.empty();
        }
        if (!path.isAbsolute() || !Files.isDirectory(path) || !Files.isReadable(path)) {
            body.reject(
                    "model_uri",
                    ErrorCode.INVALID_FIELD,
                    "must be the absolute path of a folder this server " + "can read");
            return Optional.empty();
        }
        Optional<EngineKind> kind = EngineKind.of(engine);
        if (kind.isPresent() && !kind.get().foundIn(path)) {
            body.reject(
                    "model_uri",
                    ErrorCode.INVALID_FIELD,
                    "holds no " + engine + " model: it needs " + kind.get().needs());
            return Optional.empty();
        }
        return Optional.of(path.normalize());
    }

    /**
     * The bytes of the files under a folder. A folder in use by other programs (a temporary folder, say) may lose
     * files while they are counted: those count nothing rather than failing the registration.
     */
    private static long size(Path folder) {
        var counter = new SimpleFileVisitor<Path>() {
            long total;

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                if (attributes.isRegularFile()) {
                    total += attributes.size();
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (file.equals(folder)) {
                    throw e;
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path directory, IOException e) {
                return FileVisitResult.CONTINUE;
            }
        };
        try {
            Files.walkFileTree(folder, counter);
            return counter.total;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + folder, e);
        }
    }

    /** An id from a name: lower case, runs of other characters as one '-'. */
    static String slug(String name) {
        String slug =
                name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9._-]+", "-").replaceAll("^[-._]+|-+$", "");
        return slug.length() > 64 ? slug.substring(0, 64) : slug;
    }
}
