package dev.arbor.platform.http.server;

import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Properties;

/**
 * The API reference at {@code /docs/api}: Swagger UI, shipped in the jar (the {@code org.webjars:swagger-ui} webjar,
 * no CDN), over {@code /openapi.json}. Only the files the page loads are served, each with its own content type, at
 * {@code /docs/api/<file>}.
 */
final class ApiDocs {
    private static final String WEBJAR = "META-INF/resources/webjars/swagger-ui/";
    /** Our page and its script, then Swagger UI's files, by the name the page asks for. */
    private static final Map<String, String> TYPES = Map.of(
            "arbor-docs.js", "text/javascript; charset=utf-8",
            "swagger-ui-bundle.js", "text/javascript; charset=utf-8",
            "swagger-ui.css", "text/css; charset=utf-8",
            "favicon-32x32.png", "image/png");
    /** Swagger UI sets styles inline and draws its icons from data URLs; everything else comes from this server. */
    private static final String POLICY =
            "default-src 'self'; style-src 'self' 'unsafe-inline'; " + "img-src 'self' data:; frame-ancestors 'none'";

    private final String webjarFolder;

    ApiDocs() {
        this.webjarFolder = WEBJAR + webjarVersion() + "/";
    }

    void page(Context ctx) {
        send(ctx, "docs/api.html", "text/html; charset=utf-8");
    }

    void asset(Context ctx) {
        String name = ctx.pathParam("asset");
        String type = TYPES.get(name);
        if (type == null) {
            throw ApiException.of(ErrorCode.NOT_FOUND, "There is no file " + name + " in the API reference.");
        }
        send(ctx, name.startsWith("arbor-") ? "docs/" + name : webjarFolder + name, type);
    }

    private static void send(Context ctx, String resource, String type) {
        InputStream in = ApiDocs.class.getClassLoader().getResourceAsStream(resource);
        if (in == null) {
            throw new IllegalStateException(resource + " is missing from the jar");
        }
        ctx.header("Content-Security-Policy", POLICY);
        ctx.contentType(type);
        ctx.result(in);
    }

    private static String webjarVersion() {
        try (InputStream in = ApiDocs.class
                .getClassLoader()
                .getResourceAsStream("META-INF/maven/org.webjars/swagger-ui/pom.properties")) {
            if (in == null) {
                throw new IllegalStateException("the swagger-ui webjar is missing from the jar");
            }
            var properties = new Properties();
            properties.load(in);
            return properties.getProperty("version");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
