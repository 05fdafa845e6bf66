package common;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;

/**
 * A keep-alive HTTP/1.1 connection on the loopback: one request at a time, Content-Length or chunked answers. Benches
 * use it where {@code HttpClient}'s own cost would blur what they measure, or to hold many connections open.
 */
public final class KeepAliveConnection implements AutoCloseable {
    public record Response(int status, String body) {}

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;
    private final String host;

    /** Connects to {@code port}; a read waits at most {@code readTimeoutMillis} for the server. */
    public KeepAliveConnection(int port, int readTimeoutMillis) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 30_000);
        socket.setSoTimeout(readTimeoutMillis);
        socket.setTcpNoDelay(true);
        out = socket.getOutputStream();
        in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
        host = "127.0.0.1:" + port;
    }

    /**
     * Sends a request with these headers ({@code body} as JSON, none when null) and reads the whole answer; an
     * answer that closes the connection is an {@link IOException}, as the connection is of no further use.
     */
    public Response send(String method, String path, String body, Map<String, String> headers) throws IOException {
        byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        var request = new StringBuilder(method)
                .append(' ')
                .append(path)
                .append(" HTTP/1.1\r\nHost: ")
                .append(host)
                .append("\r\n");
        headers.forEach(
                (name, value) -> request.append(name).append(": ").append(value).append("\r\n"));
        if (body != null) {
            request.append("Content-Type: application/json\r\nContent-Length: ")
                    .append(content.length)
                    .append("\r\n");
        }
        request.append("\r\n");
        out.write(request.toString().getBytes(StandardCharsets.US_ASCII));
        out.write(content);
        out.flush();
        String statusLine = line();
        if (!statusLine.startsWith("HTTP/1.1 ")) {
            throw new IOException("not an HTTP answer: " + statusLine);
        }
        int status = Integer.parseInt(statusLine.substring(9, 12));
        long length = -1;
        boolean chunked = false;
        boolean closing = false;
        for (String header = line(); !header.isEmpty(); header = line()) {
            String lower = header.toLowerCase(Locale.ROOT);
            if (lower.startsWith("content-length:")) {
                length = Long.parseLong(lower.substring(15).trim());
            } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                chunked = true;
            } else if (lower.startsWith("connection:") && lower.contains("close")) {
                closing = true;
            }
        }
        var received = new ByteArrayOutputStream();
        if (chunked) {
            for (long size = chunkSize(); size > 0; size = chunkSize()) {
                received.write(in.readNBytes((int) size));
                line();
            }
            while (!line().isEmpty()) {} // trailers
        } else if (length > 0) {
            received.write(in.readNBytes((int) length));
        }
        if (closing) {
            throw new IOException("the server closed the connection (status " + status + ")");
        }
        return new Response(status, received.toString(StandardCharsets.UTF_8));
    }

    private long chunkSize() throws IOException {
        String size = line();
        int extension = size.indexOf(';');
        return Long.parseLong((extension < 0 ? size : size.substring(0, extension)).trim(), 16);
    }

    private String line() throws IOException {
        var line = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new IOException("connection closed by the server");
            }
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing a connection that already failed
        }
    }
}
