package dev.arbor.platform.http.server;

import dev.arbor.platform.http.Access;
import dev.arbor.platform.http.HeaderParam;
import dev.arbor.platform.http.QueryParam;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Route;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.idempotency.Idempotency;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Builds the OpenAPI 3.1 document from the route definitions, so that every registered route is described with the
 * shapes, parameters, answers and access it is registered with.
 */
final class OpenApi {
    private static final Pattern PATH_PARAM = Pattern.compile("\\{([^}]+)}");
    private static final Schema.Named ERROR = Schema.named("Error", errorSchema());
    private static final Map<Integer, String> STATUS_TEXT = Map.of(
            200,
            "OK",
            201,
            "Created",
            202,
            "Accepted: the work goes on in the background",
            204,
            "No content",
            206,
            "Partial content");
    private static final String ADMIN_TOKEN = "adminToken";
    private static final String STUDIO_KEY = "studioKey";

    private OpenApi() {}

    /** @param access who may call a route, as the server decides */
    static Map<String, Object> document(List<Route> routes, Function<Route, Access> access, String version) {
        var paths = new TreeMap<String, Map<String, Object>>();
        var named = new TreeMap<String, Schema.Named>();
        collect(ERROR, named);
        for (Route route : routes) {
            paths.computeIfAbsent(route.path(), p -> new LinkedHashMap<>())
                    .put(route.method().name().toLowerCase(Locale.ROOT), operation(route, access.apply(route)));
            if (route.body() instanceof Route.Body.Json json) {
                json.schema().ifPresent(schema -> collect(schema, named));
            }
            route.query().forEach(param -> collect(param.schema(), named));
            route.headers().forEach(header -> collect(header.schema(), named));
            route.replies().forEach(reply -> reply.content().values().forEach(schema -> collect(schema, named)));
        }
        var schemas = new LinkedHashMap<String, Object>();
        named.forEach((name, schema) -> schemas.put(name, schema.schema().json()));
        var doc = new LinkedHashMap<String, Object>();
        doc.put("openapi", "3.1.0");
        doc.put(
                "info",
                Map.of(
                        "title",
                        "Arbor",
                        "version",
                        version,
                        "description",
                        "Studio decisions, MCP connectors, events, routers, pipelines, models and "
                                + "deployments, served from one process."));
        doc.put("paths", paths);
        doc.put(
                "components",
                Map.of(
                        "schemas",
                        schemas,
                        "securitySchemes",
                        Map.of(
                                ADMIN_TOKEN,
                                        Map.of(
                                                "type",
                                                "http",
                                                "scheme",
                                                "bearer",
                                                "description",
                                                "An admin API token "
                                                        + "(POST /auth/tokens) or ARBOR_ADMIN_TOKEN. While neither exists, callers on the server's "
                                                        + "computer act as the local admin without one."),
                                STUDIO_KEY,
                                        Map.of(
                                                "type",
                                                "http",
                                                "scheme",
                                                "bearer",
                                                "description",
                                                "STUDIO_API_KEY, when the "
                                                        + "server has one; without it, callers on the server's computer need none."))));
        return doc;
    }

    /** Adds {@code schema}'s named shapes; two different shapes may not share a name. */
    private static void collect(Schema schema, Map<String, Schema.Named> named) {
        schema.eachNamed(one -> {
            Schema.Named known = named.putIfAbsent(one.name(), one);
            if (known != null && !known.equals(one)) {
                throw new IllegalStateException("two different schemas are named " + one.name());
            }
        });
    }

