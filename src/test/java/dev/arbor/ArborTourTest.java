package dev.arbor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.arbor.testing.ShellTour;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Runs the README's short tour as a reader would: each command in bash with the real curl, against a server on the
 * default settings, the variables the tour sets taken from the answers it names, and every sample answer compared with
 * the real one. Only the port differs: the tour's 8420 becomes the test server's.
 */
class ArborTourTest {
    @Test
    void theReadmeTourRunsAsWritten() throws Exception {
        assumeTrue(ShellTour.curlInstalled(), "the tour's commands need curl");
        List<ShellTour.Line> tour = ShellTour.read(Path.of("README.md"), "## A short tour");
        assertThat(tour).filteredOn(ShellTour.Command.class::isInstance).hasSizeGreaterThan(20);
        try (var server = ArborServer.start(Map.of())) {
            ShellTour.run(tour, server.application().port());
        }
    }
}
