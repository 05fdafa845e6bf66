package dev.arbor.routers;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.access.Principal;
import dev.arbor.platform.actions.Expressions;
import dev.arbor.platform.actions.ParamRules;
import dev.arbor.platform.actions.ParamSpec;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problems;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * What router params mean beyond their shape, for one caller: every value is known when the router is saved;
 * branches are {@code [{name, condition?, next_step}]} with conditions in the pipelines' expression language (a
 * branch without one is the default, at most one); every reference names something that exists, a project one the
 * caller may act in, a deployment one of the router's project that the caller may act in too (another project's
 * deployment reads as none, by id or name: the answer says nothing of other projects).
 */
final class RouterParams implements ParamRules {
    private static final int MAX_BRANCH_NAME = 100;
    private static final int MAX_CONDITION = 2_000;
    private static final Set<String> BRANCH_FIELDS = Set.of("name", "condition", "next_step");

    private final Lookups lookups;
    private final Expressions expressions;
    private final Principal caller;
    private final Predicate<String> routerProjects;

    /**
     * The checks for {@code caller} saving a router whose deployments are in a project {@code routerProjects} accepts:
     * the router's own project for a save; for a check of one action, which names no router, the current project, or
     * every project the caller may act in when none is named.
     */
    RouterParams(Lookups lookups, Expressions expressions, Principal caller, Predicate<String> routerProjects) {
        this.lookups = requireNonNull(lookups, "lookups");
        this.expressions = requireNonNull(expressions, "expressions");
        this.caller = requireNonNull(caller, "caller");
        this.routerProjects = requireNonNull(routerProjects, "routerProjects");
    }

    @Override
    public boolean knownAtRunTime(JsonNode value) {
        return false;
    }

    @Override
    public void checkBranches(ParamSpec spec, JsonNode value, String param, Problems problems) {
        if (!value.isArray()) {
            ParamSpec.invalid(problems, param, "must be an array of branches, each {name, condition?, next_step}");
            return;
        }
        if (spec.required() && value.isEmpty()) {
            ParamSpec.invalid(problems, param, "must not be empty");
            return;
        }
        if (spec.maxItems().isPresent() && value.size() > spec.maxItems().getAsInt()) {
            ParamSpec.invalid(
                    problems, param, "must have at most " + spec.maxItems().getAsInt() + " items");
            return;
        }
        Map<String, Integer> names = new HashMap<>();
        Optional<Integer> defaultBranch = Optional.empty();
        for (int i = 0; i < value.size(); i++) {
            JsonNode branch = value.get(i);
            String at = ParamPath.index(param, i);
            if (!branch.isObject()) {
                ParamSpec.invalid(problems, at, "must be an object {name, condition?, next_step}");
                continue;
            }
            branch.properties().stream()
                    .filter(field -> !BRANCH_FIELDS.contains(field.getKey()))
                    .forEach(field -> ParamSpec.invalid(
                            problems,
                            ParamPath.key(at, field.getKey()),
                            "is not a field of a branch {name, condition?, next_step}"));
            JsonNode name = branch.path("name");
            if (!name.isTextual()
                    || name.textValue().isBlank()
                    || name.textValue().length() > MAX_BRANCH_NAME) {
                ParamSpec.invalid(
                        problems,
                        at + ".name",
                        "must be a non-empty string of at most " + MAX_BRANCH_NAME + " characters");
            } else {
                Integer first = names.putIfAbsent(name.textValue(), i);
                if (first != null) {
                    ParamSpec.invalid(problems, at + ".name", "repeats the name of " + ParamPath.index(param, first));
                }
            }
            JsonNode condition = branch.path("condition");
            if (condition.isMissingNode() || condition.isNull()) {
                if (defaultBranch.isPresent()) {
                    ParamSpec.invalid(
                            problems,
                            at + ".condition",
                            "is missing, and " + ParamPath.index(param, defaultBranch.get())
                                    + " is the default branch already: only one branch may go without a condition");
                } else {
                    defaultBranch = Optional.of(i);
                }
            } else if (!condition.isTextual() || condition.textValue().length() > MAX_CONDITION) {
                ParamSpec.invalid(
                        problems,
                        at + ".condition",
                        "must be an expression of at most " + MAX_CONDITION + " characters");
            } else {
                String where = at + ".condition";
                expressions
                        .syntaxError(condition.textValue())
                        .ifPresent(why -> ParamSpec.invalid(problems, where, "is not an expression: " + why));
            }
            JsonNode next = branch.path("next_step");
            if (!next.isTextual() || next.textValue().isBlank()) {
                if (next.isMissingNode() || next.isNull()) {
                    problems.add(
                            ErrorCode.MISSING_FIELD,
                            at + ".next_step",
                            "`" + at + ".next_step` is required: the step_id the branch leads to.");
                } else {
                    ParamSpec.invalid(problems, at + ".next_step", "must be the step_id the branch leads to");
                }
            }
        }
    }

    @Override
    public void checkReference(ParamSpec.Type type, String id, String param, Problems problems) {
        switch (type) {
            case ENDPOINT_REF ->
                require(
                        lookups.endpoint(project -> routerProjects.test(project) && caller.mayActIn(project), id),
                        "endpoint (a cloud model of the registry, or a running deployment of this project by id)",
                        id,
                        param,
                        problems);
            case CLOUD_MODEL_REF -> require(lookups.cloudModel(id), "cloud model of the registry", id, param, problems);
            case MODEL_REF -> require(lookups.model(id), "model of the registry", id, param, problems);
            case CREDENTIAL_REF -> require(lookups.credential(id), "credential (by id or name)", id, param, problems);
            case CLUSTER_REF -> require(lookups.cluster(id), "cluster (this server is 'local')", id, param, problems);
            case PROVIDER_REF ->
                require(
                        lookups.provider(id),
                        "provider (a known name such as openai, or the API URL of a cloud model of the registry)",
                        id,
                        param,
                        problems);
            case PROJECT_REF ->
                // a project the caller may not act in reads as none: the answer says nothing of other projects
                require(
                        caller.mayActIn(id) && lookups.project(id),
                        "project this token may act in",
                        id,
                        param,
                        problems);
            default -> {}
        }
    }

    private static void require(boolean exists, String what, String id, String param, Problems problems) {
        if (!exists) {
            problems.add(
                    ErrorCode.UNKNOWN_REFERENCE,
                    param,
                    "`" + param + "` is '" + id + "', which names no " + what + ".");
        }
    }
}
