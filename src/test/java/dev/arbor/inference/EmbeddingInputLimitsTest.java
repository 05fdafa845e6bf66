package dev.arbor.inference;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.testing.HttpReply;
import dev.arbor.testing.OpenAiUpstream;
import dev.arbor.testing.RouterFixture;
import java.io.IOException;
import java.util.Collections;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code POST /v1/embeddings} takes at most 2,048 inputs, each at most 65,536 characters or 8,192 token ids, as
 * OpenAI's API: a request past a bound is 400 {@code invalid_field} at {@code input} (or the input past it,
 * {@code input[i]}) before any endpoint is asked; one at the bounds goes through.
 */
class EmbeddingInputLimitsTest {
    private static final String ADMIN = "arb_embedding_limits";
    private static final int MAX_INPUTS = 2_048;
    private static final int MAX_CHARS = 65_536;
    private static final int MAX_TOKENS = 8_192;

    private static RouterFixture fixture;
    private static OpenAiUpstream upstream;

    @BeforeAll
    static void start() throws IOException {
        fixture = RouterFixture.start(ADMIN);
        upstream = new OpenAiUpstream("embedder").always(OpenAiUpstream.Reply.ok());
        fixture.cloudModel("embedder", upstream, "text-embedding-3-small", "sk-embedder");
    }

    @AfterAll
    static void stop() throws IOException {
        fixture.close();
    }

    record Refused(String what, String input, String param) {
        @Override
        public String toString() {
            return what;
        }
    }

    static Stream<Refused> refused() {
        return Stream.of(
                new Refused("one text too long", text(MAX_CHARS + 1), "input"),
                new Refused("one input of too many token ids", tokens(MAX_TOKENS + 1), "input"),
                new Refused("too many texts", texts(MAX_INPUTS + 1, 1), "input"),
                new Refused("a hundred thousand texts", texts(100_000, 1), "input"),
                new Refused("too many token-id inputs", "[" + repeat("[1]", MAX_INPUTS + 1) + "]", "input"),
                new Refused(
                        "the fourth text too long",
                        "[" + repeat(text(1), 3) + ", " + text(MAX_CHARS + 1) + "]",
                        "input[3]"),
                new Refused(
                        "the second token-id input too long",
                        "[" + tokens(1) + ", " + tokens(MAX_TOKENS + 1) + "]",
                        "input[1]"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void anInputPastABoundIsRefusedBeforeAnyEndpointIsAsked(Refused row) {
        int served = upstream.served();

        HttpReply reply = embed(row.input());

        reply.assertError(400, "invalid_field", row.param());
        assertThat(upstream.served()).isEqualTo(served);
    }

    record Accepted(String what, String input) {
        @Override
        public String toString() {
            return what;
        }
    }

    static Stream<Accepted> accepted() {
        return Stream.of(
                new Accepted("one short text", text(2)),
                new Accepted("one text at the bound", text(MAX_CHARS)),
                new Accepted("as many texts as allowed", texts(MAX_INPUTS, 10)),
                new Accepted("token ids at the bound", tokens(MAX_TOKENS)),
                new Accepted("two token-id inputs at the bound", "[" + tokens(MAX_TOKENS) + ", " + tokens(3) + "]"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("accepted")
    void anInputWithinTheBoundsGoesToTheEndpoint(Accepted row) {
        int served = upstream.served();

        HttpReply reply = embed(row.input());

        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(upstream.served()).isEqualTo(served + 1);
    }

    private static HttpReply embed(String input) {
        return fixture.http()
                .post(
                        "/v1/embeddings",
                        "{\"model\": \"embedder\", \"input\": " + input + "}",
                        "Authorization",
                        "Bearer " + ADMIN);
    }

    private static String text(int length) {
        return "\"" + "a".repeat(length) + "\"";
    }

    private static String texts(int count, int length) {
        return "[" + repeat(text(length), count) + "]";
    }

    private static String tokens(int count) {
        return "[" + String.join(", ", Collections.nCopies(count, "7")) + "]";
    }

    private static String repeat(String item, int count) {
        return IntStream.range(0, count).mapToObj(i -> item).collect(Collectors.joining(", "));
    }
}
