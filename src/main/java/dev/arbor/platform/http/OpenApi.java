package dev.arbor.platform.http;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Builds the OpenAPI 3.1 document from the route definitions, so that every registered route is described. */
final class OpenApi {
    private static final Pattern PATH_PARAM = Pattern.compile("\\{([^}]+)}");

    private OpenApi() {}

    static Map<String, Object> document(List<Route> routes, String version) {
        var paths = new TreeMap<String, Map<String, Object>>();
        for (Route route : routes) {
            paths.computeIfAbsent(route.path(), p -> new LinkedHashMap<>())
                    .put(route.method().name().toLowerCase(Locale.ROOT), operation(route));
        }
        var doc = new LinkedHashMap<String, Object>();
        doc.put("openapi", "3.1.0");
        doc.put("info", Map.of("title", "Arbor", "version", version,
                "description", "Studio decisions, MCP connectors, events, routers, pipelines, models and "
                        + "deployments, served from one process."));
        doc.put("paths", paths);
        doc.put("components", Map.of(
                "schemas", Map.of("Error", errorSchema()),
                "securitySchemes", Map.of("bearer", Map.of("type", "http", "scheme", "bearer"))));
        return doc;
    }

    private static Map<String, Object> operation(Route route) {
        var op = new LinkedHashMap<String, Object>();
        op.put("operationId", route.operationId());
        op.put("summary", route.summary());
        op.put("tags", List.of(route.tag()));
        var parameters = new ArrayList<Map<String, Object>>();
        Matcher matcher = PATH_PARAM.matcher(route.path());
        while (matcher.find()) {
            parameters.add(Map.of("name", matcher.group(1), "in", "path", "required", true,
                    "schema", Map.of("type", "string")));
        }
        if (Requests.isWrite(route.method())) {
            parameters.add(Map.of("name", Idempotency.HEADER, "in", "header", "required", false,
                    "description", "Runs the request at most once; a retry with the same key gets the same answer.",
                    "schema", Map.of("type", "string", "maxLength", Idempotency.MAX_KEY_LENGTH)));
        }
        if (!parameters.isEmpty()) {
            op.put("parameters", parameters);
        }
        if (route.body() instanceof Route.Body.Json) {
            op.put("requestBody", Map.of("required", true, "content",
                    Map.of("application/json", Map.of("schema", Map.of("type", "object")))));
        }
        if (route.body() instanceof Route.Body.Upload upload) {
            var file = Map.of("type", "string", "format", "binary", "maxLength", upload.maxBytes());
            op.put("requestBody", Map.of("required", true, "content", Map.of(
                    "multipart/form-data", Map.of("schema", Map.of("type", "object", "required", List.of("file"),
                            "properties", Map.of("file", file))),
                    "application/octet-stream", Map.of("schema", file))));
        }
        var error = Map.of("description", "The error envelope", "content",
                Map.of("application/json", Map.of("schema", Map.of("$ref", "#/components/schemas/Error"))));
        op.put("responses", Map.of("200", Map.of("description", "Success"), "default", error));
        return op;
    }

    private static Map<String, Object> errorSchema() {
        var problem = Map.of("type", "object", "properties", Map.of(
                "code", Map.of("type", "string"),
                "param", Map.of("type", List.of("string", "null")),
                "message", Map.of("type", "string")));
        var error = new LinkedHashMap<String, Object>();
        error.put("type", "object");
        error.put("required", List.of("type", "code", "message", "param", "details", "request_id", "decision_id"));
        error.put("properties", Map.of(
                "type", Map.of("type", "string"),
                "code", Map.of("type", "string"),
                "message", Map.of("type", "string"),
                "param", Map.of("type", List.of("string", "null")),
                "details", Map.of("type", "array", "items", problem),
                "request_id", Map.of("type", "string"),
                "decision_id", Map.of("type", List.of("string", "null"))));
        return Map.of("type", "object", "required", List.of("error"), "properties", Map.of("error", error));
    }
}
