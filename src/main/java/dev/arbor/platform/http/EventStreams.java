package dev.arbor.platform.http;

import io.javalin.http.Context;
import java.io.IOException;

/**
 * The server's server-sent event streams (long work followed as it happens): each route opens its stream here, and
 * {@link #stop} ends them all, so that a stopping server is not held by them.
 */
public final class EventStreams {
    private volatile boolean open = true;

    /** Answers the request with a stream of events (200, {@code text/event-stream}, never cached). */
    public EventStream open(Context ctx) throws IOException {
        var response = ctx.res();
        response.setStatus(200);
        response.setContentType("text/event-stream; charset=utf-8");
        response.setHeader("cache-control", "no-store");
        return new EventStream(this, response.getOutputStream());
    }

    boolean open() {
        return open;
    }

    /** Ends every stream at its next look; streams opened from now on end at once. */
    public void stop() {
        open = false;
    }
}
