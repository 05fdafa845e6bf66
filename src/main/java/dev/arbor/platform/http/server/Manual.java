package dev.arbor.platform.http.server;

import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.commonmark.Extension;
import org.commonmark.ext.gfm.tables.TablesExtension;
import org.commonmark.ext.heading.anchor.HeadingAnchorExtension;
import org.commonmark.node.AbstractVisitor;
import org.commonmark.node.Heading;
import org.commonmark.node.Image;
import org.commonmark.node.Link;
import org.commonmark.node.Node;
import org.commonmark.node.Text;
import org.commonmark.parser.Parser;
import org.commonmark.renderer.html.HtmlRenderer;

/**
 * The manual at {@code /docs}: the repository's {@code docs/} pages and its README, packaged in the jar (so a server
 * serves the manual of its own version) and rendered from Markdown to HTML once each, in the console's style. A page's
 * relative links to other pages ({@code operations/backup.md#restore}) are written for GitHub and turned into this
 * server's addresses ({@code /docs/operations/backup#restore}), so one source works in both places. Only names of
 * letters, digits and hyphens are looked up: a path that is anything else is not a page.
 */
final class Manual {
    private static final String FOLDER = "manual/";
    /** A page's name, and a folder's: never a dot or a slash, so a name cannot leave the manual's folder. */
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}");

    private static final Pattern PICTURE = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}\\.png");
    /** The address of the README, which links to the pages of {@code docs/} as they sit beside it. */
    static final String README = "readme";
    /** The console's own styles, then what a page of prose needs beyond them, by their address. */
    private static final Map<String, String> STYLES =
            Map.of("console.css", FOLDER + "styles.css", "manual.css", "docs/manual.css");
    /** Only this server's styles and pictures; no script, no form, no framing. */
    private static final String POLICY = "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; "
            + "form-action 'none'; frame-ancestors 'none'";

    private static final List<Extension> EXTENSIONS =
            List.of(TablesExtension.create(), HeadingAnchorExtension.create());

    private final ClassLoader resources = Manual.class.getClassLoader();
    private final Parser parser = Parser.builder().extensions(EXTENSIONS).build();
    private final HtmlRenderer renderer = HtmlRenderer.builder()
            .extensions(EXTENSIONS)
            .escapeHtml(true)
            .sanitizeUrls(true)
            .build();
    /** Pages as HTML, by their source's path in the repository; the jar's pages never change while it runs. */
    private final Map<String, String> rendered = new ConcurrentHashMap<>();

    /** {@code /docs}: the table of contents, {@code docs/README.md}. */
    void index(Context ctx) {
        page(ctx, "docs/README.md");
    }

    /** {@code /docs/{page}}: a page of {@code docs/}, the README, a picture or a style sheet. */
    void page(Context ctx) {
        String name = ctx.pathParam("page");
        if (name.equals(README)) {
            page(ctx, "README.md");
        } else if (STYLES.containsKey(name)) {
            send(ctx, STYLES.get(name), "text/css; charset=utf-8");
        } else if (PICTURE.matcher(name).matches()) {
            send(ctx, FOLDER + "docs/" + name, "image/png");
        } else if (NAME.matcher(name).matches()) {
            page(ctx, "docs/" + name + ".md");
        } else {
            throw notFound(ctx);
        }
    }

    /** {@code /docs/{section}/{page}}: a page of a folder of {@code docs/} ({@code operations/backup}). */
    void sectionPage(Context ctx) {
        String section = ctx.pathParam("section");
        String name = ctx.pathParam("page");
        if (!NAME.matcher(section).matches() || !NAME.matcher(name).matches()) {
            throw notFound(ctx);
        }
        page(ctx, "docs/" + section + "/" + name + ".md");
    }

    private void page(Context ctx, String source) {
        String html = rendered.computeIfAbsent(source, this::render);
        if (html.isEmpty()) {
            throw notFound(ctx);
        }
        ctx.header("Content-Security-Policy", POLICY);
        ctx.header("Cache-Control", "no-cache");
        ctx.contentType("text/html; charset=utf-8");
        ctx.result(html);
    }

    /** The page as HTML, or empty when the jar has no such page (remembered too: the jar does not change). */
    private String render(String source) {
        Optional<String> markdown = read(FOLDER + source);
        if (markdown.isEmpty()) {
            return "";
        }
        Node document = parser.parse(markdown.get());
        document.accept(new AbstractVisitor() {
            @Override
            public void visit(Link link) {
                link.setDestination(served(source, link.getDestination()));
                visitChildren(link);
            }

            @Override
            public void visit(Image image) {
                image.setDestination(served(source, image.getDestination()));
                visitChildren(image);
            }
        });
        return frame(title(document), renderer.render(document));
    }

    /** The text of the page's first heading. */
    private static String title(Node document) {
        for (Node node = document.getFirstChild(); node != null; node = node.getNext()) {
            if (node instanceof Heading heading) {
                var text = new StringBuilder();
                heading.accept(new AbstractVisitor() {
                    @Override
                    public void visit(Text part) {
                        text.append(part.getLiteral());
                    }

                    @Override
                    public void visit(org.commonmark.node.Code part) {
                        text.append(part.getLiteral());
                    }
                });
                return text.toString();
            }
        }
        return "Arbor";
    }

    /**
     * Where a link of the page at {@code source} (a path in the repository) leads on this server: a relative link to
     * the README or to a file of {@code docs/} becomes its address under {@code /docs}; any other link is kept.
     */
    static String served(String source, String destination) {
        URI link;
        try {
            link = URI.create(destination);
        } catch (IllegalArgumentException e) {
            return destination;
        }
        if (link.isAbsolute()
                || link.getRawPath() == null
                || link.getRawPath().isEmpty()
                || destination.startsWith("/")) {
            return destination; // another site, this page's own anchor, or an address of this server
        }
        String path = URI.create("file:///repository/")
                .resolve(source)
                .resolve(link.getRawPath())
                .getPath();
        if (!path.startsWith("/repository/")) {
            return destination;
        }
        String inRepository = path.substring("/repository/".length());
        String fragment = link.getRawFragment() == null ? "" : "#" + link.getRawFragment();
        if (inRepository.equals("README.md")) {
            return "/docs/" + README + fragment;
        }
        if (inRepository.equals("docs/README.md") || inRepository.equals("docs/")) {
            return "/docs" + fragment;
        }
        if (inRepository.startsWith("docs/") && inRepository.endsWith(".md")) {
            return "/" + inRepository.substring(0, inRepository.length() - ".md".length()) + fragment;
        }
        if (inRepository.startsWith("docs/") && inRepository.endsWith(".png")) {
            return "/" + inRepository;
        }
        return destination;
    }

    private void send(Context ctx, String resource, String type) {
        InputStream in = resources.getResourceAsStream(resource);
        if (in == null) {
            throw notFound(ctx);
        }
        ctx.header("Content-Security-Policy", POLICY);
        ctx.contentType(type);
        ctx.result(in);
    }

    private Optional<String> read(String resource) {
        try (InputStream in = resources.getResourceAsStream(resource)) {
            return in == null ? Optional.empty() : Optional.of(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ApiException notFound(Context ctx) {
        return ApiException.of(
                ErrorCode.NOT_FOUND,
                null,
                "The manual has no page " + ctx.path() + "; its table of contents is at /docs, the API reference at "
                        + "/docs/api.");
    }

    /** A page in its frame: the console's header, with the manual's and the API reference's links. */
    private static String frame(String title, String body) {
        return """
                <!doctype html>
                <html lang="en">
                <head>
                <meta charset="utf-8">
                <meta name="viewport" content="width=device-width, initial-scale=1">
                <title>%s · Arbor</title>
                <link rel="stylesheet" href="/docs/console.css">
                <link rel="stylesheet" href="/docs/manual.css">
                </head>
                <body>
                <a class="skip" href="#page">Skip to the page</a>
                <header>
                <span class="brand">Arbor</span>
                <nav aria-label="Manual"><ul>
                <li><a href="/docs">Manual</a></li>
                <li><a href="/docs/api">API reference</a></li>
                <li><a href="/console">Console</a></li>
                </ul></nav>
                </header>
                <main id="page" class="manual">
                %s</main>
                </body>
                </html>
                """.formatted(title.replace("&", "&amp;").replace("<", "&lt;"), body);
    }
}
