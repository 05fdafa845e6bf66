package dev.arbor.routers;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.actions.ActionCatalog;
import dev.arbor.platform.actions.Expressions;
import dev.arbor.platform.actions.ParamSpec;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.json.Json;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The checks of a router's {@code dag_config}, every problem of one pass at its {@code param}. Its shape is checked
 * for every router, a draft too; an active router must also be complete: steps that exist, known actions with valid
 * params, links to real steps, no cycle, every step reachable from {@code entry_step}, and every way through ending
 * in a step that selects an endpoint or answers.
 */
final class DagCheck {
    static final String ROOT = "dag_config";
    static final int MAX_STEPS = 100;
    private static final Pattern STEP_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,99}");
    private static final Set<String> FIELDS =
            Set.of("name", "description", "entry_step", "steps", "parameters", "outputs");
    private static final Set<String> STEP_FIELDS =
            Set.of("step_id", "action_type", "name", "params", "conditions", "depends_on", "next_steps");
    private static final int MAX_TEXT = 2_000;
    private static final int MAX_LINKS = 100;

    private final RouterCatalog catalog;
    private final Expressions expressions;

    DagCheck(RouterCatalog catalog, Expressions expressions) {
        this.catalog = requireNonNull(catalog, "catalog");
        this.expressions = requireNonNull(expressions, "expressions");
    }

    /** Whether {@code dag} is shaped as a {@code dag_config}; what is not goes to {@code problems}. */
    boolean shape(JsonNode dag, Problems problems) {
        int before = problems.list().size();
        if (!dag.isObject()) {
            ParamSpec.invalid(
                    problems, ROOT, "must be an object {name, description, entry_step, steps, parameters, outputs}");
            return false;
        }
        problems.unknownFields(dag, FIELDS, ROOT, "a dag_config");
        text(dag, "name", ROOT, 200, problems);
        text(dag, "description", ROOT, MAX_TEXT, problems);
        text(dag, "entry_step", ROOT, 100, problems);
        JsonNode steps = dag.path("steps");
        if (!steps.isMissingNode() && !steps.isArray()) {
            ParamSpec.invalid(problems, ROOT + ".steps", "must be an array of steps");
        } else if (steps.size() > MAX_STEPS) {
            ParamSpec.invalid(problems, ROOT + ".steps", "must have at most " + MAX_STEPS + " steps");
        } else {
            for (int i = 0; i < steps.size(); i++) {
                step(steps.get(i), ParamPath.index(ROOT + ".steps", i), problems);
            }
        }
        JsonNode parameters = dag.path("parameters");
        if (!parameters.isMissingNode() && (!parameters.isArray() || parameters.size() > MAX_LINKS)) {
            ParamSpec.invalid(problems, ROOT + ".parameters", "must be an array of at most " + MAX_LINKS + " items");
        }
        JsonNode outputs = dag.path("outputs");
        if (!outputs.isMissingNode() && !outputs.isObject()) {
            ParamSpec.invalid(problems, ROOT + ".outputs", "must be an object");
        }
        return problems.list().size() == before;
    }

    private void step(JsonNode step, String at, Problems problems) {
        if (!step.isObject()) {
            ParamSpec.invalid(problems, at, "must be an object {step_id, action_type, name, params, ...}");
            return;
        }
        problems.unknownFields(step, STEP_FIELDS, at, "a step");
        JsonNode id = step.path("step_id");
        if (id.isMissingNode() || id.isNull()) {
            problems.add(ErrorCode.MISSING_FIELD, at + ".step_id", "`" + at + ".step_id` is required.");
        } else if (!id.isTextual() || !STEP_ID.matcher(id.textValue()).matches()) {
            ParamSpec.invalid(
                    problems,
                    at + ".step_id",
                    "must be 1 to 100 letters, digits, '_', '.' or '-', starting with a letter or digit");
        }
        JsonNode action = step.path("action_type");
        if (action.isMissingNode() || action.isNull()) {
            problems.add(ErrorCode.MISSING_FIELD, at + ".action_type", "`" + at + ".action_type` is required.");
        } else if (!action.isTextual()) {
            ParamSpec.invalid(problems, at + ".action_type", "must be an action's type");
        }
        text(step, "name", at, 200, problems);
        JsonNode params = step.path("params");
        if (!params.isMissingNode() && !params.isObject()) {
            ParamSpec.invalid(problems, at + ".params", "must be an object");
        }
        for (String list : List.of("conditions", "depends_on", "next_steps")) {
            JsonNode items = step.path(list);
            if (items.isMissingNode()) {
                continue;
            }
            if (!items.isArray() || items.size() > MAX_LINKS) {
                ParamSpec.invalid(problems, at + "." + list, "must be an array of at most " + MAX_LINKS + " strings");
                continue;
            }
            for (int i = 0; i < items.size(); i++) {
                if (!items.get(i).isTextual() || items.get(i).textValue().length() > MAX_TEXT) {
                    ParamSpec.invalid(
                            problems,
                            ParamPath.index(at + "." + list, i),
                            "must be a string of at most " + MAX_TEXT + " characters");
                }
            }
        }
    }

    private static void text(JsonNode json, String field, String at, int max, Problems problems) {
        JsonNode value = json.path(field);
        if (!value.isMissingNode() && (!value.isTextual() || value.textValue().length() > max)) {
            ParamSpec.invalid(problems, at + "." + field, "must be a string of at most " + max + " characters");
        }
    }

    /**
     * What keeps a well-shaped {@code dag} from serving requests, every problem at once: what makes a router that may
     * be active.
     */
    void complete(JsonNode dag, Problems problems, RouterParams rules) {
        new Graph(dag, problems, rules).check(dag);
    }

    /** One pass over one graph. */
    private final class Graph {
        private final JsonNode steps;
        private final Problems problems;
        private final RouterParams rules;
        private final Map<String, Integer> index = new LinkedHashMap<>();
        /** Each step's id → the ids it may lead to (next steps, branch targets, fallback, dependents). */
        private final Map<String, Set<String>> edges = new HashMap<>();

        Graph(JsonNode dag, Problems problems, RouterParams rules) {
            this.steps = dag.path("steps");
            this.problems = problems;
            this.rules = rules;
        }

        private void check(JsonNode dag) {
            if (steps.isEmpty()) {
                problem(
                        ErrorCode.MISSING_FIELD,
                        ROOT + ".steps",
                        "must have at least one step for the router to be active");
            }
            for (int i = 0; i < steps.size(); i++) {
                String id = steps.get(i).path("step_id").asText();
                Integer first = index.putIfAbsent(id, i);
                if (first != null) {
                    problem(
                            ErrorCode.INVALID_DEFINITION,
                            stepAt(i) + ".step_id",
                            "repeats the step_id '" + id + "' of " + stepAt(first));
                }
                edges.putIfAbsent(id, new LinkedHashSet<>());
            }
            JsonNode entry = dag.path("entry_step");
            if (!entry.isTextual()) {
                problem(ErrorCode.MISSING_FIELD, ROOT + ".entry_step", "is required: the step_id of the first step");
            } else if (!steps.isEmpty() && !index.containsKey(entry.textValue())) {
                problem(
                        ErrorCode.INVALID_DEFINITION,
                        ROOT + ".entry_step",
                        "is '" + entry.textValue() + "', which is not a step_id of this router");
            }
            for (int i = 0; i < steps.size(); i++) {
                step(i, steps.get(i));
            }
            for (int i = 0; i < steps.size(); i++) {
                ending(i, steps.get(i));
            }
            boolean acyclic = noCycle();
            if (acyclic && entry.isTextual() && index.containsKey(entry.textValue())) {
                reachable(entry.textValue());
            }
        }

        private void step(int i, JsonNode step) {
            String at = stepAt(i);
            String id = step.path("step_id").asText();
            JsonNode params = step.has("params") ? step.get("params") : Json.object();
            Optional<ActionCatalog.Action> action =
                    catalog.find(step.path("action_type").asText());
            if (action.isEmpty()) {
                problem(
                        ErrorCode.INVALID_FIELD,
                        at + ".action_type",
                        "is '" + step.path("action_type").asText() + "', which is not an action; the actions are "
                                + catalog.types());
            } else {
                catalog.check(action.get(), params, at + ".params", problems, rules);
            }
            JsonNode conditions = step.path("conditions");
            for (int c = 0; c < conditions.size(); c++) {
                String where = ParamPath.index(at + ".conditions", c);
                expressions
                        .syntaxError(conditions.get(c).asText())
                        .ifPresent(why -> problem(ErrorCode.INVALID_FIELD, where, "is not an expression: " + why));
            }
            link(id, step.path("next_steps"), at + ".next_steps", false);
            link(id, step.path("depends_on"), at + ".depends_on", true);
            JsonNode branches = params.path("branches");
            for (int b = 0; branches.isArray() && b < branches.size(); b++) {
                JsonNode target = branches.get(b).path("next_step");
                if (target.isTextual()) {
                    target(id, target.textValue(), ParamPath.index(at + ".params.branches", b) + ".next_step");
                }
            }
            JsonNode fallback = params.path("fallback_step");
            if (fallback.isTextual()) {
                target(id, fallback.textValue(), at + ".params.fallback_step");
            }
        }

        /** A step that ends a route must select an endpoint or answer, and one that does must end it. */
        private void ending(int i, JsonNode step) {
            String at = stepAt(i);
            String id = step.path("step_id").asText();
            Optional<ActionCatalog.Action> action =
                    catalog.find(step.path("action_type").asText());
            if (action.isEmpty() || !Integer.valueOf(i).equals(index.get(id))) {
                return;
            }
            JsonNode branches = step.path("params").path("branches");
            boolean hasDefault = false;
            for (JsonNode branch : branches) {
                hasDefault |= branch.isObject() && !branch.hasNonNull("condition");
            }
            boolean leads = !edges.getOrDefault(id, Set.of()).isEmpty()
                    || step.path("next_steps").size() > 0;
            if (action.get().terminal() && leads) {
                problem(
                        ErrorCode.INVALID_DEFINITION,
                        at + ".next_steps",
                        "follows a " + action.get().type() + " step, which ends the route: it selects an endpoint or"
                                + " answers, so no step runs after it");
            } else if (!action.get().terminal() && !leads) {
                problem(
                        ErrorCode.INVALID_DEFINITION,
                        at + ".next_steps",
                        "is empty, but a " + action.get().type() + " step neither selects an endpoint nor answers:"
                                + " the route must go on to a step that does");
            } else if (action.get().param("branches").isPresent()
                    && branches.isArray()
                    && !branches.isEmpty()
                    && !hasDefault
                    && step.path("next_steps").isEmpty()) {
                problem(
                        ErrorCode.INVALID_DEFINITION,
                        at + ".params.branches",
                        "has no default branch (one without a condition) and no next_steps: a request that no"
                                + " condition holds for would have nowhere to go");
            }
        }

        /** Links {@code id} to the steps a list names: the steps after it, or (depends_on) the steps before it. */
        private void link(String id, JsonNode list, String at, boolean before) {
            for (int l = 0; l < list.size(); l++) {
                String other = list.get(l).asText();
                String where = ParamPath.index(at, l);
                if (other.equals(id)) {
                    problem(ErrorCode.INVALID_DEFINITION, where, "names the step itself");
                } else if (!index.containsKey(other)) {
                    problem(ErrorCode.INVALID_DEFINITION, where, "names no step of this router ('" + other + "')");
                } else if (before) {
                    edges.computeIfAbsent(other, key -> new LinkedHashSet<>()).add(id);
                } else {
                    edges.computeIfAbsent(id, key -> new LinkedHashSet<>()).add(other);
                }
            }
        }

        private void target(String id, String target, String at) {
            if (target.equals(id)) {
                problem(ErrorCode.INVALID_DEFINITION, at, "names the step itself");
            } else if (!index.containsKey(target)) {
                problem(ErrorCode.INVALID_DEFINITION, at, "names no step of this router ('" + target + "')");
            } else {
                edges.computeIfAbsent(id, key -> new LinkedHashSet<>()).add(target);
            }
        }

        /** Reports one cycle with its path, at the step it starts from; whether there is none. */
        private boolean noCycle() {
            var state = new HashMap<String, Integer>(); // 1: on the current path, 2: done
            for (String start : index.keySet()) {
                List<String> cycle = walk(start, state, new ArrayList<>());
                if (!cycle.isEmpty()) {
                    problem(
                            ErrorCode.INVALID_DEFINITION,
                            stepAt(requireNonNull(index.get(cycle.getFirst()))) + ".next_steps",
                            "makes a cycle: " + String.join(" → ", cycle));
                    return false;
                }
            }
            return true;
        }

        private List<String> walk(String id, Map<String, Integer> state, List<String> path) {
            Integer seen = state.get(id);
            if (seen != null && seen == 2) {
                return List.of();
            }
            if (seen != null) {
                var cycle = new ArrayList<>(path.subList(path.indexOf(id), path.size()));
                cycle.add(id);
                return cycle;
            }
            state.put(id, 1);
            path.add(id);
            for (String next : edges.getOrDefault(id, Set.of())) {
                List<String> cycle = walk(next, state, path);
                if (!cycle.isEmpty()) {
                    return cycle;
                }
            }
            path.removeLast();
            state.put(id, 2);
            return List.of();
        }

        private void reachable(String entry) {
            var reached = new HashSet<String>();
            var todo = new ArrayDeque<String>();
            todo.add(entry);
            while (!todo.isEmpty()) {
                String id = todo.poll();
                if (reached.add(id)) {
                    todo.addAll(edges.getOrDefault(id, Set.of()));
                }
            }
            index.forEach((id, i) -> {
                if (!reached.contains(id)) {
                    problem(
                            ErrorCode.INVALID_DEFINITION,
                            stepAt(i) + ".step_id",
                            "is '" + id + "', which no way from the entry step '" + entry + "' reaches");
                }
            });
        }

        private void problem(ErrorCode code, String param, String why) {
            problems.add(code, param, "`" + param + "` " + why + ".");
        }

        private static String stepAt(int i) {
            return ParamPath.index(ROOT + ".steps", i);
        }
    }
}
