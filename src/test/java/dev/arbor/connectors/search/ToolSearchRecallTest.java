package dev.arbor.connectors.search;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.models.TextEmbeddings;
import dev.arbor.platform.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The quality of tool search on a public catalog: the tool lists of eleven public MCP servers (97 tools,
 * tool-catalog.json) and 84 queries written the way users ask (tool-search-queries.tsv), each with the one tool that
 * does it. Recall@k is the share of queries whose tool is among the k best. The floors are the figures measured when
 * tool search was built (docs/connectors.md, bench/README.md), less a small margin: a change to the ranking text or
 * the model that makes search worse fails here.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ToolSearchRecallTest {
    /** Measured 2026-11-29: recall@5 0.976 (82 of 84), recall@1 0.881 (74 of 84); floors two queries below. */
    private static final double RECALL_AT_5_FLOOR = 0.95;

    private static final double RECALL_AT_1_FLOOR = 0.85;

    private final ToolSearch search = new ToolSearch(TextEmbeddings::bundled);
    private List<ToolSearch.Candidate> catalog = List.of();
    private List<String[]> queries = List.of();

    @BeforeAll
    void read() throws IOException {
        var tools = new ArrayList<ToolSearch.Candidate>();
        Json.read(resource("tool-catalog.json")).path("servers").properties().forEach(server -> {
            for (JsonNode tool : server.getValue().path("tools")) {
                String name = server.getKey() + "__" + tool.path("name").asText();
                tools.add(new ToolSearch.Candidate(
                        name,
                        ToolSearch.text(
                                name,
                                Optional.ofNullable(tool.get("title")).map(JsonNode::asText),
                                tool.path("description").asText())));
            }
        });
        catalog = List.copyOf(tools);
        queries = resource("tool-search-queries.tsv")
                .lines()
                .filter(line -> !line.isBlank() && !line.startsWith("#"))
                .map(line -> line.split("\t"))
                .toList();
    }

    @Test
    void everyQueryNamesAToolOfTheCatalog() {
        var names = catalog.stream().map(ToolSearch.Candidate::name).toList();
        assertThat(catalog).hasSize(97);
        assertThat(queries).hasSize(84).allSatisfy(query -> assertThat(names).contains(query[1]));
    }

    @Test
    void recallAtFiveStaysAtWhatWasMeasured() {
        assertThat(recall(5)).isGreaterThanOrEqualTo(RECALL_AT_5_FLOOR);
    }

    @Test
    void recallAtOneStaysAtWhatWasMeasured() {
        assertThat(recall(1)).isGreaterThanOrEqualTo(RECALL_AT_1_FLOOR);
    }

    private double recall(int k) {
        int found = 0;
        var missed = new ArrayList<String>();
        for (String[] query : queries) {
            List<String> best = search.best(query[0], catalog, k).stream()
                    .map(ToolSearch.Hit::name)
                    .toList();
            if (best.contains(query[1])) {
                found++;
            } else {
                missed.add(query[0] + " -> " + query[1] + " (got " + best + ")");
            }
        }
        double recall = (double) found / queries.size();
        System.out.printf(
                "recall@%d = %.3f (%d of %d); missed:%n  %s%n",
                k, recall, found, queries.size(), String.join("\n  ", missed));
        return recall;
    }

    private static String resource(String name) throws IOException {
        try (InputStream in =
                Objects.requireNonNull(ToolSearchRecallTest.class.getResourceAsStream("/connectors/" + name), name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
