package dev.arbor.inference.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.json.Json;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;

/**
 * Passes an endpoint's server-sent events on as they arrive: every complete event is written out at once, a JSON
 * {@code data} line with {@code model} replaced by the caller's name for it (and its {@code usage} read), anything
 * else ({@code [DONE]}, comments, other fields) as it came. Only an event's unfinished tail waits for more bytes.
 * With a {@link StreamEdit}, each chunk goes through it first, and what it held back goes out before {@code [DONE]}
 * (or the stream's end).
 *
 * <p>It judges the stream as it passes: a {@code data} line that is neither a JSON object nor {@code [DONE]}, or an
 * event that is an error ({@code {"error": ...}}), is a {@link #failure()}, and neither it nor anything after it is
 * written: the caller is told with an error event of ours. A stream is {@link #complete()} once {@code [DONE]} came,
 * or a choice's {@code finish_reason}.
 */
public final class SseRelay {
    private final byte[] quotedModel;
    private final String model;
    private final Optional<StreamEdit> edit;
    private byte[] pending = new byte[8192];
    private int length;
    private TopLevel.Usage usage = TopLevel.Usage.NONE;
    private Optional<ObjectNode> lastChunk = Optional.empty();
    private boolean ended;
    private boolean done;
    private boolean finished;
    private int chunks;
    private Optional<String> failure = Optional.empty();

    public SseRelay(byte[] quotedModel, String model, Optional<StreamEdit> edit) {
        this.quotedModel = quotedModel;
        this.model = model;
        this.edit = edit.map(StreamEdit::forAttempt);
    }

    /** The usage of the stream's last chunk that carried one. */
    public TopLevel.Usage usage() {
        return usage;
    }

    /** Whether {@code [DONE]} came, or a chunk with a {@code finish_reason}: the answer is all there. */
    public boolean complete() {
        return done || finished;
    }

    /** Whether {@code [DONE]} itself came. */
    public boolean done() {
        return done;
    }

    /** The chunks (JSON events) passed on so far. */
    public int chunks() {
        return chunks;
    }

    /** What was wrong with the stream (a malformed chunk, an error event), once something was. */
    public Optional<String> failure() {
        return failure;
    }

    /** Takes bytes read from the endpoint and writes out every event they complete; the caller flushes. */
    public void relay(byte[] bytes, int count, OutputStream out) throws IOException {
        if (length + count > pending.length) {
            pending = Arrays.copyOf(pending, Math.max(pending.length * 2, length + count));
        }
        System.arraycopy(bytes, 0, pending, length, count);
        length += count;
        int start = 0;
        for (int end = eventEnd(start); end > 0; end = eventEnd(start)) {
            writeEvent(start, end, out);
            start = end;
        }
        if (start > 0) {
            System.arraycopy(pending, start, pending, 0, length - start);
            length -= start;
        }
    }

    /** Writes what is left when the endpoint's stream ended: an event without its closing blank line. */
    public void finish(OutputStream out) throws IOException {
        if (length > 0) {
            writeEvent(0, length, out);
            length = 0;
        }
        endEdit(out);
    }

    /** Once per stream, before {@code [DONE]} or at the end: what the edit held back, and its comments. */
    private void endEdit(OutputStream out) throws IOException {
        if (edit.isEmpty() || ended || lastChunk.isEmpty()) {
            return;
        }
        ended = true;
        StreamEdit.Ending ending = edit.get().finish(lastChunk.get());
        if (ending.heldBack().isPresent()) {
            writeChunk(ending.heldBack().get(), out);
            out.write("\n\n".getBytes(StandardCharsets.US_ASCII));
        }
        for (String comment : ending.comments()) {
            out.write((": " + comment.replaceAll("[\\r\\n]", " ") + "\n\n").getBytes(StandardCharsets.UTF_8));
        }
    }

    private void writeChunk(ObjectNode chunk, OutputStream out) throws IOException {
        if (chunk.has("model")) {
            chunk.put("model", model);
        }
        out.write("data: ".getBytes(StandardCharsets.US_ASCII));
        out.write(Json.write(chunk));
    }

