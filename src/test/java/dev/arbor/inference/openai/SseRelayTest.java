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
    void aStreamIsCompleteOnceItsDoneCame() throws IOException {
        var relay = new SseRelay(InferenceRequest.quoted("m"), "m", Optional.empty());
        var out = new ByteArrayOutputStream();
        byte[] bytes = UPSTREAM.getBytes(StandardCharsets.UTF_8);
        relay.relay(bytes, bytes.length - "data: [DONE]\n\n".length(), out);
        assertThat(relay.complete()).isFalse();
        relay.relay("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8), 14, out);
        assertThat(relay.complete()).isTrue();
        assertThat(relay.failure()).isEmpty();
    }

    @Test
    void aChunkWithAFinishReasonCompletesTheAnswer() throws IOException {
        var relay = new SseRelay(InferenceRequest.quoted("m"), "m", Optional.empty());
        byte[] chunk = "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
                .getBytes(StandardCharsets.UTF_8);
        relay.relay(chunk, chunk.length, new ByteArrayOutputStream());
        assertThat(relay.complete()).isTrue();
        assertThat(relay.done()).isFalse();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "data: not json {\n\n",
                "data: {\"choices\": [{\"delta\": \n\n",
                "data: {\"error\": {\"message\": \"overloaded\", \"code\": \"busy\"}}\n\n"
            })
    void aMalformedChunkOrAnErrorEventIsAFailureAndNothingAfterItIsWritten(String bad) throws IOException {
        var relay = new SseRelay(InferenceRequest.quoted("m"), "m", Optional.empty());
        var out = new ByteArrayOutputStream();
        String first = "data: {\"model\":\"x\"}\n\n";
        byte[] bytes = (first + bad + "data: {\"model\":\"x\"}\n\ndata: [DONE]\n\n").getBytes(StandardCharsets.UTF_8);
        relay.relay(bytes, bytes.length, out);
        relay.finish(out);
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("data: {\"model\":\"m\"}\n\n");
        assertThat(relay.failure()).isPresent();
        assertThat(relay.complete()).isFalse();
        assertThat(relay.chunks()).isEqualTo(1);
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
