package dev.arbor.platform.http;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One logfmt line per request on stderr: time, method, path (never the query, which may hold secrets), status,
 * duration and request id. Lines are queued and written in batches by one thread, so that a slow terminal never
 * holds a request up; when the queue is full a line is dropped and counted rather than waited for.
 */
final class AccessLog implements AutoCloseable {
    private static final int QUEUE = 16_384;

    private final BlockingQueue<String> lines = new ArrayBlockingQueue<>(QUEUE);
    private final AtomicLong dropped = new AtomicLong();
    private final OutputStream out;
    private final boolean enabled;
    private final Thread writer;
    private volatile boolean closed;

    AccessLog(boolean enabled) {
        this(enabled, new FileOutputStream(FileDescriptor.err));
    }

    AccessLog(boolean enabled, OutputStream out) {
        this.enabled = enabled;
        this.out = out;
        this.writer = Thread.ofPlatform().daemon().name("arbor-access-log").unstarted(this::drain);
        if (enabled) {
            writer.start();
        }
    }

    /** Whether {@code ARBOR_LOG_LEVEL} lets request lines through (they are INFO lines). */
    static boolean enabledFor(String level) {
        return level == null || level.isBlank() || switch (level.trim().toUpperCase(java.util.Locale.ROOT)) {
            case "TRACE", "DEBUG", "INFO", "ALL" -> true;
            default -> false;
        };
    }

    void request(String method, String path, int status, long nanos, String requestId) {
        if (!enabled) {
            return;
        }
        var line = new StringBuilder(160)
                .append(Instant.now()).append(" INFO  access method=").append(method)
                .append(" path=").append(path.indexOf(' ') >= 0 || path.indexOf('"') >= 0 ? quoted(path) : path)
                .append(" status=").append(status)
                .append(" duration_ms=").append(nanos / 10_000 / 100.0)
                .append(" request_id=").append(requestId)
                .append('\n');
        if (!lines.offer(line.toString())) {
            dropped.incrementAndGet();
        }
    }

    long dropped() {
        return dropped.get();
    }

    private static String quoted(String text) {
        return '"' + text.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    private void drain() {
        List<String> batch = new ArrayList<>(256);
        while (!closed || !lines.isEmpty()) {
            try {
                String first = lines.poll(200, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                lines.drainTo(batch, 1023);
                var text = new StringBuilder(batch.size() * 120);
                batch.forEach(text::append);
                batch.clear();
                long lost = dropped.getAndSet(0);
                if (lost > 0) {
                    text.append(Instant.now()).append(" WARN  access dropped=").append(lost)
                            .append(" (the log could not keep up)\n");
                }
                out.write(text.toString().getBytes(StandardCharsets.UTF_8));
                out.flush();
            } catch (InterruptedException e) {
                closed = true;
            } catch (IOException e) {
                // stderr is gone; nothing sensible is left to report the failure to
            }
        }
    }

    /** Writes what is queued, then stops. */
    @Override
    public void close() {
        closed = true;
        if (enabled) {
            try {
                writer.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
