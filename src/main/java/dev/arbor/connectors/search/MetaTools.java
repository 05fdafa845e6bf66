package dev.arbor.connectors.search;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The two tools an agent in {@link ToolMode#SEARCH} sees instead of its own: {@value #SEARCH_TOOLS} (what it wants
 * to do, and how many tools to get back: each with its schema) and {@value #CALL_TOOL} (a tool it found, and the
 * arguments), which calls the tool as a direct call would, under the same policy and audit.
 */
public final class MetaTools {
    public static final String SEARCH_TOOLS = "search_tools";
    public static final String CALL_TOOL = "call_tool";
    public static final int DEFAULT_K = 5;
    public static final int MAX_K = 50;
    private static final int MAX_QUERY = 2_000;

    private MetaTools() {}

    /** The two tools, as {@code tools/list} lists them. */
    public static List<Map<String, Object>> definitions() {
        return List.of(
                tool(
                        SEARCH_TOOLS,
                        "Search tools",
                        "Find the tools for a task among this agent's tools: describe what you want to do, and get the"
                                + " best matching tools with their names, descriptions and input schemas. Then call one"
                                + " with " + CALL_TOOL + ".",
                        Map.of(
                                "query",
                                Map.of("type", "string", "description", "What you want to do, in a few words"),
                                "k",
                                Map.of(
                                        "type",
                                        "integer",
                                        "minimum",
                                        1,
                                        "maximum",
                                        MAX_K,
                                        "description",
                                        "How many tools to return (default " + DEFAULT_K + ")")),
                        List.of("query")),
                tool(
                        CALL_TOOL,
                        "Call a tool",
                        "Call one of this agent's tools by the name " + SEARCH_TOOLS + " gave, with its arguments.",
                        Map.of(
                                "name",
                                Map.of(
                                        "type",
                                        "string",
                                        "description",
                                        "The tool's name, as " + SEARCH_TOOLS + " gave it"),
                                "arguments",
                                Map.of(
                                        "type",
                                        "object",
                                        "description",
                                        "The tool's arguments, as its input schema says")),
                        List.of("name")));
    }

    private static Map<String, Object> tool(
            String name, String title, String description, Map<String, Object> properties, List<String> required) {
        var json = new LinkedHashMap<String, Object>();
        json.put("name", name);
        json.put("title", title);
        json.put("description", description);
        json.put("inputSchema", Map.of("type", "object", "properties", properties, "required", required));
        return json;
    }

    /** The arguments of a {@value #SEARCH_TOOLS} call, read; or what is wrong with them, for a tool error. */
    public sealed interface Search permits Query, Invalid {}

    public record Query(String text, int k) implements Search {}

    public record Invalid(String message) implements Search {}

    /** Reads a {@value #SEARCH_TOOLS} call's arguments. */
    public static Search search(JsonNode arguments) {
        JsonNode query = arguments.path("query");
        if (!query.isTextual() || query.textValue().isBlank()) {
            return new Invalid("`query` must be a text saying what you want to do.");
        }
        if (query.textValue().length() > MAX_QUERY) {
            return new Invalid("`query` must be at most " + MAX_QUERY + " characters.");
        }
        JsonNode k = arguments.path("k");
        if (k.isMissingNode() || k.isNull()) {
            return new Query(query.textValue(), DEFAULT_K);
        }
        if (!k.canConvertToExactIntegral() || k.asLong() < 1 || k.asLong() > MAX_K) {
            return new Invalid("`k` must be a whole number from 1 to " + MAX_K + ".");
        }
        return new Query(query.textValue(), k.asInt());
    }
}
