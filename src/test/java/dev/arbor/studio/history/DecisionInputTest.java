package dev.arbor.studio.history;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.platform.json.Json;
import org.junit.jupiter.api.Test;

class DecisionInputTest {
    private static final String STORED = """
            {"variables":{"msg":"Billed twice","photo":"file_01"},"state":{"message":"Billed twice"},\
            "media":[{"type":"image","file_id":"file_01","name":"a.png","variable":"photo",\
            "content_type":"image/png","bytes":120,"sha256":"sha256:ab","available":true},\
            {"type":"audio","file_id":null,"name":null,"variable":null,"content_type":"audio/wav",\
            "bytes":64,"sha256":"sha256:cd","available":false}],\
            "questions":{"urgent":{"type":"noul","instructions":"Urgent?","criteria":{}}},\
            "rendered_state":"message: Billed twice"}""";

    @Test
    void writingWhatWasReadGivesTheStoredTextBack() {
        String written = Json.writeString(DecisionInput.read(Json.read(STORED)).json());

        assertThat(written).isEqualTo(Json.writeString(Json.read(STORED)));
    }

    @Test
    void onlyTheFilesItKeepsCountTowardsItsBytes() {
        DecisionInput input = DecisionInput.read(Json.read(STORED));

        assertThat(input.keptFiles()).containsExactly("file_01");
        assertThat(input.keptBytes()).isEqualTo(120);
    }
}
