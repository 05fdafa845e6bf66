package dev.arbor.studio.running;

import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.tracing.Traced;
import dev.arbor.studio.planning.Plan;
import dev.arbor.studio.templates.Templates;
import io.opentelemetry.api.trace.SpanKind;
import java.util.Locale;

/**
 * A decision's spans, under the span of whoever asked (the request, a router's decide step): {@code studio plan}
 * (template, variables, model and settings worked out), then {@code studio decision} with its model call (the hop
 * to the model's worker or a deployment's replicas, with OpenTelemetry's GenAI attributes) and its write to
 * history. Never the state, the situation or the answers.
 */
final class DecisionSpans {
    /** The GenAI operation of a decision's model call: the questions' options scored, not text generated. */
    static final String OPERATION = "score";

    private DecisionSpans() {}

    static Traced planning() {
        return Traced.child("studio plan", SpanKind.INTERNAL);
    }

    static void planned(Traced span, Plan plan) {
        plan.template().ifPresent(template -> describe(span, template));
        plan.model().ifPresent(model -> span.with("gen_ai.request.model", model));
        span.with("arbor.studio.questions", plan.questions().size());
    }

    static Traced decision(String id, Plan plan) {
        Traced span = Traced.child("studio decision", SpanKind.INTERNAL)
                .with("arbor.decision.id", id)
                .with("arbor.studio.store", plan.store().name().toLowerCase(Locale.ROOT))
                .with("arbor.studio.background", plan.background() ? "true" : "false");
        plan.template().ifPresent(template -> describe(span, template));
        return span;
    }

    /** The model call: {@code replicas} when a deployment's replicas answer instead of this server's worker. */
    static Traced model(Plan plan, boolean replicas) {
        String model = plan.model().orElse("none");
        return Traced.child(OPERATION + " " + model, SpanKind.CLIENT)
                .with("gen_ai.operation.name", OPERATION)
                .with("gen_ai.request.model", model)
                .with("gen_ai.provider.name", replicas ? "arbor.deployment" : "arbor.worker")
                .with("arbor.studio.primitives", plan.primitives().size());
    }

    static Traced storing(Plan plan) {
        return Traced.child("studio store", SpanKind.INTERNAL)
                .with("arbor.studio.store", plan.store().name().toLowerCase(Locale.ROOT));
    }

    static void failed(Traced span, ApiException failure) {
        span.failed(failure.code().code(), failure.getMessage());
    }

    private static void describe(Traced span, Templates.Resolved template) {
        span.with("arbor.studio.template", template.id()).with("arbor.studio.template_version", template.version());
    }
}
