package dev.arbor.platform.http;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.arbor.platform.db.Paging;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The contract's list shape: {@code "object": "list"}, the items, the ids of the first and last item (what the
 * {@code after} and {@code before} cursors take; null on an empty page) and whether more follow.
 */
@JsonPropertyOrder({"object", "data", "first_id", "last_id", "has_more"})
public record ListReply<T>(
        List<T> data,
        @JsonProperty("first_id") @Nullable String firstId,
        @JsonProperty("last_id") @Nullable String lastId,
        @JsonProperty("has_more") boolean hasMore) {
    public ListReply {
        // a copy that, as the map this record replaces, keeps an item that is null
        data = Collections.unmodifiableList(new ArrayList<>(data));
    }

    /** {@code data} in the list shape; {@code ids} are those of {@code data}, for the cursors. */
    public static <T> ListReply<T> of(List<T> data, List<String> ids, boolean hasMore) {
        requireNonNull(ids, "ids");
        return new ListReply<>(
                data, ids.isEmpty() ? null : ids.getFirst(), ids.isEmpty() ? null : ids.getLast(), hasMore);
    }

    /** A page of a keyset-paged list, each item shown as {@code view} shows it. */
    public static <T, V> ListReply<V> page(Paging.Result<T> page, Function<T, String> id, Function<T, V> view) {
        var data = new ArrayList<V>();
        var ids = new ArrayList<String>();
        for (T item : page.items()) {
            data.add(view.apply(item));
            ids.add(id.apply(item));
        }
        return of(data, ids, page.hasMore());
    }

    @JsonProperty("object")
    public String object() {
        return "list";
    }

    /** The same fields as a map, for a reply that adds its own beside them. */
    Map<String, Object> toMap() {
        var list = new LinkedHashMap<String, Object>();
        list.put("object", object());
        list.put("data", data);
        list.put("first_id", firstId);
        list.put("last_id", lastId);
        list.put("has_more", hasMore);
        return list;
    }
}
