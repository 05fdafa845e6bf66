package dev.arbor.platform.http;

import io.javalin.http.Handler;
import io.javalin.http.HandlerType;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/** The routes of one feature, registered with its tag. Features add to it; the server reads it once at start. */
public final class Routes {
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
            return add(HandlerType.GET, path, summary, false, handler);
        }

        public Group delete(String path, String summary, Handler handler) {
            return add(HandlerType.DELETE, path, summary, false, handler);
        }

        public Group post(String path, String summary, Handler handler) {
            return add(HandlerType.POST, path, summary, true, handler);
        }

        /** A POST that takes no body, such as an action on a resource. */
        public Group action(String path, String summary, Handler handler) {
            return add(HandlerType.POST, path, summary, false, handler);
        }

        /** A POST that takes a file, streamed, of at most {@code maxBytes} (an upload, see {@link Route}). */
        public Group upload(String path, String summary, long maxBytes, Handler handler) {
            all.add(new Route(HandlerType.POST, path, tag, summary, false, OptionalLong.of(maxBytes), handler));
            return this;
        }

        public Group put(String path, String summary, Handler handler) {
            return add(HandlerType.PUT, path, summary, true, handler);
        }

        public Group patch(String path, String summary, Handler handler) {
            return add(HandlerType.PATCH, path, summary, true, handler);
        }

        private Group add(HandlerType method, String path, String summary, boolean body, Handler handler) {
            all.add(new Route(method, path, tag, summary, body, OptionalLong.empty(), handler));
            return this;
        }
    }
}
