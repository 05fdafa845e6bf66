package dev.arbor.routers;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.actions.ActionCatalog;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.errors.Warning;
import java.util.List;
import java.util.Map;

/** The answers of the router routes, as records the one JSON codec writes in the contract's field order. */
final class RouterReplies {
    private RouterReplies() {}

    /** A router, as lists and reads show it. */
    @JsonPropertyOrder({
        "id",
        "object",
        "project_id",
        "name",
        "description",
        "tags",
        "icon",
        "dag_config",
        "status",
        "step_count",
        "created_at",
        "modified_at"
    })
    record RouterJson(
            @JsonProperty("id") String id,
            @JsonProperty("object") String object,
            @JsonProperty("project_id") String projectId,
            @JsonProperty("name") String name,
            @JsonProperty("description") String description,
            @JsonProperty("tags") List<String> tags,
            @JsonProperty("icon") String icon,
            @JsonProperty("dag_config") JsonNode dagConfig,
            @JsonProperty("status") String status,
            @JsonProperty("step_count") int stepCount,
            @JsonProperty("created_at") long createdAt,
            @JsonProperty("modified_at") long modifiedAt) {
        static RouterJson of(Router router) {
            return new RouterJson(
                    router.id(),
                    "router",
                    router.projectId(),
                    router.name(),
                    router.description(),
                    router.tags(),
                    router.icon(),
                    router.dagConfig(),
                    router.status().wire(),
                    router.stepCount(),
                    router.createdAt().getEpochSecond(),
                    router.modifiedAt().getEpochSecond());
        }
    }

    /** A router as a save, a create or a read answers it: with what keeps its graph from serving. */
    record Saved(
            @JsonUnwrapped RouterJson router,
            @JsonProperty("warnings") List<Warning> warnings) {
        static Saved of(Router router, List<Warning> warnings) {
            return new Saved(RouterJson.of(router), List.copyOf(warnings));
        }
    }

    /** A check's answer: {@code action.validation} or {@code router.validation}. */
    @JsonPropertyOrder({"object", "valid", "errors", "warnings"})
    record Validation(
            @JsonProperty("object") String object,
            @JsonProperty("valid") boolean valid,
            @JsonProperty("errors") List<Map<String, Object>> errors,
            @JsonProperty("warnings") List<Warning> warnings) {
        static Validation of(String object, Problems problems, List<Warning> warnings) {
            return new Validation(
                    object, problems.isEmpty(), ActionCatalog.errorsJson(problems), List.copyOf(warnings));
        }
    }

    /** One graph a save replaced. */
    @JsonPropertyOrder({"object", "router_id", "version", "step_count", "dag_config", "saved_at", "replaced_at"})
    record Version(
            @JsonProperty("object") String object,
            @JsonProperty("router_id") String routerId,
            @JsonProperty("version") int version,
            @JsonProperty("step_count") int stepCount,
            @JsonProperty("dag_config") JsonNode dagConfig,
            @JsonProperty("saved_at") long savedAt,
            @JsonProperty("replaced_at") long replacedAt) {
        static Version of(String routerId, RouterStore.Version version) {
            return new Version(
                    "router.version",
                    routerId,
                    version.version(),
                    version.dagConfig().path("steps").size(),
                    version.dagConfig(),
                    version.savedAt().getEpochSecond(),
                    version.replacedAt().getEpochSecond());
        }
    }

    @JsonPropertyOrder({"id", "object", "deleted"})
    record Deleted(
            @JsonProperty("id") String id,
            @JsonProperty("object") String object,
            @JsonProperty("deleted") boolean deleted) {
        static Deleted router(String id) {
            return new Deleted(id, "router.deleted", true);
        }
    }

    /** What {@code DELETE /routers/{id}/cache} emptied. */
    @JsonPropertyOrder({"router_id", "object", "deleted"})
    record CacheCleared(
            @JsonProperty("router_id") String routerId,
            @JsonProperty("object") String object,
            @JsonProperty("deleted") int deleted) {
        static CacheCleared of(String routerId, int deleted) {
            return new CacheCleared(routerId, "router.cache.cleared", deleted);
        }
    }

    /**
     * A router's stats: its requests (as {@link RouterUsage}), what its cache steps saved, and what each step counted
     * (cache hits and misses, guardrail findings and blocks).
     */
    @JsonPropertyOrder({"cache", "step_counts"})
    record Stats(
            @JsonUnwrapped RouterUsage usage,
            @JsonProperty("cache") CacheStats cache,
            @JsonProperty("step_counts") List<StepCounts.Count> stepCounts) {
        static Stats of(RouterUsage usage, List<StepCounts.Count> counts) {
            return new Stats(usage, CacheStats.of(counts), counts);
        }
    }

    /** The cache steps' counts summed: hits (exact and semantic), misses, their rate, and the tokens hits saved. */
    @JsonPropertyOrder({"hits", "semantic_hits", "misses", "hit_rate", "saved_tokens"})
    record CacheStats(
            @JsonProperty("hits") long hits,
            @JsonProperty("semantic_hits") long semanticHits,
            @JsonProperty("misses") long misses,
            @JsonProperty("hit_rate") double hitRate,
            @JsonProperty("saved_tokens") long savedTokens) {
        static CacheStats of(List<StepCounts.Count> counts) {
            long hits = sum(counts, "cache_hit");
            long semantic = sum(counts, "cache_semantic_hit");
            long misses = sum(counts, "cache_miss");
            long asked = hits + semantic + misses;
            return new CacheStats(
                    hits,
                    semantic,
                    misses,
                    asked == 0 ? 0 : (double) (hits + semantic) / asked,
                    sum(counts, "cache_saved_tokens"));
        }

        private static long sum(List<StepCounts.Count> counts, String name) {
            return counts.stream()
                    .filter(count -> count.name().equals(name))
                    .mapToLong(StepCounts.Count::count)
                    .sum();
        }
    }
}
