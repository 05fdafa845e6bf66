package dev.arbor.platform.db;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.Query;

/**
 * Keyset paging over time-sortable ids, newest first: stable under concurrent inserts because a cursor is a position,
 * not an offset.
 */
public final class Paging {
    private Paging() {}

    /** One page and whether more follow it in the direction of travel. */
    public record Result<T>(List<T> items, boolean hasMore) {
        public Result {
            items = List.copyOf(items);
        }
    }

    /**
     * The same, where a cursor must name a row of the filtered list itself (a cursor from another filter's pages is
     * refused).
     *
     * @param from the table and filter, e.g. {@code "projects WHERE 1 = 1"}; {@code id} is its id column
     * @param binds binds the filter's parameters
     */
    public static <T> Result<T> newestFirst(
            Handle handle, String columns, String from, Page page, RowMapper<T> mapper, Consumer<Query> binds) {
        Predicate<String> exists = cursor -> {
            Query query = handle.createQuery("SELECT count(*) FROM " + from + " AND id = :cursor")
                    .bind("cursor", cursor);
            binds.accept(query);
            return query.mapTo(Integer.class).one() > 0;
        };
        return newestFirst(handle, columns, from, page, mapper, exists, binds);
    }

    /**
     * @param from the table and filter, e.g. {@code "projects WHERE 1 = 1"}; {@code id} is its id column
     * @param exists whether a cursor id names a row of this list
     * @param binds binds the filter's parameters
     */
    public static <T> Result<T> newestFirst(
            Handle handle,
            String columns,
            String from,
            Page page,
            RowMapper<T> mapper,
            Predicate<String> exists,
            Consumer<Query> binds) {
        page.after().or(page::before).ifPresent(cursor -> {
            if (!exists.test(cursor)) {
                throw page.unknownCursor();
            }
        });
        String sql;
        if (page.after().isPresent()) {
            sql = "SELECT " + columns + " FROM " + from + " AND id < :cursor ORDER BY id DESC LIMIT :fetch";
        } else if (page.before().isPresent()) {
            sql = "SELECT " + columns + " FROM " + from + " AND id > :cursor ORDER BY id ASC LIMIT :fetch";
        } else {
            sql = "SELECT " + columns + " FROM " + from + " ORDER BY id DESC LIMIT :fetch";
        }
        Query query = handle.createQuery(sql).bind("fetch", page.limit() + 1);
        binds.accept(query);
        page.after().or(page::before).ifPresent(cursor -> query.bind("cursor", cursor));
        List<T> rows = new ArrayList<>(query.map(mapper).list());
        boolean more = rows.size() > page.limit();
        if (more) {
            rows.removeLast();
        }
        if (page.before().isPresent()) {
            Collections.reverse(rows);
        }
        return new Result<>(rows, more);
    }
}
