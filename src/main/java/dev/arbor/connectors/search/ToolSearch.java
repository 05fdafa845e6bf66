package dev.arbor.connectors.search;

import static java.util.Objects.requireNonNull;

import dev.arbor.models.TextEmbeddings;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Ranks an agent's tools by how well they fit what it asks for: the cosine of the query's embedding with each tool's
 * (its name, title and description). A tool's embedding is computed once per text and kept, so a search over a
 * thousand known tools costs one embedding of the query and a thousand dot products.
 */
public final class ToolSearch {
    /** Kept embeddings; emptied when full, which a working set of tools never reaches. */
    private static final int KEPT = 50_000;

    /** A tool to rank: the name the agent calls it by and the text it is known by ({@link #text}). */
    public record Candidate(String name, String text) {
        public Candidate {
            requireNonNull(name, "name");
            requireNonNull(text, "text");
        }
    }

    /** A ranked tool and its cosine with the query. */
    public record Hit(String name, double score) {}

    private final Supplier<TextEmbeddings> model;
    private final Map<String, float[]> known = new ConcurrentHashMap<>();

    /** @param model the embedding model, asked for on the first search (its load takes seconds) */
    public ToolSearch(Supplier<TextEmbeddings> model) {
        this.model = requireNonNull(model, "model");
    }

    /**
     * The text a tool is ranked by: its name with the gateway prefix and separators read as words ("github:
     * create issue"), its title and its description.
     */
    public static String text(String name, Optional<String> title, String description) {
        String words = name.replace("__", ": ").replaceAll("[_\\-.]+", " ");
        return words + title.map(t -> ". " + t).orElse("") + ". " + description;
    }

    /** The {@code k} best of {@code candidates} for {@code query}, best first. */
    public List<Hit> best(String query, List<Candidate> candidates, int k) {
        TextEmbeddings embeddings = model.get();
        var missing = candidates.stream()
                .map(Candidate::text)
                .filter(text -> !known.containsKey(text))
                .distinct()
                .toList();
        if (!missing.isEmpty()) {
            if (known.size() + missing.size() > KEPT) {
                known.clear();
            }
            List<float[]> vectors = embeddings.embed(missing);
            for (int i = 0; i < missing.size(); i++) {
                known.put(missing.get(i), vectors.get(i));
            }
        }
        float[] asked = embeddings.embed(List.of(query)).getFirst();
        var hits = new ArrayList<Hit>(candidates.size());
        for (Candidate candidate : candidates) {
            float[] tool = known.get(candidate.text());
            if (tool == null) { // emptied by another search meanwhile: this one embeds it again
                tool = embeddings.embed(List.of(candidate.text())).getFirst();
            }
            hits.add(new Hit(candidate.name(), dot(asked, tool)));
        }
        hits.sort(Comparator.comparingDouble(Hit::score).reversed());
        return List.copyOf(hits.subList(0, Math.min(k, hits.size())));
    }

    private static double dot(float[] a, float[] b) {
        double sum = 0;
        for (int i = 0; i < a.length; i++) {
            sum += a[i] * b[i];
        }
        return sum;
    }
}
