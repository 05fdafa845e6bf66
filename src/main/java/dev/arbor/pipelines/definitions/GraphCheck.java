package dev.arbor.pipelines.definitions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.arbor.platform.actions.ActionCatalog;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problems;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The checks of a pipeline's graph, all reported at once: step ids unique; dependencies known, not the step itself,
 * without cycles (the cycle's path is named); actions known and their params valid; every reference in params,
 * conditions and outputs resolvable — a declared parameter, or an output its action gives of a step that runs
 * before (an ancestor through {@code depends_on}); branch targets and aggregate sources where they can work.
 */
final class GraphCheck {
    private final PipelineDefinition definition;
    private final ActionCatalog catalog;
    private final Problems problems;
    private final Map<String, Integer> index = new LinkedHashMap<>();

    GraphCheck(PipelineDefinition definition, ActionCatalog catalog, Problems problems) {
        this.definition = definition;
        this.catalog = catalog;
        this.problems = problems;
    }

    void run() {
        List<PipelineDefinition.Step> steps = definition.steps();
        for (int i = 0; i < steps.size(); i++) {
            if (index.putIfAbsent(steps.get(i).id(), i) != null) {
                problem(
                        ParamPath.index("steps", i) + ".id",
                        "repeats the id '" + steps.get(i).id() + "' of "
                                + ParamPath.index(
                                        "steps",
                                        requireNonNull(index.get(steps.get(i).id()))));
            }
        }
        if (dependencies()) {
            cycle();
        }
        // the steps are checked even when the graph is not sound, against the dependencies that are known
        Map<String, Set<String>> ancestors = ancestors();
        for (int i = 0; i < steps.size(); i++) {
            step(i, steps.get(i), requireNonNull(ancestors.get(steps.get(i).id())));
        }
        Set<String> everyStep = index.keySet();
        definition
                .outputs()
                .forEach((name, template) -> references(
                        Templates.inValue(TextNode.valueOf(template)), ParamPath.key("outputs", name), everyStep));
    }

    private boolean dependencies() {
        boolean known = true;
        List<PipelineDefinition.Step> steps = definition.steps();
        for (int i = 0; i < steps.size(); i++) {
            List<String> dependsOn = steps.get(i).dependsOn();
            for (int d = 0; d < dependsOn.size(); d++) {
                String at = ParamPath.index(ParamPath.index("steps", i) + ".depends_on", d);
                if (dependsOn.get(d).equals(steps.get(i).id())) {
                    problem(at, "names the step itself");
                    known = false;
                } else if (!index.containsKey(dependsOn.get(d))) {
                    problem(at, "names no step of this pipeline ('" + dependsOn.get(d) + "')");
                    known = false;
                }
            }
        }
        return known;
    }

    /** Reports a cycle with its path (Kahn's order finds that one exists; a walk finds which). */
    private void cycle() {
        var remaining = new HashMap<String, Integer>();
        definition
                .steps()
                .forEach(step -> remaining.put(step.id(), step.dependsOn().size()));
        var ready = new ArrayDeque<String>();
        remaining.forEach((id, count) -> {
            if (count == 0) {
                ready.add(id);
            }
        });
        int ordered = 0;
        while (!ready.isEmpty()) {
            String id = ready.poll();
            ordered++;
            for (PipelineDefinition.Step step : definition.steps()) {
                if (step.dependsOn().contains(id) && remaining.merge(step.id(), -1, Integer::sum) == 0) {
                    ready.add(step.id());
                }
            }
        }
        if (ordered == definition.steps().size()) {
            return;
        }
        List<String> path = cyclePath(remaining);
        problem(
                ParamPath.index("steps", requireNonNull(index.get(path.getFirst()))) + ".depends_on",
                "makes a cycle: " + String.join(" → ", path) + " (→ reads \"depends on\")");
    }

    /**
     * Every step left unordered waits for another one left unordered, so following those from the first of them
     * comes back to a step already passed: that stretch is a cycle.
     */
    private List<String> cyclePath(Map<String, Integer> remaining) {
        String at = definition.steps().stream()
                .map(PipelineDefinition.Step::id)
                .filter(id -> remaining.getOrDefault(id, 0) > 0)
                .findFirst()
                .orElseThrow();
        var order = new ArrayList<String>();
        while (!order.contains(at)) {
            order.add(at);
            at = definition.steps().get(requireNonNull(index.get(at))).dependsOn().stream()
                    .filter(dependency -> remaining.getOrDefault(dependency, 0) > 0)
                    .findFirst()
                    .orElseThrow();
        }
        var cycle = new ArrayList<>(order.subList(order.indexOf(at), order.size()));
        cycle.add(at);
        return cycle;
    }

    /** Every step each step waits for, directly or not (dependencies on no step left out). */
    private Map<String, Set<String>> ancestors() {
        var ancestors = new HashMap<String, Set<String>>();
        for (PipelineDefinition.Step step : definition.steps()) {
            var all = new HashSet<String>();
            var todo = new ArrayDeque<>(step.dependsOn());
            while (!todo.isEmpty()) {
                String id = todo.poll();
                if (index.containsKey(id) && all.add(id)) {
                    todo.addAll(definition.steps().get(index.get(id)).dependsOn());
                }
            }
            all.remove(step.id());
            ancestors.putIfAbsent(step.id(), all);
        }
        return ancestors;
    }

    private void step(int i, PipelineDefinition.Step step, Set<String> before) {
        String at = ParamPath.index("steps", i);
        Optional<ActionCatalog.Action> action = catalog.find(step.action());
        if (action.isEmpty()) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    at + ".action",
                    "`" + at + ".action` is '" + step.action() + "', which is not an action; the actions are "
                            + String.join(", ", catalog.types()) + ".");
        } else {
            catalog.check(action.get(), step.params(), at + ".params", problems, PipelineParams.RULES);
            StepUrls.check(action.get(), step.params(), at + ".params", problems);
        }
        // each reference's problem names the param that holds it, so that an editor shows it beside that field
        for (var param : step.params().properties()) {
            references(Templates.inValue(param.getValue()), ParamPath.key(at + ".params", param.getKey()), before);
        }
        JsonNode expression = step.params().path("condition");
        if (expression.isTextual()) { // Conditional Branch and Wait Until take an expression, not a template
            references(Templates.inExpression(expression.textValue()), at + ".params.condition", before);
        }
        for (var branch : step.params().path("branches").properties()) {
            JsonNode branchCondition = branch.getValue().path("condition");
            if (branchCondition.isTextual()) {
                references(
                        Templates.inExpression(branchCondition.textValue()),
                        ParamPath.key(at + ".params.branches", branch.getKey()) + ".condition",
                        before);
            }
        }
        step.condition()
                .ifPresent(condition -> references(Templates.inExpression(condition), at + ".condition", before));
        if (step.action().equals("conditional_branch")) {
            for (var branch : step.params().path("branches").properties()) {
                JsonNode targets = branch.getValue().path("steps");
                for (int t = 0; targets.isArray() && t < targets.size(); t++) {
                    String target = targets.get(t).asText();
                    String param =
                            ParamPath.index(ParamPath.key(at + ".params.branches", branch.getKey()) + ".steps", t);
                    if (!index.containsKey(target)
                            || !definition
                                    .steps()
                                    .get(index.get(target))
                                    .dependsOn()
                                    .contains(step.id())) {
                        problem(
                                param,
                                "must name a step that depends on '" + step.id() + "' ('" + target + "' does not)");
                    }
                }
            }
        }
        JsonNode recipients = step.params().path("recipients");
        if (step.action().equals("approval")
                && step.params()
                        .path("channels")
                        .valueStream()
                        .anyMatch(channel -> channel.asText().equals("email"))
                && (recipients.isMissingNode() || recipients.isArray() && recipients.isEmpty())) {
            problem(
                    at + ".params.recipients",
                    "must list the email addresses to send the one-click links to, as channels include email");
        }
        JsonNode sources = step.params().path("sources");
        if (step.action().equals("aggregate") && sources.isArray()) { // not a list: the params' check says so
            for (int s = 0; s < sources.size(); s++) {
                if (!Templates.hasReference(sources.get(s))
                        && !before.contains(sources.get(s).asText())) {
                    problem(
                            ParamPath.index(at + ".params.sources", s),
                            "must name a step that runs before this " + "one ('"
                                    + sources.get(s).asText() + "' is not among its depends_on, directly or not)");
                }
            }
        }
    }

    /** Checks references against the declared parameters and the steps that may be read from {@code at}. */
    private void references(List<Templates.Reference> references, String at, Set<String> readable) {
        Set<String> parameters = new HashSet<>(definition.parameters().stream()
                .map(PipelineDefinition.Parameter::name)
                .toList());
        for (Templates.Reference reference : references) {
            switch (reference.root()) {
                case "params" -> {
                    if (reference.name().isEmpty()
                            || !parameters.contains(reference.name().get())) {
                        problem(
                                at,
                                "refers to params." + reference.name().orElse("") + ", which is not a declared "
                                        + "parameter"
                                        + (parameters.isEmpty()
                                                ? ""
                                                : " ("
                                                        + String.join(
                                                                ", ",
                                                                parameters.stream()
                                                                        .sorted()
                                                                        .toList()) + ")"));
                    }
                }
                case "steps" -> stepReference(reference, at, readable);
                default -> {} // event: the trigger's payload, known when it fires
            }
        }
    }

    private void stepReference(Templates.Reference reference, String at, Set<String> readable) {
        String id = reference.name().orElse("");
        if (!index.containsKey(id)) {
            problem(at, "refers to steps." + id + ", which is not a step of this pipeline");
        } else if (!readable.contains(id)) {
            problem(
                    at,
                    "refers to steps." + id + ", which does not run before it: add '" + id + "' to " + "depends_on");
        } else if (reference.output().isEmpty()) {
            problem(at, "refers to steps." + id + " without an output: write steps." + id + ".outputs.<key>");
        } else {
            PipelineDefinition.Step step = definition.steps().get(index.get(id));
            catalog.find(step.action())
                    .filter(action -> !action.gives(reference.output().get(), step.params()))
                    .ifPresent(action -> problem(
                            at,
                            "refers to steps." + id + ".outputs."
                                    + reference.output().get()
                                    + ", which " + action.type() + " does not give"
                                    + (action.outputs().isEmpty()
                                            ? ""
                                            : " (it gives " + String.join(", ", action.outputs()) + ")")));
        }
    }

    private void problem(String param, String why) {
        problems.add(ErrorCode.INVALID_DEFINITION, param, "`" + param + "` " + why + ".");
    }
}
