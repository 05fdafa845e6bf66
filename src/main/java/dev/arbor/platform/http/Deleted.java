package dev.arbor.platform.http;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.arbor.platform.errors.Warning;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The answer to a delete: the id, {@code "<kind>.deleted"} as its object, {@code deleted: true}, and, for a delete
 * that may be forced past what uses the thing, the warnings that says so (an empty list when none).
 */
@JsonPropertyOrder({"id", "object", "deleted", "warnings"})
public record Deleted(
        String id,
        String object,
        @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable List<Warning> warnings) {
    public Deleted {
        requireNonNull(id, "id");
        requireNonNull(object, "object");
        warnings = warnings == null ? null : List.copyOf(warnings);
    }

    /** {@code kind} is what the object says was deleted, such as {@code cluster}. */
    public static Deleted of(String id, String kind) {
        return new Deleted(id, kind + ".deleted", null);
    }

    /** A delete that may be forced: {@code warnings} name what still used the thing. */
    public static Deleted of(String id, String kind, List<Warning> warnings) {
        return new Deleted(id, kind + ".deleted", requireNonNull(warnings, "warnings"));
    }

    @JsonProperty("deleted")
    public boolean deleted() {
        return true;
    }
}
