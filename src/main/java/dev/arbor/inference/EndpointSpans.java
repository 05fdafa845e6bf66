package dev.arbor.inference;

import dev.arbor.inference.openai.Operation;
import dev.arbor.inference.openai.TopLevel;
import dev.arbor.platform.tracing.Traced;
import io.opentelemetry.api.trace.SpanKind;

/**
 * The span of one endpoint attempt, with OpenTelemetry's GenAI conventions: {@code gen_ai.operation.name},
 * {@code gen_ai.request.model} (the endpoint: a registry model or a deployment), the token usage the endpoint
 * reported, and the HTTP status. Never the prompt or the answer.
 */
final class EndpointSpans {
    private EndpointSpans() {}

    static Traced attempt(Operation operation, String endpoint, int attempt) {
        String name = switch (operation) {
            case CHAT_COMPLETIONS -> "chat";
            case COMPLETIONS -> "text_completion";
            case EMBEDDINGS -> "embeddings";
        };
        return Traced.child(name + " " + endpoint, SpanKind.CLIENT)
                .with("gen_ai.operation.name", name)
                .with("gen_ai.request.model", endpoint)
                .with("arbor.router.attempt", attempt);
    }

    static void answered(Traced span, int status, TopLevel.Usage usage) {
        span.with("http.response.status_code", status);
        usage.promptTokens().ifPresent(tokens -> span.with("gen_ai.usage.input_tokens", tokens));
        usage.completionTokens().ifPresent(tokens -> span.with("gen_ai.usage.output_tokens", tokens));
    }
}
