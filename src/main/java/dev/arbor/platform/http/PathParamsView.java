package dev.arbor.platform.http;

import io.javalin.config.Key;
import io.javalin.http.Context;
import io.javalin.json.JsonMapper;
import io.javalin.plugin.ContextPlugin;
import io.javalin.router.Endpoint;
import io.javalin.router.Endpoints;
import io.javalin.security.RouteRole;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.InputStream;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The request as a read at another path sees it: its own path parameters replaced; the rest is the request's. A
 * subclass may keep the read's answer apart from the request's.
 */
public class PathParamsView implements Context {
    private final Context request;
    private final Map<String, String> params;

    public PathParamsView(Context request, Map<String, String> params) {
        this.request = java.util.Objects.requireNonNull(request, "request");
        this.params = Map.copyOf(params);
    }

    @Override
    public String pathParam(String name) {
        String value = params.get(name);
        if (value == null) {
            throw new IllegalArgumentException("no path parameter " + name + " in " + params.keySet());
        }
        return value;
    }

    @Override
    public Map<String, String> pathParamMap() {
        return params;
    }

    @Override
    public HttpServletRequest req() {
        return request.req();
    }

    @Override
    public HttpServletResponse res() {
        return request.res();
    }

    @Override
    public Endpoints endpoints() {
        return request.endpoints();
    }

    @Override
    public Endpoint endpoint() {
        return request.endpoint();
    }

    @Override
    public <T> T appData(Key<T> key) {
        return request.appData(key);
    }

    @Override
    public JsonMapper jsonMapper() {
        return request.jsonMapper();
    }

    @Override
    public <T> T with(Class<? extends ContextPlugin<?, T>> plugin) {
        return request.with(plugin);
    }

    @Override
    public io.javalin.config.MultipartConfig multipartConfig() {
        return request.multipartConfig();
    }

    @Override
    public boolean strictContentTypes() {
        return request.strictContentTypes();
    }

    @Override
    public ServletOutputStream outputStream() {
        return request.outputStream();
    }

    @Override
    public Context minSizeForCompression(int bytes) {
        request.minSizeForCompression(bytes);
        return this;
    }

    @Override
    public Context result(InputStream body) {
        request.result(body);
        return this;
    }

    @Override
    public @Nullable InputStream resultInputStream() {
        return request.resultInputStream();
    }

    @Override
    public void future(Supplier<? extends CompletableFuture<?>> future) {
        request.future(future);
    }

    @Override
    public void redirect(String location, io.javalin.http.HttpStatus status) {
        request.redirect(location, status);
    }

    @Override
    public void writeJsonStream(Stream<?> stream) {
        request.writeJsonStream(stream);
    }

    @Override
    public Context skipRemainingHandlers() {
        request.skipRemainingHandlers();
        return this;
    }

    @Override
    public Set<RouteRole> routeRoles() {
        return request.routeRoles();
    }
}
