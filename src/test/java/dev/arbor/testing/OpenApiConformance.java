package dev.arbor.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Sends real requests and checks each answer against what the server's own OpenAPI document says of that operation
 * and status (JSON Schema 2020-12, by networknt); a JSON body the server accepted is checked against the document's
 * request body too. It remembers which operations and answers it saw.
 */
public final class OpenApiConformance {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);

    private final TestServer http;
    private final String[] always;
    private final JsonNode document;
    private final List<Operation> operations = new ArrayList<>();
    private final Set<String> seen = new TreeSet<>();

    private record Operation(String method, String template, Pattern pattern, int literalSegments) {}

    /** @param always headers every request sends (name, value pairs), such as an admin token */
    public OpenApiConformance(TestServer http, String... always) {
        this.http = http;
        this.always = always.clone();
        this.document = http.get("/openapi.json").json();
        document.path("paths")
                .properties()
                .forEach(path -> path.getValue().properties().forEach(op -> {
                    String template = path.getKey();
                    var regex = new StringBuilder();
                    int literal = 0;
                    for (String segment : template.substring(1).split("/")) {
                        regex.append("/");
                        if (segment.startsWith("{")) {
                            regex.append("[^/]+");
                        } else {
                            regex.append(Pattern.quote(segment));
                            literal++;
                        }
                    }
                    operations.add(new Operation(
                            op.getKey().toUpperCase(Locale.ROOT),
                            template,
                            Pattern.compile(regex.toString()),
                            literal));
                }));
    }

    public JsonNode document() {
        return document;
    }

    /** The operations and statuses checked so far, as {@code METHOD /template STATUS}. */
    public Set<String> seen() {
        return Set.copyOf(seen);
    }

    public HttpReply get(String path, String... headers) {
        return send("GET", path, null, headers);
    }

    public HttpReply post(String path, String body, String... headers) {
        return send("POST", path, body, headers);
    }

    public HttpReply put(String path, String body, String... headers) {
        return send("PUT", path, body, headers);
    }

    public HttpReply patch(String path, String body, String... headers) {
        return send("PATCH", path, body, headers);
    }

    public HttpReply delete(String path, String... headers) {
        return send("DELETE", path, null, headers);
    }

    public HttpReply action(String path, String... headers) {
        return send("POST", path, null, headers);
    }

    /** Sends a request and checks the answer (and an accepted JSON body) against the document. */
    public HttpReply send(String method, String path, String body, String... headers) {
        HttpReply reply = http.send(method, path, body, TestServer.with(always, headers));
        check(method, path, body, reply);
        return reply;
    }

    /** Checks an answer already received, such as one a helper of another test sent. */
    public void check(String method, String path, String body, HttpReply reply) {
        String plain = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
        Operation operation = operations.stream()
                .filter(op -> op.method().equals(method)
                        && op.pattern().matcher(plain).matches())
                .max(Comparator.comparingInt(Operation::literalSegments))
                .orElseThrow(() -> new AssertionError("no operation in the document serves " + method + " " + path));
        JsonNode op = document.path("paths").path(operation.template()).path(method.toLowerCase(Locale.ROOT));
        String status = Integer.toString(reply.status());
        JsonNode response = op.path("responses").has(status)
                ? op.path("responses").path(status)
                : op.path("responses").path("default");
        String what = method + " " + operation.template() + " " + status;
        seen.add(what);
        if (reply.status() >= 200 && reply.status() < 300) {
            assertThat(op.path("responses").has(status))
                    .as("%s is documented (%s)", what, reply.body())
                    .isTrue();
        }
        if (reply.status() == 204 || reply.body().isEmpty()) {
            // a file, such as an export of nothing, may be empty; JSON may not
            assertThat(response.path("content").has("application/json"))
                    .as("%s has no body", what)
                    .isFalse();
            return;
        }
        String type = Optional.ofNullable(reply.header("content-type")).orElse("");
        if (!type.startsWith("application/json")) {
            String mediaType = type.split(";")[0].trim();
            String range = mediaType.replaceAll("/.*", "/*");
            assertThat(response.path("content").has(mediaType)
                            || response.path("content").has(range))
                    .as("%s documents %s", what, mediaType)
                    .isTrue();
            return;
        }
        JsonNode schema = response.path("content").path("application/json").path("schema");
        assertThat(schema.isObject()).as("%s has a JSON schema", what).isTrue();
        assertValid(schema, reply.json(), what + " answer " + reply.body());
        if (body != null && reply.status() < 300) {
            JsonNode request = op.path("requestBody")
                    .path("content")
                    .path("application/json")
                    .path("schema");
            assertThat(request.isObject()).as("%s documents its body", what).isTrue();
            assertValid(request, parse(body), what + " request " + body);
        }
    }

    /** Checks a value against a schema of the document (its {@code $ref}s resolve within the document). */
    public void assertValid(JsonNode schema, JsonNode value, String what) {
        ObjectNode root = schema.deepCopy();
        root.put("$schema", "https://json-schema.org/draft/2020-12/schema");
        root.set("components", document.path("components"));
        List<Error> errors = SCHEMAS.getSchema(root).validate(value);
        assertThat(errors).as("%s: %s", what, errors).isEmpty();
    }

    private static JsonNode parse(String body) {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The document's operations as {@code METHOD /template}. */
    public Set<String> operations() {
        var all = new TreeSet<String>();
        operations.forEach(op -> all.add(op.method() + " " + op.template()));
        return all;
    }
}
