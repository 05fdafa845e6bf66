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
}
