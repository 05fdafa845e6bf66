package dev.arbor.inference.cache;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.json.Json;
import dev.arbor.routers.RouterCaches;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalDouble;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The answers routers' cache steps keep, in Arbor's own database: found again by the normalised request, or (a
 * semantic step) by the embedding of its last user message among answers to the same context, at a cosine similarity
 * at or above the step's threshold. Each answer belongs to one router, step and scope (a project, or a key): a lookup
 * never reaches another scope's answers. An answer lives for the step's TTL; past its size cap the least recently
 * used go first.
 */
public final class AnswerCache implements RouterCaches {
    private static final Logger LOG = LoggerFactory.getLogger(AnswerCache.class);

    /** Embeds one text with a bundled embedding model. */
    @FunctionalInterface
    public interface Embedder {
        float[] embed(String model, String text);
    }

    /** Where answers are kept: a router's step, in a scope ({@code project:<id>} or {@code key:<id>}). */
    public record Place(String routerId, String stepId, String scope) {
        public Place {
            requireNonNull(routerId, "routerId");
            requireNonNull(stepId, "stepId");
            requireNonNull(scope, "scope");
        }
    }

    /** A step's settings: how long an answer lives, how many it keeps, and its semantic match if it has one. */
    public record Settings(Duration ttl, int maxEntries, Optional<Semantic> semantic) {
        public Settings {
            requireNonNull(ttl, "ttl");
            requireNonNull(semantic, "semantic");
            if (maxEntries < 1) {
                throw new IllegalArgumentException("a cache keeps at least one answer");
            }
        }
    }

    /** A semantic match: the embedding model, and the least cosine similarity that counts as the same question. */
    public record Semantic(String model, double threshold) {
        public Semantic {
            requireNonNull(model, "model");
        }
    }

    /** What a lookup found. */
    public sealed interface Lookup {}

    /**
     * A kept answer: {@code similarity} is there for a semantic match (an exact one has none); {@code savedTokens} the
     * tokens the endpoint spent on it.
     */
    public record Hit(ObjectNode answer, OptionalDouble similarity, long savedTokens) implements Lookup {
        public Hit {
            requireNonNull(answer, "answer");
            requireNonNull(similarity, "similarity");
        }
    }

    /** Nothing kept; the embedding of the request's last message when the step matches semantically. */
    public record Miss(Optional<float[]> embedding) implements Lookup {
        public Miss {
            requireNonNull(embedding, "embedding");
        }
    }

    private final CacheStore store;
    private final Embedder embedder;
    private final Clock clock;

    public AnswerCache(Database database, Embedder embedder, Clock clock) {
        this.store = new CacheStore(database);
        this.embedder = requireNonNull(embedder, "embedder");
        this.clock = requireNonNull(clock, "clock");
    }

    /** The answer kept for this request, exactly or (a semantic step) by meaning. */
    public Lookup find(Place place, CacheRequest request, Settings settings) {
        long now = clock.millis();
        Optional<CacheStore.Found> exact = store.exact(place, request.requestHash(), now);
        if (exact.isPresent()) {
            store.used(exact.get().id(), now);
            return hit(exact.get(), OptionalDouble.empty());
        }
        if (settings.semantic().isEmpty() || request.lastMessage().isEmpty()) {
            return new Miss(Optional.empty());
        }
        Semantic semantic = settings.semantic().get();
        Optional<float[]> embedding =
                embed(semantic.model(), request.lastMessage().get());
        if (embedding.isEmpty()) {
            return new Miss(Optional.empty());
        }
        String best = null;
        double similarity = -1;
        for (CacheStore.Embedded kept : store.sameContext(place, request.contextHash(), now)) {
            double cosine = dot(embedding.get(), kept.vector());
            if (cosine > similarity) {
                similarity = cosine;
                best = kept.id();
            }
        }
        if (best != null && similarity >= semantic.threshold()) {
            Optional<CacheStore.Found> found = store.byId(best);
            if (found.isPresent()) {
                store.used(best, now);
                return hit(found.get(), OptionalDouble.of(similarity));
            }
        }
        return new Miss(embedding);
    }

    /** Keeps {@code answer} to a request that missed; {@code savedTokens} what a hit on it will save. */
    public void keep(
            Place place, CacheRequest request, Settings settings, Miss miss, ObjectNode answer, long savedTokens) {
        long now = clock.millis();
        store.keep(
                Ids.next("rce"),
                place,
                request,
                miss.embedding().orElse(null),
                Json.writeString(answer),
                savedTokens,
                now,
                now + settings.ttl().toMillis(),
                settings.maxEntries());
    }

    @Override
    public int clear(String routerId) {
        return store.clear(requireNonNull(routerId, "routerId"));
    }

    private static Hit hit(CacheStore.Found found, OptionalDouble similarity) {
        return new Hit(
                Json.parseObject(found.answer().getBytes(java.nio.charset.StandardCharsets.UTF_8)),
                similarity,
                found.savedTokens());
    }

    /**
     * The text's embedding at unit length; none when the model cannot answer now (not downloaded, its worker down):
     * the request then misses, and goes on to its endpoint, rather than fail for want of a cache.
     */
    private Optional<float[]> embed(String model, String text) {
        float[] vector;
        try {
            vector = embedder.embed(model, text);
        } catch (RuntimeException e) {
            LOG.warn("A semantic cache could not embed with model {}: {}; the request misses", model, e.getMessage());
            return Optional.empty();
        }
        double norm = Math.sqrt(dot(vector, vector));
        if (norm == 0) {
            return Optional.empty();
        }
        var unit = new float[vector.length];
        for (int i = 0; i < vector.length; i++) {
            unit[i] = (float) (vector[i] / norm);
        }
        return Optional.of(unit);
    }

    private static double dot(float[] a, float[] b) {
        if (a.length != b.length) {
            return -1; // kept with another model: never the same question
        }
        double sum = 0;
        for (int i = 0; i < a.length; i++) {
            sum += a[i] * b[i];
        }
        return sum;
    }
}
