package dev.arbor.models;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.arbor.platform.http.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The worker process, {@code arbor.jar worker --model ID --engine E [--option k=v ...]}: loads one model, then
 * answers scoring requests on a loopback port. It tells the server {@code ready <port>} or {@code failed <why>} on
 * its first line of output, and stops when the server closes its standard input, so it never outlives the server.
 */
public final class Worker {
    static final String READY = "ready ";
    static final String FAILED = "failed ";
    /** Where a remote model's key reaches the worker: its environment, which other users cannot read. */
    static final String API_KEY_ENV = "ARBOR_WORKER_API_KEY";

    private final Engine engine;
    private final String model;
    private final AtomicLong requests = new AtomicLong();

    private Worker(String model, Engine engine) {
        this.model = model;
        this.engine = engine;
    }

    public static void main(List<String> args) {
        PrintStream out = System.out;
        String model = null;
        String engineName = null;
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i + 1 < args.size(); i += 2) {
            switch (args.get(i)) {
                case "--model" -> model = args.get(i + 1);
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
        try {
            int port = new Worker(model, engine).serve();
            out.println(READY + port);
            out.flush();
        } catch (IOException e) {
            out.println(FAILED + "cannot listen on loopback: " + oneLine(e));
            System.exit(4);
        }
    }

    private int serve() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.createContext("/score", this::score);
        server.createContext("/health", exchange -> reply(exchange, 200, Json.write(Map.of("status", "ready",
                "model", model, "pid", ProcessHandle.current().pid(), "requests", requests.get()))));
        server.createContext("/shutdown", exchange -> {
            reply(exchange, 200, Json.write(Map.of("stopping", true)));
            System.exit(0);
        });
        server.setExecutor(java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
        server.start();
        return server.getAddress().getPort();
    }

    private void score(HttpExchange exchange) throws IOException {
        Scoring.Request request;
        try (InputStream in = exchange.getRequestBody()) {
            request = parse(Json.read(new String(in.readAllBytes(), StandardCharsets.UTF_8)));
        } catch (RuntimeException e) {
            reply(exchange, 422, Json.write(Map.of("error", "the request is not a scoring request: " + oneLine(e))));
            return;
        }
        requests.incrementAndGet();
        List<String> refused = refusals(request);
        if (!refused.isEmpty()) {
            reply(exchange, 422, Json.write(Map.of("error", String.join("; ", refused))));
            return;
        }
        try {
            Scoring.Answer answer;
            if (engine.concurrent()) {
                answer = engine.score(request);
            } else {
                synchronized (engine) { // one answer at a time: this engine holds state that is not shared safely
                    answer = engine.score(request);
                }
            }
            reply(exchange, 200, Json.write(Map.of("probabilities", answer.probabilities(),
                    "usage", Map.of("input_tokens", answer.inputTokens()))));
        } catch (IllegalArgumentException e) {
            reply(exchange, 422, Json.write(Map.of("error", oneLine(e))));
        } catch (Exception e) {
            reply(exchange, 500, Json.write(Map.of("error", oneLine(e))));
        }
    }

    /** The worker checks again what the server checked: engines answer only primitive questions with options. */
    private static List<String> refusals(Scoring.Request request) {
        var refused = new ArrayList<String>();
        for (Scoring.Question question : request.questions()) {
            if (!List.of("choice", "score", "noul").contains(question.type())) {
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
                options.add(new Scoring.Option(option.path("key").asText(), option.path("label").asText(),
                        option.path("description").isNull() ? null : option.path("description").asText(null)));
            }
            questions.add(new Scoring.Question(question.path("key").asText(), question.path("type").asText(),
                    question.path("instructions").asText(), options));
        }
        var media = new ArrayList<String>();
        json.path("media").forEach(m -> media.add(m.asText()));
        return new Scoring.Request(json.path("state").asText(), media, questions);
    }

    private static void reply(HttpExchange exchange, int status, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("content-type", "application/json");
        exchange.sendResponseHeaders(status, body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
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