    private static Map<String, Object> operation(Route route, Access access) {
        var op = new LinkedHashMap<String, Object>();
        op.put("operationId", route.operationId());
        op.put("summary", route.summary());
        op.put("tags", List.of(route.tag()));
        op.put(
                "security",
                switch (access) {
                    case PUBLIC -> List.of();
                    case ADMIN -> List.of(Map.of(ADMIN_TOKEN, List.of()));
                    case STUDIO -> List.of(Map.of(STUDIO_KEY, List.of()), Map.of());
                });
        var parameters = new ArrayList<Map<String, Object>>();
        Matcher matcher = PATH_PARAM.matcher(route.path());
        while (matcher.find()) {
            parameters.add(Map.of(
                    "name", matcher.group(1), "in", "path", "required", true, "schema", Map.of("type", "string")));
        }
        for (QueryParam param : route.query()) {
            var parameter = new LinkedHashMap<String, Object>();
            parameter.put("name", param.name());
            parameter.put("in", "query");
            parameter.put("required", false);
            if (!param.description().isEmpty()) {
                parameter.put("description", param.description());
            }
            parameter.put("schema", param.schema().json());
            parameters.add(parameter);
        }
        for (HeaderParam header : route.headers()) {
            parameters.add(Map.of(
                    "name",
                    header.name(),
                    "in",
                    "header",
                    "required",
                    false,
                    "description",
                    header.description(),
                    "schema",
                    header.schema().json()));
        }
        if (Requests.isWrite(route.method())) {
            parameters.add(Map.of(
                    "name",
                    Idempotency.HEADER,
                    "in",
                    "header",
                    "required",
                    false,
                    "description",
                    "Runs the request at most once; a retry with the same key gets the same answer.",
                    "schema",
                    Map.of("type", "string", "maxLength", Idempotency.MAX_KEY_LENGTH)));
        }
        if (!parameters.isEmpty()) {
            op.put("parameters", parameters);
        }
        if (route.body() instanceof Route.Body.Json json) {
            op.put(
                    "requestBody",
                    requestBody(Map.of(
                            "application/json",
                            Map.of(
                                    "schema",
                                    json.schema().orElse(Schema.object()).json()))));
        }
        if (route.body() instanceof Route.Body.Upload upload) {
            var file = Map.of(
                    "type", "string", "contentMediaType", "application/octet-stream", "maxLength", upload.maxBytes());
            op.put(
                    "requestBody",
                    requestBody(Map.of(
                            "multipart/form-data",
                            Map.of(
                                    "schema",
                                    Map.of(
                                            "type",
                                            "object",
                                            "required",
                                            List.of("file"),
                                            "properties",
                                            Map.of("file", file))),
                            "application/octet-stream",
                            Map.of("schema", file))));
        }
        var responses = new LinkedHashMap<String, Object>();
        for (Route.Reply reply : route.replies()) {
            var response = new LinkedHashMap<String, Object>();
            response.put("description", STATUS_TEXT.getOrDefault(reply.status(), "Success"));
            if (!reply.content().isEmpty()) {
                var content = new TreeMap<String, Object>();
                reply.content().forEach((type, schema) -> content.put(type, Map.of("schema", schema.json())));
                response.put("content", content);
            }
            responses.put(Integer.toString(reply.status()), response);
        }
        responses.put(
                "default",
                Map.of(
                        "description",
                        "The error envelope, with every problem of the request",
                        "content",
                        Map.of("application/json", Map.of("schema", ERROR.json()))));
        op.put("responses", responses);
        return op;
    }

    /** A body every call sends, in one of these media types ({@code {type: {schema}}}). */
    private static Map<String, Object> requestBody(Map<String, Object> content) {
        return Map.of("required", true, "content", content);
    }

    private static Schema errorSchema() {
        Schema problem = Schema.object()
                .required("code", Schema.string())
                .required("param", Schema.nullable(Schema.string()))
                .required("message", Schema.string());
        Schema error = Schema.object()
                .required("type", Schema.string())
                .required("code", Schema.string())
                .required("message", Schema.string())
                .required("param", Schema.nullable(Schema.string()))
                .required("details", Schema.arrayOf(problem))
                .required("request_id", Schema.string())
                .required("decision_id", Schema.nullable(Schema.string()));
        return Schema.object().required("error", error);
    }
}
