package dev.arbor.audit;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.http.PathParamsView;
import dev.arbor.platform.http.Route;
import dev.arbor.platform.json.Json;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * A resource's state as its read route shows it to the caller of a write, taken without touching the write's own
 * answer: the read runs on a view of the request whose path parameters name the resource and whose answer (status,
 * headers, body) is kept apart. Empty when the read does not answer 200 with a JSON object (the resource is not there,
 * or the caller may not see it).
 */
final class Snapshot extends PathParamsView {
    private int status = 200;
    private byte[] body = new byte[0];

    private Snapshot(Context request, Map<String, String> params) {
        super(request, params);
    }

    static Optional<JsonNode> take(Route read, Context request, Map<String, String> params) {
        var view = new Snapshot(requireNonNull(request, "request"), params);
        try {
            read.handler().handle(view);
        } catch (Exception e) {
            return Optional.empty(); // gone, not the caller's to see, or not readable: no state to show
        }
        if (view.status != 200 || view.body.length == 0) {
            return Optional.empty();
        }
        try {
            JsonNode state = Json.mapper().readTree(view.body);
            return state != null && state.isObject() ? Optional.of(state) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    @Override
    public Context status(int code) {
        this.status = code;
        return this;
    }

    @Override
    public Context status(HttpStatus code) {
        return status(code.getCode());
    }

    @Override
    public HttpStatus status() {
        return HttpStatus.forStatus(status);
    }

    @Override
    public int statusCode() {
        return status;
    }

    @Override
    public Context header(String name, String value) {
        return this;
    }

    @Override
    public Context contentType(String contentType) {
        return this;
    }

    @Override
    public Context result(InputStream stream) {
        try (stream) {
            this.body = stream.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    @Override
    public InputStream resultInputStream() {
        return new ByteArrayInputStream(body);
    }

    @Override
    public HttpServletResponse res() {
        throw new UnsupportedOperationException("a snapshot's read answers through its context only");
    }

    @Override
    public ServletOutputStream outputStream() {
        throw new UnsupportedOperationException("a snapshot's read answers JSON only");
    }

    @Override
    public Context minSizeForCompression(int bytes) {
        return this;
    }

    @Override
    public void future(Supplier<? extends CompletableFuture<?>> future) {
        throw new UnsupportedOperationException("a snapshot's read answers at once");
    }

    @Override
    public void redirect(String location, HttpStatus status) {
        throw new UnsupportedOperationException("a snapshot's read does not redirect");
    }

    @Override
    public void writeJsonStream(Stream<?> stream) {
        throw new UnsupportedOperationException("a snapshot's read answers one JSON object");
    }

    @Override
    public Context skipRemainingHandlers() {
        return this;
    }
}
