package dev.arbor.inference.openai;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Server-sent events relayed however the network cuts them: model replaced in JSON data, the rest as it came. */
class SseRelayTest {
    private static final String UPSTREAM = "data: {\"id\":\"c1\",\"model\":\"remote-name\",\"choices\":[]}\n\n"
            + ": a comment\n\n"
            + "data: {\"model\":\"remote-name\",\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2}}\r\n\r\n"
            + "data:{\"model\" : \"remote-name\"}\n\n"
            + "data: not json {\n\n"
            + "data: [DONE]\n\n";

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 7, 64, 10_000})
    void everyEventPassesWithTheCallersModelWhereverTheReadsCutIt(int readSize) throws IOException {
        var relay = new SseRelay(InferenceRequest.quoted("my \"router\""), "my \"router\"", Optional.empty());
        var out = new ByteArrayOutputStream();
        byte[] bytes = UPSTREAM.getBytes(StandardCharsets.UTF_8);
        for (int at = 0; at < bytes.length; at += readSize) {
            int count = Math.min(readSize, bytes.length - at);
            byte[] read = new byte[count];
            System.arraycopy(bytes, at, read, 0, count);
            relay.relay(read, count, out);
        }
        relay.finish(out);
        assertThat(out.toString(StandardCharsets.UTF_8))
                .isEqualTo(UPSTREAM.replace("\"remote-name\"", "\"my \\\"router\\\"\""));
        assertThat(relay.usage().promptTokens()).hasValue(3);
        assertThat(relay.usage().completionTokens()).hasValue(2);
    }

    @Test
    void anEventIsWrittenOnceItsLastByteArrivesAndNotBefore() throws IOException {
        var relay = new SseRelay(InferenceRequest.quoted("m"), "m", Optional.empty());
        var out = new ByteArrayOutputStream();
        byte[] event = "data: {\"model\":\"x\"}\n\n".getBytes(StandardCharsets.UTF_8);
        relay.relay(event, event.length - 1, out);
        assertThat(out.size()).isZero();
        relay.relay(new byte[] {'\n'}, 1, out);
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("data: {\"model\":\"m\"}\n\n");
    }
}
