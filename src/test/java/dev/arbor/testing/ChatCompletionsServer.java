package dev.arbor.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An OpenAI-compatible chat completions endpoint on loopback, as vLLM or llama.cpp's server offer one: it checks the
 * bearer key, reads the lettered options of the question, and answers one token with its log-probabilities. Its
 * "model" prefers the option whose label the situation mentions; a letter it finds unlikely it leaves out of the
 * alternatives, as real endpoints do beyond their top few. It keeps every request body it was sent.
 */
public final class ChatCompletionsServer implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern OPTION = Pattern.compile("^([A-Z])\\) ([^:\\n]+)", Pattern.MULTILINE);

    private final HttpServer server;
    private final String apiKey;
    private final boolean logprobs;
    private final List<JsonNode> requests = new CopyOnWriteArrayList<>();
    private final List<String> authorizations = new CopyOnWriteArrayList<>();

    /** @param logprobs whether it gives log-probabilities (servers without them cannot run remote models) */
    public ChatCompletionsServer(String apiKey, boolean logprobs) throws IOException {
        this.apiKey = apiKey;
        this.logprobs = logprobs;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/v1/chat/completions", this::complete);
        server.start();
    }

    /** The API's base URL, as a model's {@code model_uri}. */
    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
    }

    public List<JsonNode> requests() {
        return List.copyOf(requests);
    }

    public List<String> authorizations() {
        return List.copyOf(authorizations);
    }

    private void complete(HttpExchange exchange) throws IOException {
        String authorization = exchange.getRequestHeaders().getFirst("authorization");
        authorizations.add(String.valueOf(authorization));
        if (!("Bearer " + apiKey).equals(authorization)) {
            reply(exchange, 401, "{\"error\": {\"message\": \"Incorrect API key provided.\"}}");
            return;
        }
        JsonNode body = JSON.readTree(exchange.getRequestBody());
        requests.add(body);
        String prompt = body.at("/messages/1/content").asText();
        String situation = prompt.substring(0, prompt.indexOf("\n\nQuestion:")).toLowerCase(Locale.ROOT);
        ObjectNode answer = JSON.createObjectNode();
        ArrayNode alternatives = JSON.createArrayNode();
        Matcher option = OPTION.matcher(prompt);
        String best = "A";
        for (int rank = 0; option.find(); rank++) {
            String letter = option.group(1);
            boolean mentioned = situation.contains(option.group(2).strip().toLowerCase(Locale.ROOT));
            if (mentioned) {
                best = letter;
            }
            double logprob = mentioned ? -0.05 : -3.0 - rank * 0.5;
            if (logprob > -5) { // the unlikeliest letters are not among the alternatives
                alternatives.addObject().put("token", letter).put("logprob", logprob);
                alternatives.addObject().put("token", " " + letter).put("logprob", logprob - 2);
            }
        }
        ObjectNode choice = answer.putArray("choices").addObject();
        choice.putObject("message").put("role", "assistant").put("content", best);
        if (logprobs && body.path("logprobs").asBoolean()) {
            choice.putObject("logprobs")
                    .putArray("content")
                    .addObject()
                    .put("token", best)
                    .put("logprob", -0.05)
                    .set("top_logprobs", alternatives);
        }
        answer.putObject("usage").put("prompt_tokens", prompt.length() / 4).put("completion_tokens", 1);
        reply(exchange, 200, JSON.writeValueAsString(answer));
    }

    private static void reply(HttpExchange exchange, int status, String json) throws IOException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("content-type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
