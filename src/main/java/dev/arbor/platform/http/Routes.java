package dev.arbor.platform.http;

import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import io.javalin.http.Handler;
import io.javalin.http.HandlerType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * The routes of one feature, registered with its tag. Features add to it; the server reads it once at start. Each
 * operation is followed by what describes it in the OpenAPI document: its body's shape, its query parameters and
 * its answers ({@code .body(...)}, {@code .query(...)}, {@code .ok(...)}, {@code .created(...)}, ...), which apply
 * to the operation added last.
 */
public final class Routes {
    private static final Route.Body NONE = new Route.Body.None();
    private static final Route.Body JSON = new Route.Body.Json(OptionalLong.empty(), Optional.empty());

    private final List<Route> all = new ArrayList<>();

    public Group group(String tag) {
        return new Group(tag);
    }

    public List<Route> all() {
        return List.copyOf(all);
    }

    /**
     * Runs each route by the handler {@code wrapper} makes of it (its own, or one around its own): for what must run
     * around the writes of every feature without any feature knowing (the audit log), once every route is added.
     */
    public void wrapHandlers(Function<Route, Handler> wrapper) {
        all.replaceAll(route -> route.withHandler(wrapper.apply(route)));
    }

    /** Routes of one feature. */
    public final class Group {
        private final String tag;
        private Optional<ErrorCode> databaseUnavailable = Optional.empty();
        private int last = -1;

        private Group(String tag) {
            this.tag = tag;
        }

        /**
         * The code this feature's routes answer in place of {@code database_unavailable} (added after this call): the
         * studio's contract names its store {@code history_unavailable}; status, message and headers stay.
         */
        public Group databaseUnavailableAs(ErrorCode code) {
            if (code.status() != ErrorCode.DATABASE_UNAVAILABLE.status()) {
                throw new IllegalArgumentException(code + " does not have the status of database_unavailable");
            }
            this.databaseUnavailable = Optional.of(code);
            return this;
        }

        public Group get(String path, String summary, Handler handler) {
            return add(HandlerType.GET, path, summary, NONE, handler);
        }

        public Group delete(String path, String summary, Handler handler) {
            return add(HandlerType.DELETE, path, summary, NONE, handler);
        }

        public Group post(String path, String summary, Handler handler) {
            return add(HandlerType.POST, path, summary, JSON, handler);
        }

        /**
         * A POST whose JSON may carry files inline (data URLs), so may be larger than the server's body limit: up to
         * {@code maxBytes}.
         */
        public Group postWithFiles(String path, String summary, long maxBytes, Handler handler) {
            return add(
                    HandlerType.POST,
                    path,
                    summary,
                    new Route.Body.Json(OptionalLong.of(maxBytes), Optional.empty()),
                    handler);
        }

        /** A POST that takes no body, such as an action on a resource. */
        public Group action(String path, String summary, Handler handler) {
            return add(HandlerType.POST, path, summary, NONE, handler);
        }

        /** A POST that takes a file, streamed, of at most {@code maxBytes} (an upload, see {@link Route}). */
        public Group upload(String path, String summary, long maxBytes, Handler handler) {
            return add(HandlerType.POST, path, summary, new Route.Body.Upload(maxBytes), handler);
        }

        public Group put(String path, String summary, Handler handler) {
            return add(HandlerType.PUT, path, summary, JSON, handler);
        }

        public Group patch(String path, String summary, Handler handler) {
            return add(HandlerType.PATCH, path, summary, JSON, handler);
        }

        /** The shape of the last operation's JSON body. */
        public Group body(Schema schema) {
            Route route = lastRoute();
            if (!(route.body() instanceof Route.Body.Json json)) {
                throw new IllegalStateException(route.method() + " " + route.path() + " takes no JSON body");
            }
            return replace(new Route(
                    route.method(),
                    route.path(),
                    route.tag(),
                    route.summary(),
                    new Route.Body.Json(json.maxBytes(), Optional.of(schema)),
                    route.query(),
                    route.headers(),
                    route.replies(),
                    route.handler()));
        }

        /** Query parameters the last operation reads. */
        public Group query(QueryParam... params) {
            return query(List.of(params));
        }

        public Group query(List<QueryParam> params) {
            Route route = lastRoute();
            var query = new ArrayList<>(route.query());
            query.addAll(params);
            return replace(new Route(
                    route.method(),
                    route.path(),
                    route.tag(),
                    route.summary(),
                    route.body(),
                    query,
                    route.headers(),
                    route.replies(),
                    route.handler()));
        }

        /** Request headers the last operation reads. */
        public Group header(HeaderParam... params) {
            Route route = lastRoute();
            var headers = new ArrayList<>(route.headers());
            headers.addAll(List.of(params));
            return replace(new Route(
                    route.method(),
                    route.path(),
                    route.tag(),
                    route.summary(),
                    route.body(),
                    route.query(),
                    headers,
                    route.replies(),
                    route.handler()));
        }

        /** The last operation answers 200 with this JSON. */
        public Group ok(Schema schema) {
            return reply(Route.Reply.json(200, schema));
        }

        /** The last operation answers 201 with the created resource. */
        public Group created(Schema schema) {
            return reply(Route.Reply.json(201, schema));
        }

        /** The last operation answers 202: the work goes on in the background. */
        public Group accepted(Schema schema) {
            return reply(Route.Reply.json(202, schema));
        }

        /** The last operation answers 202 with no body (a message taken, with nothing to answer). */
        public Group acceptedWithoutBody() {
            return reply(new Route.Reply(202, Map.of()));
        }

        /** The last operation answers 204 with no body. */
        public Group noContent() {
            return reply(new Route.Reply(204, Map.of()));
        }

        /** The last operation answers {@code status} with a body of another media type than JSON. */
        public Group answers(int status, String mediaType, Schema schema) {
            return reply(new Route.Reply(status, Map.of(mediaType, schema)));
        }

        private Group reply(Route.Reply reply) {
            Route route = lastRoute();
            var replies = new ArrayList<>(route.replies());
            var merged =
                    replies.stream().filter(r -> r.status() == reply.status()).findFirst();
            if (merged.isPresent()) {
                var content = new LinkedHashMap<>(merged.get().content());
                content.putAll(reply.content());
                replies.set(replies.indexOf(merged.get()), new Route.Reply(reply.status(), content));
            } else {
                replies.add(reply);
            }
            return replace(new Route(
                    route.method(),
                    route.path(),
                    route.tag(),
                    route.summary(),
                    route.body(),
                    route.query(),
                    route.headers(),
                    replies,
                    route.handler()));
        }

        private Route lastRoute() {
            if (last < 0) {
                throw new IllegalStateException("describe an operation after adding it");
            }
            return all.get(last);
        }

        private Group replace(Route route) {
            all.set(last, route);
            return this;
        }

        private Group add(HandlerType method, String path, String summary, Route.Body body, Handler handler) {
            Handler answered =
                    databaseUnavailable.map(code -> renaming(handler, code)).orElse(handler);
            all.add(new Route(method, path, tag, summary, body, List.of(), List.of(), List.of(), answered));
            last = all.size() - 1;
            return this;
        }
    }

    private static Handler renaming(Handler handler, ErrorCode code) {
        return ctx -> {
            try {
                handler.handle(ctx);
            } catch (ApiException e) {
                throw e.code() == ErrorCode.DATABASE_UNAVAILABLE ? e.withCode(code) : e;
            }
        };
    }
}
