package dev.arbor.platform.http;

import dev.arbor.platform.json.Json;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * One server-sent event stream: events as JSON, a comment now and then while nothing happens (so that proxies keep
 * it and a client that went away is noticed), and {@code event: end} when what it follows ends. A write to a client
 * that went away throws {@link IOException}.
 */
public final class EventStream {
    private static final long KEEP_ALIVE_MILLIS = 15_000;

    private final EventStreams streams;
    private final OutputStream out;
    private long lastFlush = System.currentTimeMillis();

    EventStream(EventStreams streams, OutputStream out) {
        this.streams = streams;
        this.out = out;
    }

    /** False once the server stops: the route should return. */
    public boolean open() {
        return streams.open();
    }

    /** An event with an id a reconnecting client sends back ({@code Last-Event-ID}); sent at the next flush. */
    public void send(long id, String event, Object data) throws IOException {
        write("id: " + id + "\n");
        send(event, data);
    }

    /** An event; sent at the next flush. */
    public void send(String event, Object data) throws IOException {
        write("event: " + event + "\ndata: " + Json.writeString(data) + "\n\n");
    }

    public void flush() throws IOException {
        out.flush();
        lastFlush = System.currentTimeMillis();
    }

    /** Sends a comment when nothing went out for a while. */
    public void keepAlive() throws IOException {
        if (System.currentTimeMillis() - lastFlush > KEEP_ALIVE_MILLIS) {
            write(": keep-alive\n\n");
            flush();
        }
    }

    /** The last event: what the stream followed has ended. */
    public void end() throws IOException {
        write("event: end\ndata: {}\n\n");
        flush();
    }

    private void write(String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.UTF_8));
    }
}
