package dev.arbor.models.workers;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.models.engines.Engine;
import dev.arbor.models.engines.ReplicaSet;
import dev.arbor.models.engines.Scoring;
import dev.arbor.platform.json.Json;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The worker process, {@code arbor.jar worker --model ID [--replica NAME] --engine E [--option k=v ...]}: loads one
 * model, then answers requests on a Unix socket ({@link WorkerWire}, {@link WorkerProtocol}): scoring, and embedding
 * or generation where the engine does them. It tells the server {@code ready <socket path>} or
 * {@code failed <why>} on its first line of output, and stops when the server closes its standard input, so it
 * never outlives the server.
 */
public final class Worker {
    public static final String READY = "ready ";
    public static final String FAILED = "failed ";
    /** Where a remote model's key reaches the worker: its environment, which other users cannot read. */
    public static final String API_KEY_ENV = "ARBOR_WORKER_API_KEY";

    private static final int WARM_UP_MESSAGES = 5_000;

    private final Engine engine;
    private final String engineName;

    private Worker(Engine engine, String engineName) {
        this.engine = engine;
        this.engineName = engineName;
    }

    public static void main(List<String> args) {
        PrintStream out = System.out;
        String engineName = null;
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i + 1 < args.size(); i += 2) {
            switch (args.get(i)) {
                case "--model", "--replica" -> {
                    // only named so that a process list shows which model (and replica) a worker holds
                }
                case "--engine" -> engineName = args.get(i + 1);
                case "--option" -> {
                    String[] pair = args.get(i + 1).split("=", 2);
                    options.put(pair[0], pair.length == 2 ? pair[1] : "");
                }
                default -> {
                    out.println(FAILED + "unknown worker argument " + args.get(i));
                    System.exit(2);
                }
            }
        }
        if (engineName == null) {
            out.println(FAILED + "no --engine argument");
            System.exit(2);
            return;
        }
        Optional.ofNullable(System.getenv(API_KEY_ENV)).ifPresent(key -> options.put("api_key", key));
        watchParent();
        Engine engine;
        try {
            engine = Engine.load(engineName, options);
        } catch (Exception | OutOfMemoryError e) {
            out.println(FAILED + oneLine(e));
            out.flush();
            System.exit(3);
            return;
        }
        warmUpMessages(engine);
        try {
            Path socket = new Worker(engine, engineName).serve();
            out.println(READY + socket);
            out.flush();
        } catch (IOException e) {
            out.println(FAILED + "cannot listen on a Unix socket: " + oneLine(e));
            System.exit(4);
        }
    }

    /**
     * Listens on a Unix socket in a folder of its own that only this user may enter: other users of the machine
     * cannot reach the model, as they could a loopback port. Each connection gets a thread that reads a request,
     * answers it and waits for the next.
     */
    private Path serve() throws IOException {
        Path folder = privateFolder();
        Path socket = folder.resolve("w.sock");
        var server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket), 2 * WorkerLink.MAX_CONNECTIONS);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                Files.deleteIfExists(socket);
                Files.deleteIfExists(folder);
            } catch (IOException ignored) {
                // the server removes them too once this process is gone
            }
        }));
        // not a daemon: this thread keeps the process alive until the server closes our standard input
        Thread.ofPlatform().name("arbor-worker-accept").start(() -> {
            try {
                while (true) {
                    SocketChannel connection = server.accept();
                    Thread.ofPlatform().daemon().name("arbor-worker-answer").start(() -> answer(connection));
                }
            } catch (IOException e) {
                System.err.println("the worker stopped accepting connections: " + oneLine(e));
                System.exit(5);
            }
        });
        return socket;
    }

    private static Path privateFolder() throws IOException {
        Path parent = socketParent();
        try {
            return Files.createTempDirectory(
                    parent,
                    "arbor-worker-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (UnsupportedOperationException e) { // Windows: the temp directory is the user's own already
            return Files.createTempDirectory(parent, "arbor-worker-");
        }
    }

    /**
     * The temporary directory, unless its path leaves no room for the socket's (a socket's path holds 104 bytes on
     * macOS, 108 on Linux, and {@code /arbor-worker-<number>/w.sock} takes 40 of them): then {@code /tmp}.
     */
    private static Path socketParent() {
        Path temporary = Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath();
        Path system = Path.of("/tmp");
        boolean roomy = temporary.toString().getBytes(StandardCharsets.UTF_8).length + 40 <= 104;
        return roomy || !Files.isDirectory(system) ? temporary : system;
    }

    private void answer(SocketChannel connection) {
        try (connection) {
            while (true) {
                byte[] message = WorkerWire.read(connection);
                Map<String, Object> reply = reply(message, delta -> {
                    try {
                        WorkerWire.write(connection, Json.write(Map.of("delta", delta)));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e); // the server went: the generation stops here
                    }
                });
                WorkerWire.write(connection, Json.write(reply));
            }
        } catch (IOException | UncheckedIOException e) {
            // the server closed this connection (or gave up waiting on it)
        }
    }

    /** The last frame of the reply to a message; a generation sends its text to {@code deltas} before it. */
    private Map<String, Object> reply(byte[] message, Consumer<String> deltas) {
        JsonNode json;
        try {
            json = Json.read(message);
        } catch (RuntimeException e) {
            return Map.of("outcome", "refused", "error", "the request is not JSON: " + oneLine(e));
        }
        String wire = json.path("kind").asText(WorkerProtocol.Kind.SCORE.wire());
        Optional<WorkerProtocol.Kind> kind = WorkerProtocol.Kind.of(wire);
        if (kind.isEmpty()) {
            return unsupported("a worker answers score, embed and generate, not " + wire);
        }
        return switch (kind.get()) {
            case SCORE -> score(json);
            case EMBED ->
                engine instanceof Engine.Embedder embedder
                        ? embed(embedder, json)
                        : unsupported("engine " + engineName + " does not embed");
            case GENERATE ->
                engine instanceof Engine.Generator generator
                        ? generate(generator, json, deltas)
                        : unsupported("engine " + engineName + " does not generate text");
        };
    }

    private static Map<String, Object> unsupported(String why) {
        return Map.of("outcome", "unsupported", "error", why);
    }

    /** Runs the engine: at once when it answers concurrently, else one call at a time. */
    private <T> Map<String, Object> run(Callable<T> call, Function<T, Map<String, Object>> answered) {
        try {
            T result;
            if (engine.concurrent()) {
                result = call.call();
            } else {
                synchronized (engine) { // one answer at a time: this engine holds state that is not shared safely
                    result = call.call();
                }
            }
            return answered.apply(result);
        } catch (IllegalArgumentException e) {
            return Map.of("outcome", "refused", "error", oneLine(e));
        } catch (TimeoutException e) {
            // the server's own wait may notice later than this process when it was held up, so say it was a wait
            return Map.of("outcome", "timed_out", "error", oneLine(e));
        } catch (Exception e) {
            return Map.of("outcome", "failed", "error", oneLine(e));
        }
    }

    /** A reply: {@code answered} with probabilities, {@code refused} (the input), or {@code failed} (the engine). */
    private Map<String, Object> score(JsonNode json) {
        Scoring.Request request;
        try {
            request = parse(json);
        } catch (RuntimeException e) {
            return Map.of("outcome", "refused", "error", "the request is not a scoring request: " + oneLine(e));
        }
        List<String> refused = refusals(request);
        if (!refused.isEmpty()) {
            return Map.of("outcome", "refused", "error", String.join("; ", refused));
        }
        return run(() -> engine.score(request), Worker::answered);
    }

    private Map<String, Object> embed(Engine.Embedder embedder, JsonNode json) {
        Optional<List<String>> texts = texts(json);
        if (texts.isEmpty()) {
            return Map.of("outcome", "refused", "error", "inputs must be a non-empty list of texts");
        }
        // the server's wait, from when the request came: past it the server has closed the connection, and the
        // rest of the inputs would be embedded for no one
        long received = System.nanoTime();
        long patience = json.path("patience_ms").asLong(Long.MAX_VALUE / 1_000_000);
        BooleanSupplier givenUp = () -> System.nanoTime() - received > patience * 1_000_000;
        return run(() -> embedder.embed(texts.get(), givenUp), Worker::embedded);
    }

    /** The texts of an embed request; empty unless {@code inputs} is a non-empty list of texts. */
    private static Optional<List<String>> texts(JsonNode json) {
        JsonNode inputs = json.path("inputs");
        if (!inputs.isArray() || inputs.isEmpty()) {
            return Optional.empty();
        }
        var texts = new ArrayList<String>(inputs.size());
        for (JsonNode input : inputs) {
            if (!input.isTextual()) {
                return Optional.empty();
            }
            texts.add(input.textValue());
        }
        return Optional.of(texts);
    }

    private static Map<String, Object> embedded(ReplicaSet.Embeddings embeddings) {
        return Map.of(
                "outcome",
                "answered",
                "vectors",
                embeddings.vectors().stream().map(WorkerProtocol::vector).toList(),
                "usage",
                Map.of("input_tokens", embeddings.inputTokens()));
    }

    private Map<String, Object> generate(Engine.Generator generator, JsonNode json, Consumer<String> deltas) {
        ReplicaSet.GenerationRequest request;
        try {
            var messages = new ArrayList<ReplicaSet.Message>();
            for (JsonNode message : json.path("messages")) {
                messages.add(new ReplicaSet.Message(
                        message.path("role").asText(), message.path("content").asText()));
            }
            var stop = new ArrayList<String>();
            json.path("stop").forEach(s -> stop.add(s.asText()));
            request = new ReplicaSet.GenerationRequest(
                    messages,
                    json.path("max_tokens").asInt(0),
                    json.path("temperature").asDouble(1),
                    json.path("top_p").asDouble(1),
                    stop,
                    json.hasNonNull("seed") ? Optional.of(json.path("seed").asLong()) : Optional.empty());
        } catch (RuntimeException e) {
            return Map.of("outcome", "refused", "error", "the request is not a generation request: " + oneLine(e));
        }
        return run(
                () -> generator.generate(request, deltas),
                generation -> Map.of(
                        "outcome",
                        "answered",
                        "text",
                        generation.text(),
                        "finish_reason",
                        generation.finishReason(),
                        "usage",
                        Map.of(
                                "prompt_tokens",
                                generation.promptTokens(),
                                "completion_tokens",
                                generation.completionTokens())));
    }

    private static Scoring.Request decode(byte[] message) {
        return parse(Json.read(message));
    }

    private static Map<String, Object> answered(Scoring.Answer answer) {
        return Map.of(
                "outcome",
                "answered",
                "probabilities",
                answer.probabilities(),
                "usage",
                Map.of("input_tokens", answer.inputTokens()));
    }

    /**
     * Runs the reading and writing of messages until the JIT has compiled them: scoring's, and embedding's where the
     * engine embeds. A worker answers a few hundred requests a second at most, so without this its first minute of
     * answers would pay for cold JSON code (measured: up to a millisecond a request, against 0.1 ms once compiled).
     */
    private static void warmUpMessages(Engine engine) {
        var options = new ArrayList<Scoring.Option>();
        var probabilities = new ArrayList<Double>();
        for (int i = 0; i < 20; i++) {
            options.add(new Scoring.Option("option_" + i, "Option " + i, "what option " + i + " stands for"));
            probabilities.add(0.05);
        }
        var question = new Scoring.Question("warm_up", Scoring.Primitive.CHOICE.wire(), "Which option fits?", options);
        var answer = new Scoring.Answer(Map.of("warm_up", probabilities), 20);
        // a vector of the bundled model's size, its values as varied as an embedding's
        float[] vector = new float[384];
        for (int d = 0; d < vector.length; d++) {
            vector[d] = (float) Math.sin(d) / 20;
        }
        var embeddings = new ReplicaSet.Embeddings(List.of(vector), 20);
        boolean embeds = engine instanceof Engine.Embedder;
        for (int i = 0; i < WARM_UP_MESSAGES; i++) {
            String text = "A message to warm up with, number " + i + ".";
            byte[] message = Json.write(Map.of("state", text, "media", List.of(), "questions", List.of(question)));
            if (refusals(decode(message)).isEmpty()) {
                Json.write(answered(answer));
            }
            if (embeds && texts(Json.read(WorkerProtocol.embed(List.of(text)))).isPresent()) {
                Json.write(embedded(embeddings));
            }
        }
    }

    /** The worker checks again what the server checked: engines answer only primitive questions with options. */
    private static List<String> refusals(Scoring.Request request) {
        var refused = new ArrayList<String>();
        for (Scoring.Question question : request.questions()) {
            if (!Scoring.Primitive.wires().contains(question.type())) {
                refused.add("question " + question.key() + " has type " + question.type()
                        + "; engines answer choice, score and noul");
            } else if (question.options().isEmpty()) {
                refused.add("question " + question.key() + " has no options");
            }
        }
        if (request.questions().isEmpty()) {
            refused.add("there are no questions");
        }
        return refused;
    }

    static Scoring.Request parse(JsonNode json) {
        var questions = new ArrayList<Scoring.Question>();
        for (JsonNode question : json.path("questions")) {
            var options = new ArrayList<Scoring.Option>();
            for (JsonNode option : question.path("options")) {
                options.add(new Scoring.Option(
                        option.path("key").asText(),
                        option.path("label").asText(),
                        option.path("description").isNull()
                                ? null
                                : option.path("description").asText(null)));
            }
            questions.add(new Scoring.Question(
                    question.path("key").asText(),
                    question.path("type").asText(),
                    question.path("instructions").asText(),
                    options));
        }
        var media = new ArrayList<String>();
        json.path("media").forEach(m -> media.add(m.asText()));
        return new Scoring.Request(json.path("state").asText(), media, questions);
    }

    /** Ends this process when the server that started it goes away (its end of our standard input closes). */
    private static void watchParent() {
        Thread.ofPlatform().daemon().name("arbor-worker-parent").start(() -> {
            try {
                while (System.in.read() != -1) {
                    // nothing is sent; we only wait for the end
                }
            } catch (IOException ignored) {
                // the pipe broke: the server is gone
            }
            System.exit(0);
        });
    }

    private static String oneLine(Throwable e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return message.replace('\n', ' ');
    }
}