    /** Where the event that starts at {@code from} ends, after its blank line; 0 while it is incomplete. */
    private int eventEnd(int from) {
        for (int i = from; i < length - 1; i++) {
            if (pending[i] == '\n') {
                if (pending[i + 1] == '\n') {
                    return i + 2;
                }
                if (pending[i + 1] == '\r' && i + 2 < length && pending[i + 2] == '\n') {
                    return i + 3;
                }
            }
        }
        return 0;
    }

    private void writeEvent(int start, int end, OutputStream out) throws IOException {
        int line = start;
        while (line < end) {
            int next = line;
            while (next < end && pending[next] != '\n') {
                next++;
            }
            int lineEnd = next < end ? next + 1 : end; // the newline included
            writeLine(line, next, lineEnd, out);
            line = lineEnd;
        }
    }

    private void writeLine(int start, int contentEnd, int end, OutputStream out) throws IOException {
        if (failure.isPresent()) {
            return; // the stream ended for the caller: an error event of ours follows
        }
        int payload = dataPayload(start, contentEnd);
        if (payload < 0) {
            if (isDone(start, contentEnd)) {
                if (edit.isPresent()) {
                    endEdit(out);
                    edit.get().done();
                }
                done = true;
            } else if (isData(start, contentEnd)) {
                failure = Optional.of("a chunk that is not JSON");
                return;
            }
            out.write(pending, start, end - start);
            return;
        }
        int payloadEnd = contentEnd > payload && pending[contentEnd - 1] == '\r' ? contentEnd - 1 : contentEnd;
        TopLevel fields;
        try {
            fields = TopLevel.scan(pending, payload, payloadEnd - payload);
        } catch (TopLevel.NotAnObject e) {
            failure = Optional.of("a malformed chunk (" + e.getMessage() + ")");
            return;
        }
        if (fields.error().isPresent()) {
            failure = Optional.of("an error event: " + fields.error().get());
            return;
        }
        chunks++;
        finished |= fields.finished();
        if (!fields.usage().isEmpty()) {
            usage = fields.usage();
        }
        if (edit.isPresent() && edited(payload, payloadEnd, out)) {
            out.write(pending, payloadEnd, end - payloadEnd);
            return;
        }
        out.write(pending, start, payload - start);
        out.write(fields.withModel(pending, payload, payloadEnd - payload, quotedModel));
        out.write(pending, payloadEnd, end - payloadEnd);
    }

    /** Passes a chunk through the edit; whether it went out changed (else it goes out as it came). */
    private boolean edited(int payload, int payloadEnd, OutputStream out) throws IOException {
        JsonNode parsed;
        try {
            parsed = Json.mapper().readTree(pending, payload, payloadEnd - payload);
        } catch (IOException e) {
            return false; // not JSON after all: not ours to judge, as above
        }
        if (!(parsed instanceof ObjectNode chunk)) {
            return false;
        }
        lastChunk = Optional.of(chunk);
        ObjectNode result = edit.orElseThrow().chunk(chunk);
        if (result == chunk) {
            return false;
        }
        writeChunk(result, out);
        return true;
    }

    /** Whether a line is {@code data: [DONE]}. */
    private boolean isDone(int start, int end) {
        String line = new String(pending, start, end - start, StandardCharsets.US_ASCII).strip();
        return line.equals("data: [DONE]") || line.equals("data:[DONE]");
    }

    /** Whether a line is a {@code data:} line with something in it. */
    private boolean isData(int start, int end) {
        String line = new String(pending, start, end - start, StandardCharsets.US_ASCII).strip();
        return line.startsWith("data:") && line.length() > "data:".length();
    }

    /** Where a {@code data:} line's JSON object starts; -1 for any other line. */
    private int dataPayload(int start, int end) {
        if (end - start < 6
                || pending[start] != 'd'
                || pending[start + 1] != 'a'
                || pending[start + 2] != 't'
                || pending[start + 3] != 'a'
                || pending[start + 4] != ':') {
            return -1;
        }
        int payload = pending[start + 5] == ' ' ? start + 6 : start + 5;
        return payload < end && pending[payload] == '{' ? payload : -1;
    }
}
