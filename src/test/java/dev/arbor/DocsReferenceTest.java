package dev.arbor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.WarningCode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The manual's two reference pages are complete: every error code the server can answer is in the error codes' page
 * with its status, and every warning code too; every environment variable the server's code reads is in the
 * configuration page.
 */
class DocsReferenceTest {
    private static final Pattern VARIABLE = Pattern.compile("\"((?:ARBOR|STUDIO)_[A-Z0-9_]+)\"");

    @Test
    void everyErrorCodeIsInTheErrorCodesPageWithItsStatus() throws IOException {
        String page = Files.readString(Path.of("docs/errors.md"));
        var missing = new TreeSet<String>();
        for (ErrorCode code : ErrorCode.values()) {
            if (!page.contains("| `" + code.code() + "` | " + code.status() + " |")) {
                missing.add(code.code() + " (" + code.status() + ")");
            }
        }
        assertThat(missing).as("codes missing from docs/errors.md").isEmpty();
    }

    @Test
    void everyWarningCodeIsInTheErrorCodesPage() throws IOException {
        String page = Files.readString(Path.of("docs/errors.md"));
        String warnings = page.substring(page.indexOf("\n## Warnings\n"));
        var missing = new TreeSet<String>();
        for (WarningCode code : WarningCode.values()) {
            if (!warnings.contains("`" + code.code() + "`")) {
                missing.add(code.code());
            }
        }
        assertThat(missing).as("warnings missing from docs/errors.md").isEmpty();
    }

    @Test
    void everyEnvironmentVariableTheServerReadsIsInTheConfigurationPage() throws IOException {
        String page = Files.readString(Path.of("docs/operations/configuration.md"));
        var read = new TreeSet<String>();
        try (Stream<Path> sources = Files.walk(Path.of("src/main/java"))) {
            for (Path source :
                    sources.filter(p -> p.toString().endsWith(".java")).toList()) {
                VARIABLE.matcher(Files.readString(source)).results().forEach(m -> read.add(m.group(1)));
            }
        }
        assertThat(read).hasSizeGreaterThan(30);
        assertThat(read)
                .as("variables missing from docs/operations/configuration.md")
                .filteredOn(name -> !page.contains("`" + name + "`"))
                .isEmpty();
    }
}
