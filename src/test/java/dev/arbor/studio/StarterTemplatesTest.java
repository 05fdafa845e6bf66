package dev.arbor.studio;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.ArborServer;
import dev.arbor.testing.TempFolders;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StarterTemplatesTest {

    @Test
    void reseedingAnUnchangedCatalogMakesNoNewVersions() throws Exception {
        Path data = TempFolders.newFolder("arbor-seed-");
        for (int start = 0; start < 2; start++) {
            try (var server = ArborServer.start(Map.of("ARBOR_DATA", data.toString()))) {
                var versions = server.http()
                        .get("/v1/studio/templates/builtin/tour/versions")
                        .json()
                        .path("data");
                assertThat(versions).hasSize(1);
                assertThat(versions.get(0).path("note").asText()).isEqualTo("Starter template");
                assertThat(server.http()
                                .get("/v1/studio/templates/builtin/tour")
                                .json()
                                .path("questions")
                                .size())
                        .isEqualTo(6);
            }
        }
    }
}
