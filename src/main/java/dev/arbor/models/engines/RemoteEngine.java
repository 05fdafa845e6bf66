package dev.arbor.models.engines;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.json.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Decisions from a language model behind an OpenAI-compatible chat completions endpoint (a cloud provider, vLLM,
 * llama.cpp's server, Ollama), engine {@code remote}. Each question is one request: the options are lettered, the
 * model is asked for one letter, and the log-probabilities of the letters among the first token's most likely
 * alternatives are the options' probabilities. A letter the endpoint does not list gets a tenth of the least likely
 * listed one: the endpoint says only that it is less likely than those.
 */
public final class RemoteEngine implements Engine {
    /** OpenAI lists at most 20 alternatives per token, which bounds the options of a question. */
    public static final int MAX_OPTIONS = 20;

    private static final String LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    private static final String INSTRUCTIONS = "You read a situation and answer a multiple-choice question about "
            + "it. Reply with the letter of the one best option and nothing else.";

    private final HttpClient client;
    private final URI completions;
    private final String model;
    private final Optional<String> apiKey;
    private final Duration timeout;

    private RemoteEngine(URI completions, String model, Optional<String> apiKey, Duration timeout) {
        this.client = HttpClient.newBuilder()
                .connectTimeout(Duration.ofSeconds(10))
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
        this.completions = completions;
        this.model = model;
        this.apiKey = apiKey;
        this.timeout = timeout;
    }

    /**
     * Options {@code url} (the API's base, such as {@code https://api.openai.com/v1}), {@code model} (the endpoint's
     * name for it), {@code api_key} (from the worker's environment, never its command line) and
     * {@code timeout_seconds}. The load asks one question, so that a wrong URL, key or a server without
     * log-probabilities fails the load rather than the first decision.
     */
    static RemoteEngine load(Map<String, String> options) throws IOException, InterruptedException {
        String base = Optional.ofNullable(options.get("url"))
                .orElseThrow(() -> new IOException("a remote model needs the URL of its endpoint"));
        var engine = new RemoteEngine(
                URI.create(base.replaceAll("/+$", "") + "/chat/completions"),
                Optional.ofNullable(options.get("model"))
                        .orElseThrow(() -> new IOException("a remote model needs the endpoint's name for it")),
                Optional.ofNullable(options.get("api_key")).filter(key -> !key.isBlank()),
                Duration.ofSeconds(Long.parseLong(options.getOrDefault("timeout_seconds", "120"))));
        engine.ask(
                "Arbor checks that this model answers.",
                new Scoring.Question(
                        "check",
                        Scoring.Primitive.NOUL.wire(),
                        "Is this a check?",
                        List.of(new Scoring.Option("false", "no"), new Scoring.Option("true", "yes"))));
        return engine;
    }

    @Override
    public boolean concurrent() {
        return true;
    }

    @Override
    public Scoring.Answer score(Scoring.Request request) throws IOException, InterruptedException {
        var probabilities = new LinkedHashMap<String, List<Double>>();
        int tokens = 0;
        for (Scoring.Question question : request.questions()) {
            Asked asked = ask(request.state(), question);
            probabilities.put(question.key(), asked.probabilities());
            tokens = Math.max(tokens, asked.promptTokens());
        }
        return new Scoring.Answer(probabilities, tokens);
    }

    private record Asked(List<Double> probabilities, int promptTokens) {}

    private Asked ask(String state, Scoring.Question question) throws IOException, InterruptedException {
        if (question.options().size() > MAX_OPTIONS) {
            throw new IllegalArgumentException("question '" + question.key() + "' has "
                    + question.options().size() + " options; a remote model answers at most " + MAX_OPTIONS);
        }
        var builder = HttpRequest.newBuilder(completions)
                .timeout(timeout)
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(Json.write(body(state, question))));
        apiKey.ifPresent(key -> builder.header("authorization", "Bearer " + key));
        HttpResponse<String> response = client.send(builder.build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 400 || response.statusCode() == 413 || response.statusCode() == 422) {
            throw new IllegalArgumentException(
                    "the endpoint refused the question (" + response.statusCode() + "): " + excerpt(response.body()));
        }
        if (response.statusCode() != 200) {
            throw new IOException("the endpoint answered " + response.statusCode() + ": " + excerpt(response.body()));
        }
        JsonNode json = Json.read(response.body());
        JsonNode alternatives = json.at("/choices/0/logprobs/content/0/top_logprobs");
        if (!alternatives.isArray() || alternatives.isEmpty()) {
            throw new IOException("the endpoint gave no log-probabilities; it must support logprobs and "
                    + "top_logprobs on chat completions");
        }
        return new Asked(
                probabilities(alternatives, question.options().size()),
                json.at("/usage/prompt_tokens").asInt(0));
    }

    private ObjectNode body(String state, Scoring.Question question) {
        var prompt = new StringBuilder("Situation:\n")
                .append(state)
                .append("\n\nQuestion: ")
                .append(question.instructions())
                .append("\nOptions:\n");
        for (int i = 0; i < question.options().size(); i++) {
            Scoring.Option option = question.options().get(i);
            prompt.append(LETTERS.charAt(i)).append(") ").append(option.label());
            if (option.description() != null && !option.description().isBlank()) {
                prompt.append(": ").append(option.description());
            }
            prompt.append('\n');
        }
        prompt.append("\nAnswer with one letter.");
        ObjectNode body = Json.object();
        body.put("model", model);
        var messages = body.putArray("messages");
        messages.addObject().put("role", "system").put("content", INSTRUCTIONS);
        messages.addObject().put("role", "user").put("content", prompt.toString());
        body.put("max_tokens", 1);
        body.put("temperature", 0);
        body.put("logprobs", true);
        body.put("top_logprobs", MAX_OPTIONS);
        return body;
    }

    /** The options' probabilities from the first token's alternatives; tokens that read as the same letter add up. */
    static List<Double> probabilities(JsonNode alternatives, int options) {
        double[] mass = new double[options];
        double least = Double.MAX_VALUE;
        for (JsonNode alternative : alternatives) {
            String token = alternative
                    .path("token")
                    .asText()
                    .strip()
                    .replaceAll("[).:]$", "")
                    .toUpperCase(Locale.ROOT);
            double probability = Math.exp(alternative.path("logprob").asDouble(Double.NEGATIVE_INFINITY));
            int letter = token.length() == 1 ? LETTERS.indexOf(token.charAt(0)) : -1;
            if (letter >= 0 && letter < options) {
                mass[letter] += probability;
            }
            if (probability > 0) {
                least = Math.min(least, probability);
            }
        }
        double total = 0;
        for (int i = 0; i < options; i++) {
            if (mass[i] == 0) {
                mass[i] = least / 10;
            }
            total += mass[i];
        }
        var probabilities = new ArrayList<Double>(options);
        for (double m : mass) {
            probabilities.add(m / total);
        }
        return probabilities;
    }

    private static String excerpt(String body) {
        String line = body.replaceAll("\\s+", " ").strip();
        return line.length() > 300 ? line.substring(0, 300) + "..." : line;
    }
}
