package dev.arbor;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.commonmark.Extension;
import org.commonmark.ext.gfm.tables.TablesExtension;
import org.commonmark.ext.heading.anchor.HeadingAnchorExtension;
import org.commonmark.node.AbstractVisitor;
import org.commonmark.node.Image;
import org.commonmark.node.Link;
import org.commonmark.node.Node;
import org.commonmark.parser.Parser;
import org.commonmark.renderer.html.HtmlRenderer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The README and the manual in {@code docs/} link only to what is there: every relative link leads to a file of the
 * repository that the server serves too (the README or a file of {@code docs/}), and every {@code #anchor} to a
 * heading of that page, with the heading ids GitHub and the served pages give. And no page of the manual is an orphan.
 */
class DocsLinksTest {
    private static final List<Extension> EXTENSIONS =
            List.of(TablesExtension.create(), HeadingAnchorExtension.create());
    private static final Parser PARSER = Parser.builder().extensions(EXTENSIONS).build();
    private static final HtmlRenderer RENDERER =
            HtmlRenderer.builder().extensions(EXTENSIONS).build();
    private static final Pattern HEADING_ID = Pattern.compile("<h[1-6] id=\"([^\"]+)\"");
    private static final Path ROOT = Path.of("").toAbsolutePath();

    static Stream<Path> pages() throws IOException {
        try (Stream<Path> docs = Files.walk(Path.of("docs"))) {
            List<Path> all = new ArrayList<>(List.of(Path.of("README.md")));
            all.addAll(docs.filter(p -> p.toString().endsWith(".md")).sorted().toList());
            return all.stream();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pages")
    void everyRelativeLinkLeadsToAFileAndHeadingThatExist(Path page) throws IOException {
        var broken = new ArrayList<String>();
        for (String destination : links(page)) {
            URI link = URI.create(destination);
            if (link.isAbsolute() || destination.startsWith("/")) {
                assertThat(destination).as("%s links to another site", page).startsWith("https://");
                continue;
            }
            Path target = link.getPath().isEmpty()
                    ? page
                    : page.toAbsolutePath().getParent().resolve(link.getPath()).normalize();
            if (!Files.isRegularFile(target)) {
                broken.add(destination + ": no such file");
            } else if (!ROOT.relativize(target.toAbsolutePath()).toString().equals("README.md")
                    && !ROOT.relativize(target.toAbsolutePath()).startsWith("docs")) {
                broken.add(destination + ": outside README.md and docs/, which the server does not serve");
            } else if (link.getFragment() != null && !headingIds(target).contains(link.getFragment())) {
                broken.add(destination + ": " + target.getFileName() + " has no heading #" + link.getFragment());
            }
        }
        assertThat(broken).as("broken links in %s", page).isEmpty();
    }

    @Test
    void everyPageOfTheManualIsInBothTablesOfContents() throws IOException {
        List<String> fromIndex = links(Path.of("docs/README.md"));
        List<String> fromReadme = links(Path.of("README.md"));
        try (Stream<Path> docs = Files.walk(Path.of("docs"))) {
            for (Path page : docs.filter(p -> p.toString().endsWith(".md")).toList()) {
                String inDocs = Path.of("docs").relativize(page).toString();
                if (inDocs.equals("README.md")) {
                    continue;
                }
                assertThat(fromIndex).as("docs/README.md lists %s", inDocs).contains(inDocs);
                assertThat(fromReadme).as("README.md lists %s", inDocs).contains("docs/" + inDocs);
            }
        }
    }

    private static List<String> links(Path page) throws IOException {
        Node document = PARSER.parse(Files.readString(page));
        var found = new ArrayList<String>();
        document.accept(new AbstractVisitor() {
            @Override
            public void visit(Link link) {
                found.add(link.getDestination());
                visitChildren(link);
            }

            @Override
            public void visit(Image image) {
                found.add(image.getDestination());
                visitChildren(image);
            }
        });
        return found;
    }

    private static Set<String> headingIds(Path page) throws IOException {
        var ids = new LinkedHashSet<String>();
        HEADING_ID
                .matcher(RENDERER.render(PARSER.parse(Files.readString(page))))
                .results()
                .forEach(m -> ids.add(m.group(1)));
        return ids;
    }
}
