package dev.arbor.platform.http.server;

import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import java.io.IOException;
import java.io.InputStream;

/**
 * What a client still sends of a body its route never read: a request refused before its body (a 401, a 404, a
 * conflict) is answered while the body is still arriving. Closing a connection with bytes unread makes the kernel
 * reset it, and a reset can destroy the answer before the client has read it (the JDK client then reports that it
 * received no bytes), so the rest is read and dropped before the answer is written, and the connection stays open for
 * the next request. A body refused for its size is not read on: the answer says {@code Connection: close}.
 */
final class UnreadBody {
    private static final int CHUNK = 64 * 1024;

    private UnreadBody() {}

    static void drain(Context ctx, long limit) {
        if (!mayHaveBody(ctx) || "close".equalsIgnoreCase(ctx.res().getHeader("Connection"))) {
            return;
        }
        if (ctx.statusCode() == HttpStatus.CONTENT_TOO_LARGE.getCode()) {
            closeAfterAnswer(ctx);
            return;
        }
        // the client waits for 100 Continue before it sends the body: none is asked for, none arrives
        if ("100-continue".equalsIgnoreCase(ctx.header("Expect"))) {
            return;
        }
        try {
            InputStream in = ctx.req().getInputStream();
            // most bodies were read by their route: one byte's read finds the end without a buffer for every request
            if (in.read() < 0) {
                return;
            }
            byte[] dropped = new byte[CHUNK];
            long read = 1;
            for (int n; (n = in.read(dropped)) >= 0; ) {
                read += n;
                if (read > limit) {
                    closeAfterAnswer(ctx);
                    return;
                }
            }
        } catch (IOException | RuntimeException e) {
            // the body ended early or the connection broke: it cannot carry another request
            closeAfterAnswer(ctx);
        }
    }

    private static boolean mayHaveBody(Context ctx) {
        return ctx.req().getContentLengthLong() > 0 || ctx.header("Transfer-Encoding") != null;
    }

    private static void closeAfterAnswer(Context ctx) {
        if (!ctx.res().isCommitted()) {
            ctx.header("Connection", "close");
        }
    }
}
