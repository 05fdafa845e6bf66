package dev.arbor.models.workers;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * How the server and a worker talk over the worker's Unix socket: each message is a four-byte big-endian length,
 * then that many bytes of UTF-8 JSON; one request, then its reply, on a connection at a time. No HTTP: a frame is
 * read and answered by the thread that waits on the connection, with no parsing of headers and no hand-off.
 */
final class WorkerWire {
    /** Media travel inside requests (up to 200 MB each); a length past this is a broken stream, not a request. */
    static final int MAX_FRAME = 1 << 30;

    private WorkerWire() {}

    static void write(SocketChannel channel, byte[] message) throws IOException {
        ByteBuffer frame = ByteBuffer.allocate(4 + message.length)
                .putInt(message.length)
                .put(message)
                .flip();
        while (frame.hasRemaining()) {
            channel.write(frame);
        }
    }

    /** The next message; {@link EOFException} when the other end closed the connection. */
    static byte[] read(SocketChannel channel) throws IOException {
        ByteBuffer length = ByteBuffer.allocate(4);
        fill(channel, length);
        int size = length.flip().getInt();
        if (size < 0 || size > MAX_FRAME) {
            throw new IOException("a frame of " + size + " bytes is not a message of this protocol");
        }
        ByteBuffer message = ByteBuffer.allocate(size);
        fill(channel, message);
        return message.array();
    }

    private static void fill(SocketChannel channel, ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            if (channel.read(buffer) < 0) {
                throw new EOFException("the connection closed");
            }
        }
    }
}
