package dev.arbor.platform.http;

import io.javalin.http.Handler;
import io.javalin.http.HandlerType;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/** The routes of one feature, registered with its tag. Features add to it; the server reads it once at start. */
public final class Routes {
    private static final Route.Body NONE = new Route.Body.None();
    private static final Route.Body JSON = new Route.Body.Json(OptionalLong.empty());

    private final List<Route> all = new ArrayList<>();

    public Group group(String tag) {
        return new Group(tag);
    }

    public List<Route> all() {
        return List.copyOf(all);
    }

    /** Routes of one feature. */
    public final class Group {
        private final String tag;

        private Group(String tag) {
            this.tag = tag;
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
            return add(HandlerType.POST, path, summary, new Route.Body.Json(OptionalLong.of(maxBytes)), handler);
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

        private Group add(HandlerType method, String path, String summary, Route.Body body, Handler handler) {
            all.add(new Route(method, path, tag, summary, body, handler));
            return this;
        }
    }
}
