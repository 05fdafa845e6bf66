package dev.arbor.studio;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.ArborServer;
import dev.arbor.platform.json.Json;
import dev.arbor.testing.Corpora;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FitApiOnSqliteTest extends FitApiContract {
    @Override
    Map<String, String> environment() {
        return Map.of("ARBOR_TEST_MODELS", "1");
    }

    @Test
    void aFitRunningWhenItsServerStopsIsFailedAtTheNextStartWithTheReason() {
        Path data;
        String id;
        try (var first = ArborServer.start(Map.of("ARBOR_TEST_MODELS", "1"))) {
            data = first.dataDir();
            first.http().post("/v1/studio/templates", template("fit-restart").toString());
            ArrayNode examples = Json.mapper().createArrayNode();
            for (Corpora.Item mail : mails(Corpora.Part.FIT, 200)) {
                ObjectNode example = examples.addObject()
                        .put(
                                "state",
                                mail.text()
                                        .substring(0, Math.min(1500, mail.text().length())))
                        .put("split", "calibration");
                example.putObject("expected").put("spam", mail.label().equals("spam") ? "yes" : "no");
            }
            ObjectNode body = Json.object();
            body.set("examples", examples);
            first.http().post("/v1/studio/templates/fit-restart/examples/import", body.toString());
            // the model loads and 200 mails are embedded before anything is fitted: the server stops long before
            id = first.http()
                    .post("/v1/studio/templates/fit-restart/fit", "{}")
                    .json()
                    .path("id")
                    .asText();
        }
        try (var restarted = ArborServer.start(Map.of("ARBOR_TEST_MODELS", "1", "ARBOR_DATA", data.toString()))) {
            JsonNode fit = restarted.http().get(F + "/" + id).json();
            assertThat(fit.path("status").asText()).as(fit.toString()).isEqualTo("failed");
            assertThat(fit.at("/error/code").asText()).isEqualTo("internal_error");
            assertThat(fit.at("/error/message").asText()).contains("server stopped");
            assertThat(fit.path("version").isNull()).isTrue();
        }
    }
}
