package dev.arbor.studio.erasure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.history.DecisionInput;
import org.junit.jupiter.api.Test;

class RedactionTest {
    private static final String STORED = """
            {"variables":{"msg":"Billed twice","photo":"file_01"},"state":{"message":"Billed twice"},\
            "media":[{"type":"image","file_id":"file_01","name":"a.png","variable":"photo",\
            "content_type":"image/png","bytes":120,"sha256":"sha256:ab","available":true},\
            {"type":"audio","file_id":null,"name":null,"variable":null,"content_type":"audio/wav",\
            "bytes":64,"sha256":"sha256:cd","available":false}],\
            "questions":{"urgent":{"type":"noul","instructions":"Urgent?","criteria":{}}},\
            "rendered_state":"message: Billed twice"}""";

    @Test
    void aRedactedVariableTakesTheStateAndTheRenderedSituationWithIt() {
        var problems = new Problems();
        Redaction redaction = Redaction.parse(Json.read("[\"input.variables.msg\"]"), problems);

        DecisionInput redacted = redaction.apply(DecisionInput.read(Json.read(STORED)));

        assertThat(problems.list()).isEmpty();
        assertThat(Json.writeString(redacted.json()))
                .contains("\"variables\":{\"msg\":\"[redacted]\",\"photo\":\"file_01\"}")
                .contains("\"state\":\"[redacted]\"")
                .contains("\"rendered_state\":\"[redacted]\"")
                .endsWith("\"redacted\":[\"input.variables.msg\"]}");
        assertThat(redacted.isRedacted()).isTrue();
    }
}
