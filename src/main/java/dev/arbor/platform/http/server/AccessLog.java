package dev.arbor.platform.http.server;

import dev.arbor.platform.http.Access;
import dev.arbor.platform.logging.JsonLogEncoder;
import dev.arbor.platform.logging.LogFormat;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One line per request on stderr, logfmt or JSON ({@code ARBOR_LOG_FORMAT}): time, method, path (never the query,
 * which may hold secrets, and a webhook URL's token masked), status, duration, request id and, when the request was
 * traced, its trace id. A request only queues its facts; one thread formats and writes them in batches a few
 * times a second, so that neither formatting nor a slow terminal holds a request up, and no request pays for waking
 * a writer. When the queue is full a line is dropped and counted rather than waited for.
 */
final class AccessLog implements AutoCloseable {
    private static final int QUEUE = 65_536;
    private static final long WRITE_EVERY_MILLIS = 100;

    private final BlockingQueue<Line> lines = new ArrayBlockingQueue<>(QUEUE);
    private final AtomicLong dropped = new AtomicLong();
    private final OutputStream out;
    private final boolean enabled;
    private final LogFormat format;
    private final Thread writer;
    private volatile boolean closed;

    AccessLog(boolean enabled, LogFormat format) {
        this(enabled, format, new FileOutputStream(FileDescriptor.err));
    }

    AccessLog(boolean enabled, LogFormat format, OutputStream out) {
        this.enabled = enabled;
        this.format = format;
        this.out = out;
        this.writer = Thread.ofPlatform().daemon().name("arbor-access-log").unstarted(this::drain);
    }

    /** Starts the thread that writes the lines, when lines are written at all. */
    void start() {
        if (enabled) {
            writer.start();
        }
    }

    /** Whether {@code ARBOR_LOG_LEVEL} lets request lines through (they are INFO lines). */
    static boolean enabledFor(String level) {
        return level == null
                || level.isBlank()
                || switch (level.trim().toUpperCase(java.util.Locale.ROOT)) {
                    case "TRACE", "DEBUG", "INFO", "ALL" -> true;
                    default -> false;
                };
    }

    /** Queues a request's line; a path that carries a credential (a webhook token) is masked. */
    void request(String method, String path, int status, long nanos, String requestId, Optional<String> traceId) {
        if (enabled
                && !lines.offer(new Line(
                        System.currentTimeMillis(),
                        method,
                        Access.loggable(path),
                        status,
                        nanos,
                        requestId,
                        traceId))) {
            dropped.incrementAndGet();
        }
    }

    private record Line(
            long atMillis,
            String method,
            String path,
            int status,
            long nanos,
            String requestId,
            Optional<String> traceId) {
        void appendTo(StringBuilder text, LogFormat format) {
            if (format == LogFormat.JSON) {
                var context = new HashMap<String, String>();
                context.put("request_id", requestId);
                traceId.ifPresent(id -> context.put("trace_id", id));
                var fields = new LinkedHashMap<String, Object>();
                fields.put("method", method);
                fields.put("path", path);
                fields.put("status", status);
                fields.put("duration_ms", nanos / 10_000 / 100.0);
                text.append(new String(
                        JsonLogEncoder.line(
                                Instant.ofEpochMilli(atMillis),
                                "INFO",
                                "access",
                                method + " " + path + " " + status,
                                context,
                                null,
                                fields),
                        StandardCharsets.UTF_8));
                return;
            }
            text.append(Instant.ofEpochMilli(atMillis))
                    .append(" INFO  access method=")
                    .append(method)
                    .append(" path=")
                    .append(path.indexOf(' ') >= 0 || path.indexOf('"') >= 0 ? quoted(path) : path)
                    .append(" status=")
                    .append(status)
                    .append(" duration_ms=")
                    .append(nanos / 10_000 / 100.0)
                    .append(" request_id=")
                    .append(requestId);
            traceId.ifPresent(id -> text.append(" trace_id=").append(id));
            text.append('\n');
        }
    }

    static String quoted(String text) {
        return '"' + text.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    private void drain() {
        List<Line> batch = new ArrayList<>(1024);
        var text = new StringBuilder(64 * 1024);
        boolean last = false;
        while (!last) {
            last = closed;
            if (!last) {
                try {
                    Thread.sleep(WRITE_EVERY_MILLIS);
                } catch (InterruptedException e) {
                    last = true;
                }
            }
            while (lines.drainTo(batch, 4096) > 0) {
                batch.forEach(line -> line.appendTo(text, format));
                batch.clear();
                write(text);
            }
            long lost = dropped.getAndSet(0);
            if (lost > 0 && format == LogFormat.JSON) {
                text.append(new String(
                        JsonLogEncoder.line(
                                Instant.now(),
                                "WARN",
                                "access",
                                "the log could not keep up",
                                Map.of(),
                                null,
                                Map.of("dropped", lost)),
                        StandardCharsets.UTF_8));
                write(text);
            } else if (lost > 0) {
                text.append(Instant.now())
                        .append(" WARN  access dropped=")
                        .append(lost)
                        .append(" (the log could not keep up)\n");
                write(text);
            }
        }
    }

    private void write(StringBuilder text) {
        try {
            out.write(text.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
        } catch (IOException e) {
            // stderr is gone; nothing sensible is left to report the failure to
        }
        text.setLength(0);
    }

    /** Writes what is queued, then stops. */
    @Override
    public void close() {
        closed = true;
        if (enabled) {
            writer.interrupt();
            try {
                writer.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
