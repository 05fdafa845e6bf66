package dev.arbor.platform.http;

import dev.arbor.platform.db.Paging;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.Problem;
import dev.arbor.platform.json.Json;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** Writes JSON answers and the error envelope. */
public final class Responses {
    private Responses() {}

    public static void json(Context ctx, int status, Object value) {
        ctx.status(status);
        ctx.contentType("application/json");
        ctx.result(Json.write(value));
    }

    public static void ok(Context ctx, Object value) {
        json(ctx, 200, value);
    }

    public static void created(Context ctx, String location, Object value) {
        ctx.header("location", location);
        json(ctx, 201, value);
    }

    /**
     * The contract's list shape as a map, for a reply that adds fields of its own beside the list's; {@code ids} are
     * those of {@code data}, for the cursors. A plain list is a {@link ListReply}.
     */
    public static Map<String, Object> list(List<?> data, List<String> ids, boolean hasMore) {
        return ListReply.of(data, ids, hasMore).toMap();
    }

    /** A page of a keyset-paged list in the contract's list shape, as a map: see {@link #list}. */
    public static <T> Map<String, Object> page(Paging.Result<T> page, Function<T, String> id, Function<T, ?> json) {
        return ListReply.page(page, id, json).toMap();
    }

    public static void error(Context ctx, ApiException error) {
        error.headers().forEach(ctx::header);
        json(ctx, error.status(), envelope(error, Requests.id(ctx)));
    }

    public static Map<String, Object> envelope(ApiException error, String requestId) {
        Problem first = error.problems().getFirst();
        var details = new ArrayList<Map<String, Object>>();
        for (Problem problem : error.problems()) {
            var detail = new LinkedHashMap<String, Object>();
            detail.put("code", problem.code().code());
            detail.put("param", problem.param());
            detail.put("message", problem.message());
            details.add(detail);
        }
        var body = new LinkedHashMap<String, Object>();
        body.put("type", first.code().type());
        body.put("code", first.code().code());
        body.put("message", first.message());
        body.put("param", first.param());
        body.put("details", details);
        body.put("request_id", requestId);
        body.put("decision_id", null); // an error about a failed decision that was stored names it (extra field)
        body.putAll(error.extra());
        return Map.of("error", body);
    }
}
