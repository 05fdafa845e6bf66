package dev.arbor.platform.http;

import io.javalin.http.Context;
import java.util.Optional;

/**
 * The paging of a list request: {@code limit} 1–100 (default 20) and at most one cursor, {@code after} or
 * {@code before}, naming an id seen on a page.
 */
public record Page(int limit, Optional<String> after, Optional<String> before) {
    public static final int MAX_LIMIT = 100;
    public static final int DEFAULT_LIMIT = 20;

    public static Page from(Context ctx) {
        var problems = new Problems();
        int limit = DEFAULT_LIMIT;
        String text = ctx.queryParam("limit");
        if (text != null) {
            try {
                limit = Integer.parseInt(text.trim());
            } catch (NumberFormatException e) {
                limit = -1;
            }
            if (limit < 1 || limit > MAX_LIMIT) {
                problems.add(ErrorCode.INVALID_PARAMETER, "limit",
                        "`limit` must be a whole number from 1 to " + MAX_LIMIT + ", not '" + text + "'.");
            }
        }
        Optional<String> after = Optional.ofNullable(ctx.queryParam("after")).filter(s -> !s.isBlank());
        Optional<String> before = Optional.ofNullable(ctx.queryParam("before")).filter(s -> !s.isBlank());
        if (after.isPresent() && before.isPresent()) {
            problems.add(ErrorCode.INVALID_PARAMETER, "before", "Send `after` or `before`, not both.");
        }
        problems.throwIfAny();
        return new Page(limit, after, before);
    }

    /** The error for a cursor that names nothing in the list. */
    public ApiException unknownCursor() {
        String param = after.isPresent() ? "after" : "before";
        return ApiException.of(ErrorCode.INVALID_PARAMETER, param,
                "`" + param + "` is '" + after.or(() -> before).orElse("") + "', which is not an id in this list.");
    }
}
