package dev.arbor.console;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import io.javalin.http.Context;
import java.io.InputStream;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The web console: a single page built from {@code console/} by the Maven build (Vite) into the jar's
 * {@code console/} folder, served at {@code /console}. Its paths are public (the page asks for a token itself);
 * every path under it (one or two parts deep) that is not an asset is one of the page's own routes and gets the page.
 */
public final class Console {
    private static final String FOLDER = "console/";
    /** Vite names every asset with a hash of its content, in one flat folder: such a name is never reused. */
    private static final Pattern ASSET = Pattern.compile("assets/[A-Za-z0-9_-]+(?:\\.[A-Za-z0-9_-]+)*\\.([a-z0-9]+)");

    private static final Map<String, String> TYPES = Map.of(
            "js", "text/javascript; charset=utf-8",
            "css", "text/css; charset=utf-8",
            "svg", "image/svg+xml",
            "png", "image/png",
            "woff2", "font/woff2");
    /**
     * Only this server's own files run or style the page, and it talks only to this server; no inline script, no
     * eval, no framing (clickjacking), no plugins, and no base or form target elsewhere.
     */
    static final String POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

    private final ClassLoader resources;

    public Console() {
        this.resources = Console.class.getClassLoader();
    }

    public void addTo(Routes routes) {
        requireNonNull(routes, "routes");
        routes.group("console")
                .get("/", "The web console's address: redirects to /console", this::redirect)
                .answers(302, "text/plain", Schema.string())
                .get("/console", "The web console (a page; it signs in with a token itself)", this::page)
                .answers(200, "text/html", Schema.string())
                .get("/console/{page}", "A page of the web console", this::page)
                .answers(200, "text/html", Schema.string())
                .get("/console/{section}/{item}", "A file of the web console, or one of its pages", this::fileOrPage)
                .answers(200, "text/html", Schema.string())
                .answers(200, "text/javascript", Schema.string())
                .answers(200, "text/css", Schema.string())
                .answers(200, "image/svg+xml", Schema.string());
    }

    private void redirect(Context ctx) {
        ctx.redirect("/console");
    }

    private void page(Context ctx) {
        // the page names its assets by hash: a new build is seen on the next load
        send(ctx, FOLDER + "index.html", "text/html; charset=utf-8", "no-cache");
    }

    /** Assets are {@code /console/assets/<name>}; any other two-part path is a page ({@code /console/agents/x}). */
    private void fileOrPage(Context ctx) {
        if (!ctx.pathParam("section").equals("assets")) {
            page(ctx);
            return;
        }
        String path = "assets/" + ctx.pathParam("item");
        var asset = ASSET.matcher(path);
        String type = asset.matches() ? TYPES.get(asset.group(1)) : null;
        if (type == null || resources.getResource(FOLDER + path) == null) {
            throw ApiException.of(ErrorCode.NOT_FOUND, "There is no file " + path + " in the console.");
        }
        send(ctx, FOLDER + path, type, "public, max-age=31536000, immutable");
    }

    private void send(Context ctx, String resource, String type, String cacheControl) {
        InputStream in = resources.getResourceAsStream(resource);
        if (in == null) {
            throw ApiException.of(
                    ErrorCode.NOT_FOUND,
                    "This server was built without its console (the build makes it with Node.js and npm).");
        }
        ctx.header("Content-Security-Policy", POLICY);
        ctx.header("Referrer-Policy", "same-origin");
        ctx.header("Cache-Control", cacheControl);
        ctx.contentType(type);
        ctx.result(in);
    }
}
