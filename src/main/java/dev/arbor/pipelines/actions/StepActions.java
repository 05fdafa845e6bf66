package dev.arbor.pipelines.actions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.arbor.clusters.ClusterHealthChecks;
import dev.arbor.credentials.Credentials;
import dev.arbor.deployments.Deployments;
import dev.arbor.models.ModelOperations;
import dev.arbor.notifications.NotificationException;
import dev.arbor.notifications.Notifications;
import dev.arbor.pipelines.definitions.PipelineDefinition;
import dev.arbor.platform.actions.Expressions;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.outbound.OutboundClient;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * What each action does when a step runs. Control flow is here; the integration actions have classes of their own.
 * The params a step gets are rendered already (templates worked out, defaults filled in, checked against the
 * catalog) except {@code condition} fields, which the actions here evaluate.
 */
public final class StepActions {
    private final Expressions expressions;
    private final HttpRequestAction http;
    private final Notifications notifications;
    private final ModelActions models;
    private final ClusterHealthAction clusterHealth;
    private final DeploymentActions deployments;

    /**
     * One attempt of a step: its rendered params, what templates may read, the outputs of the run's steps that have
     * completed (by step id, what Aggregate combines), and when it first began (a wait counts from there).
     */
    public record StepCall(
            String runId,
            PipelineDefinition.Step step,
            ObjectNode params,
            Map<String, Object> scope,
            Map<String, JsonNode> completedOutputs,
            long now,
            long firstStartedAt,
            Optional<Long> waitDeadline,
            BiConsumer<String, String> log) {
        public StepCall {
            requireNonNull(params, "params");
            scope = Map.copyOf(scope);
            completedOutputs = Map.copyOf(completedOutputs);
        }
    }

    /**
     * @param outbound what HTTP Request steps send through
     * @param models the model registry that model steps change
     * @param credentials where Add Cloud Model steps find their keys
     * @param clusters what Cluster Health Check steps ask
     * @param deployments the deployments that deployment steps change
     */
    public StepActions(
            Expressions expressions,
            OutboundClient outbound,
            Notifications notifications,
            ModelOperations models,
            Credentials credentials,
            ClusterHealthChecks clusters,
            Deployments deployments) {
        this.expressions = requireNonNull(expressions, "expressions");
        this.http = new HttpRequestAction(outbound);
        this.notifications = requireNonNull(notifications, "notifications");
        this.models = new ModelActions(models, credentials);
        this.clusterHealth = new ClusterHealthAction(clusters);
        this.deployments = new DeploymentActions(deployments);
    }

    /**
     * The actions that work from their params alone, in microseconds, touching nothing outside the run: a step of one
     * runs where the step before it ended, and is marked running in the same commit that ends it (one cut off by a
     * stopped server runs again, which changes nothing).
     */
    private static final Set<String> INLINE =
            Set.of("log", "conditional_branch", "transform", "aggregate", "set_output", "fail");

    public static boolean inline(PipelineDefinition.Step step) {
        return INLINE.contains(step.action());
    }

    public Outcome run(StepCall call) throws InterruptedException {
        try {
            return switch (call.step().action()) {
                case "log" -> log(call);
                case "conditional_branch" -> branch(call);
                case "transform" -> transform(call);
                case "aggregate" -> aggregate(call);
                case "set_output" ->
                    new Outcome.Done(Json.object()
                            .set(
                                    call.params().path("key").asText(),
                                    call.params().path("value")));
                case "wait_until" -> waitUntil(call);
                case "fail" ->
                    new Outcome.Failed(
                            call.params().path("error_code").asText("pipeline_failed"),
                            text(call.params().path("message")),
                            false);
                case "http_request" -> http.run(call.params());
                case "send_notification" -> notify(call.params());
                case "add_model" -> models.add(call.params());
                case "add_cloud_model" -> models.addCloud(call.params());
                case "delete_model" -> models.delete(call.params());
                case "model_benchmark" -> models.benchmark(call.params());
                case "cluster_health_check" -> clusterHealth.run(call.params());
                case "deploy_model" -> deployments.deploy(call.params());
                case "scale_deployment" -> deployments.scale(call.params());
                case "configure_rate_limiting" -> deployments.rateLimit(call.params());
                case "delete_deployment" -> deployments.delete(call.params());
                default ->
                    new Outcome.Failed(
                            "action_unavailable",
                            "The action " + call.step().action() + " is not available on this server.",
                            false);
            };
        } catch (Expressions.ExpressionException e) {
            return new Outcome.Failed(
                    "condition_error", Objects.requireNonNullElse(e.getMessage(), e.toString()), false);
        }
    }

