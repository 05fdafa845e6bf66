package connectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.arbor.connectors.search.ToolSearch;
import dev.arbor.models.TextEmbeddings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * What {@code search_tools} costs an agent with 1,000 tools: the public catalog of the recall test
 * (src/test/resources/connectors/tool-catalog.json, 97 tools) copied under eleven gateway names (1,067 tools, each
 * with its own text), ranked for the recall test's queries in turn, in this process, after the tools' embeddings are
 * kept (the first search of an agent embeds them all once). The baseline, measured in the same run, is one embedding
 * of the query alone: what any embedding search costs. Run with the classes and the test class path:
 * java -cp "target/classes:$(cat cp.txt)" bench/connectors/ToolSearchBench.java [searches]
 */
public class ToolSearchBench {
    public static void main(String[] args) throws Exception {
        int searches = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        JsonNode catalog = new ObjectMapper()
                .readTree(Path.of("src/test/resources/connectors/tool-catalog.json")
                        .toFile())
                .path("servers");
        var tools = new ArrayList<ToolSearch.Candidate>();
        for (int copy = 0; copy < 11; copy++) {
            String suffix = copy == 0 ? "" : "-" + copy;
            catalog.properties()
                    .forEach(server -> server.getValue().path("tools").forEach(tool -> {
                        String name = server.getKey() + suffix + "__"
                                + tool.path("name").asText();
                        tools.add(new ToolSearch.Candidate(
                                name,
                                ToolSearch.text(
                                        name,
                                        Optional.ofNullable(tool.get("title")).map(JsonNode::asText),
                                        tool.path("description").asText())));
                    }));
        }
        List<String> queries =
                Files.readAllLines(Path.of("src/test/resources/connectors/tool-search-queries.tsv")).stream()
                        .filter(line -> !line.isBlank() && !line.startsWith("#"))
                        .map(line -> line.split("\t")[0])
                        .toList();
        TextEmbeddings model = TextEmbeddings.bundled();
        var search = new ToolSearch(() -> model);
        long firstStart = System.nanoTime();
        search.best(queries.getFirst(), tools, 5);
        System.out.printf(
                "tools: %d; first search (embeds every tool): %.0f ms%n",
                tools.size(), (System.nanoTime() - firstStart) / 1e6);
        for (int i = 0; i < searches / 10; i++) { // warm-up
            search.best(queries.get(i % queries.size()), tools, 5);
            model.embed(List.of(queries.get(i % queries.size())));
        }
        long[] searched = new long[searches];
        long[] embedded = new long[searches];
        for (int i = 0; i < searches; i++) {
            String query = queries.get(i % queries.size());
            long start = System.nanoTime();
            search.best(query, tools, 5);
            searched[i] = System.nanoTime() - start;
            start = System.nanoTime();
            model.embed(List.of(query));
            embedded[i] = System.nanoTime() - start;
        }
        report("search_tools over " + tools.size() + " tools", searched);
        report("the query's embedding alone", embedded);
    }

    private static void report(String what, long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        System.out.printf(
                "%-40s p50 %.2f ms  p99 %.2f ms%n",
                what, sorted[sorted.length / 2] / 1e6, sorted[(int) (sorted.length * 0.99)] / 1e6);
    }
}
