package dev.arbor.platform.http;

import static dev.arbor.platform.db.Page.DEFAULT_LIMIT;
import static dev.arbor.platform.db.Page.MAX_LIMIT;

import dev.arbor.platform.db.Page;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
import io.javalin.http.Context;
import java.util.List;
import java.util.Optional;

/** The query parameters of a list request's {@link Page}: {@code limit} (default 20), {@code after}, {@code before}. */
public final class PageParams {
    public static final QueryParam LIMIT = new QueryParam(
            "limit", Schema.integer(1, MAX_LIMIT), "How many items a page holds (default " + DEFAULT_LIMIT + ").");
    public static final QueryParam AFTER =
            new QueryParam("after", Schema.string(), "The page after this id (an id seen on a page).");
    public static final QueryParam BEFORE = new QueryParam(
            "before", Schema.string(), "The page before this id (an id seen on a page); not with `after`.");
    /** The parameters {@link #from} reads, for the OpenAPI document. */
    public static final List<QueryParam> PARAMETERS = List.of(LIMIT, AFTER, BEFORE);

    private PageParams() {}

    public static Page from(Context ctx) {
        var problems = new Problems();
        int limit = DEFAULT_LIMIT;
        String text = LIMIT.read(ctx).orElse(null);
        if (text != null) {
            try {
                limit = Integer.parseInt(text.trim());
            } catch (NumberFormatException e) {
                limit = -1;
            }
            if (limit < 1 || limit > MAX_LIMIT) {
                problems.add(
                        ErrorCode.INVALID_PARAMETER,
                        "limit",
                        "`limit` must be a whole number from 1 to " + MAX_LIMIT + ", not '" + text + "'.");
            }
        }
        Optional<String> after = AFTER.read(ctx).filter(s -> !s.isBlank());
        Optional<String> before = BEFORE.read(ctx).filter(s -> !s.isBlank());
        if (after.isPresent() && before.isPresent()) {
            problems.add(ErrorCode.INVALID_PARAMETER, "before", "Send `after` or `before`, not both.");
        }
        problems.throwIfAny();
        return new Page(limit, after, before);
    }
}