    private Outcome notify(ObjectNode params) throws InterruptedException {
        var recipients = new ArrayList<String>();
        params.path("recipients").forEach(r -> recipients.add(r.asText()));
        try {
            notifications.send(
                    params.path("channel").asText(),
                    text(params.path("message")),
                    recipients,
                    params.path("priority").asText("normal"));
            return new Outcome.Done(Json.object());
        } catch (NotificationException e) {
            return new Outcome.Failed(
                    e.code(), Objects.requireNonNullElse(e.getMessage(), e.toString()), e.retryable());
        }
    }

    private static Outcome log(StepCall call) {
        String level = call.params().path("level").asText("info");
        call.log().accept(level, text(call.params().path("message")));
        return new Outcome.Done(Json.object());
    }

    /**
     * The first branch whose condition holds is taken, in the order written, when the step's own condition holds;
     * the steps of every other branch are skipped (a step also named by the branch taken is not).
     */
    private Outcome branch(StepCall call) {
        JsonNode branches = call.params().path("branches");
        Optional<String> taken = Optional.empty();
        if (expressions.holds(call.params().path("condition").asText(), call.scope())) {
            for (var branch : branches.properties()) {
                if (expressions.holds(branch.getValue().path("condition").asText(), call.scope())) {
                    taken = Optional.of(branch.getKey());
                    break;
                }
            }
        }
        Set<String> kept = new HashSet<>();
        Set<String> skipped = new LinkedHashSet<>();
        for (var branch : branches.properties()) {
            Set<String> into = taken.map(branch.getKey()::equals).orElse(false) ? kept : skipped;
            branch.getValue().path("steps").forEach(step -> into.add(step.asText()));
        }
        skipped.removeAll(kept);
        ObjectNode outputs = Json.object();
        outputs.set("branch", taken.<JsonNode>map(TextNode::valueOf).orElse(NullNode.getInstance()));
        return new Outcome.Done(outputs, skipped);
    }

    private static Outcome transform(StepCall call) {
        String operation = call.params().path("operation").asText();
        if (operation.equals("template")) {
            return result(call.params().path("template"));
        }
        JsonNode input = call.params().path("input");
        return switch (operation) {
            case "passthrough" -> result(input);
            case "uppercase", "lowercase" ->
                input.isTextual()
                        ? result(TextNode.valueOf(
                                operation.equals("uppercase")
                                        ? input.textValue().toUpperCase(Locale.ROOT)
                                        : input.textValue().toLowerCase(Locale.ROOT)))
                        : wrongInput(operation, "text", input);
            case "keys", "values" -> {
                if (!input.isObject()) {
                    yield wrongInput(operation, "an object", input);
                }
                ArrayNode out = Json.mapper().createArrayNode();
                input.properties()
                        .forEach(f -> out.add(operation.equals("keys") ? TextNode.valueOf(f.getKey()) : f.getValue()));
                yield result(out);
            }
            case "count" ->
                input.isTextual()
                        ? result(Json.mapper()
                                .getNodeFactory()
                                .numberNode(input.textValue().length()))
                        : input.isContainerNode()
                                ? result(Json.mapper().getNodeFactory().numberNode(input.size()))
                                : wrongInput(operation, "a list, an object or text", input);
            case "flatten" -> {
                if (!input.isArray()) {
                    yield wrongInput(operation, "a list", input);
                }
                ArrayNode out = Json.mapper().createArrayNode();
                input.forEach(item -> {
                    if (item.isArray()) {
                        out.addAll((ArrayNode) item);
                    } else {
                        out.add(item);
                    }
                });
                yield result(out);
            }
            case "unique" ->
                input.isArray()
                        ? result(Json.mapper().valueToTree(new LinkedHashSet<>(list(input))))
                        : wrongInput(operation, "a list", input);
            case "sort" -> sort(input);
            case "reverse" -> {
                if (input.isTextual()) {
                    yield result(TextNode.valueOf(
                            new StringBuilder(input.textValue()).reverse().toString()));
                }
                if (!input.isArray()) {
                    yield wrongInput(operation, "a list or text", input);
                }
                List<JsonNode> items = list(input);
                java.util.Collections.reverse(items);
                yield result(Json.mapper().valueToTree(items));
            }
            default -> new Outcome.Failed("invalid_params", "Transform has no operation '" + operation + "'.", false);
        };
    }

