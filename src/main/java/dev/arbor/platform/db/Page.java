package dev.arbor.platform.db;

import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import java.util.Optional;

/**
 * The paging of a list: {@code limit} 1–100 and at most one cursor, {@code after} or {@code before}, naming an id
 * seen on a page. A request's query gives it through {@code PageParams}.
 */
public record Page(int limit, Optional<String> after, Optional<String> before) {
    public static final int MAX_LIMIT = 100;
    public static final int DEFAULT_LIMIT = 20;

    /** The error for a cursor that names nothing in the list. */
    public ApiException unknownCursor() {
        String param = after.isPresent() ? "after" : "before";
        return ApiException.of(
                ErrorCode.INVALID_PARAMETER,
                param,
                "`" + param + "` is '" + after.or(() -> before).orElse("") + "', which is not an id in this list.");
    }
}
