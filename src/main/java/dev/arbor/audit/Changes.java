package dev.arbor.audit;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The difference between a resource's state before and after a change, field by field: each field whose value
 * differs, by its JSON Pointer, with its value before (absent when it had none) and after (absent when it has none).
 * Objects are compared field by field, anything else (a text, a number, a list) as a whole value. A create has no
 * state before, so every field is new; a delete none after.
 */
final class Changes {
    private Changes() {}

    /** One field that changed. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Change(
            String path,
            @Nullable JsonNode before,
            @Nullable JsonNode after) {}

    static List<Change> between(Optional<JsonNode> before, Optional<JsonNode> after) {
        var changes = new ArrayList<Change>();
        compare("", before.orElse(null), after.orElse(null), changes);
        return List.copyOf(changes);
    }

    private static void compare(
            String path, @Nullable JsonNode before, @Nullable JsonNode after, List<Change> changes) {
        boolean objects = (before == null || before.isObject()) && (after == null || after.isObject());
        if (objects && (before != null || after != null)) {
            Set<String> names = new LinkedHashSet<>();
            if (before != null) {
                before.fieldNames().forEachRemaining(names::add);
            }
            if (after != null) {
                after.fieldNames().forEachRemaining(names::add);
            }
            for (String name : names) {
                compare(
                        path + "/" + name.replace("~", "~0").replace("/", "~1"),
                        before == null ? null : before.get(name),
                        after == null ? null : after.get(name),
                        changes);
            }
            return;
        }
        if (before == null ? after != null : !before.equals(after)) {
            changes.add(new Change(path.isEmpty() ? "/" : path, before, after));
        }
    }
}