    private static Outcome sort(JsonNode input) {
        if (!input.isArray()) {
            return wrongInput("sort", "a list", input);
        }
        List<JsonNode> items = list(input);
        if (items.stream().allMatch(JsonNode::isNumber)) {
            items.sort(java.util.Comparator.comparing(JsonNode::decimalValue));
        } else if (items.stream().allMatch(JsonNode::isTextual)) {
            items.sort(java.util.Comparator.comparing(JsonNode::textValue));
        } else {
            return new Outcome.Failed("invalid_input", "sort takes a list of numbers only or of text only.", false);
        }
        return result(Json.mapper().valueToTree(items));
    }

    /**
     * Combines the outputs of earlier steps: {@code merge} into one object (a later source wins a key),
     * {@code concat} into a list of their outputs, {@code first} the outputs of the first one that completed.
     * Steps that did not complete (skipped, or failed and continued past) give nothing.
     */
    private static Outcome aggregate(StepCall call) {
        var outputs = new ArrayList<JsonNode>();
        for (JsonNode source : call.params().path("sources")) {
            JsonNode completed = call.completedOutputs().get(source.asText());
            if (completed != null) {
                outputs.add(completed);
            }
        }
        return switch (call.params().path("strategy").asText("merge")) {
            case "concat" -> result(Json.mapper().valueToTree(outputs));
            case "first" -> result(outputs.isEmpty() ? NullNode.getInstance() : outputs.getFirst());
            default -> {
                ObjectNode merged = Json.object();
                outputs.stream().filter(JsonNode::isObject).forEach(o -> merged.setAll((ObjectNode) o));
                yield result(merged);
            }
        };
    }

    /**
     * Done when the condition holds; otherwise asked again after the poll interval, holding nothing, until the
     * timeout, when the step fails ({@code wait_timed_out}).
     */
    private Outcome waitUntil(StepCall call) {
        long deadline = call.waitDeadline()
                .orElse(call.firstStartedAt()
                        + call.params().path("timeout_seconds").asLong(3600) * 1000);
        if (expressions.holds(call.params().path("condition").asText(), call.scope())) {
            return new Outcome.Done(Json.object()
                    .put("waited_seconds", Math.max(0, (call.now() - call.firstStartedAt()) / 1000)));
        }
        if (call.now() >= deadline) {
            return new Outcome.Failed(
                    "wait_timed_out",
                    "The condition did not hold within " + (deadline - call.firstStartedAt()) / 1000 + " seconds.",
                    false);
        }
        long due = Math.min(
                deadline,
                call.now() + call.params().path("poll_interval_seconds").asLong(30) * 1000);
        return new Outcome.Waiting(due, deadline);
    }

    private static Outcome result(JsonNode value) {
        ObjectNode outputs = Json.object();
        outputs.set("result", value);
        return new Outcome.Done(outputs);
    }

    private static Outcome wrongInput(String operation, String needs, JsonNode input) {
        return new Outcome.Failed(
                "invalid_input",
                operation + " takes " + needs + ", not "
                        + input.getNodeType().name().toLowerCase(Locale.ROOT) + ".",
                false);
    }

    private static List<JsonNode> list(JsonNode array) {
        var items = new ArrayList<JsonNode>();
        array.forEach(items::add);
        return items;
    }

    private static String text(JsonNode value) {
        return value.isTextual() ? value.textValue() : value.toString();
    }
}
