package dev.arbor.routers;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.access.Principal;
import dev.arbor.platform.actions.Expressions;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problem;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.errors.Warning;
import dev.arbor.platform.errors.WarningCode;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * The checks of a router's graph and of one step's action, as a save, {@code POST /routers/validate} and
 * {@code POST /routers/actions/validate} all run them: the shape always, completeness as errors for a router that may
 * serve (active) and as warnings otherwise, and the delegate targets not active yet as warnings.
 */
final class RouterChecks {
    private final RouterStore store;
    private final RouterCatalog catalog;
    private final DagCheck dags;
    private final Lookups lookups;
    private final Expressions expressions;

    RouterChecks(RouterStore store, RouterCatalog catalog, DagCheck dags, Lookups lookups, Expressions expressions) {
        this.store = requireNonNull(store, "store");
        this.catalog = requireNonNull(catalog, "catalog");
        this.dags = requireNonNull(dags, "dags");
        this.lookups = requireNonNull(lookups, "lookups");
        this.expressions = requireNonNull(expressions, "expressions");
    }

    /** Who checks, and in which projects a deployment a step names is looked for. */
    record Checker(Principal principal, Predicate<String> projects) {
        Checker {
            requireNonNull(principal, "principal");
            requireNonNull(projects, "projects");
        }
    }

    /** One step's action and params checked as a save would check them (references too). */
    Problems action(JsonNode request, Checker checker) {
        var problems = new Problems();
        catalog.checkRequest(request, problems, rules(checker));
        return problems;
    }

    /**
     * Checks a graph for a save in {@code status}, adding its errors to {@code problems}; answers its warnings. A
     * graph whose shape is wrong has no warnings (its completeness is not looked at).
     */
    List<Warning> graph(JsonNode dag, RouterStatus status, Problems problems, Checker checker) {
        if (!dags.shape(dag, problems)) {
            return List.of();
        }
        var gaps = new Problems();
        dags.complete(dag, gaps, rules(checker));
        var warnings = new ArrayList<>(awaitedTargets(dag));
        if (status == RouterStatus.ACTIVE) {
            problems.addAll(gaps.list());
            return warnings;
        }
        for (Problem gap : gaps.list()) {
            warnings.add(new Warning(WarningCode.ROUTER_INCOMPLETE, gap.message(), gap.param()));
        }
        return warnings;
    }

    /**
     * What keeps a stored router's graph from serving as it stands, as a save of it in its status would warn. The
     * gaps of an active router's graph (something it names deleted since) are not warnings: its requests name them.
     */
    List<Warning> warnings(Router router, Principal principal) {
        return graph(
                router.dagConfig(),
                router.status(),
                new Problems(),
                new Checker(principal, router.projectId()::equals));
    }

    /**
     * The delegate steps whose router is not active in its project (yet): a router may be saved before the one it
     * hands requests to, so this is a warning, and the runtime looks the target up per request.
     */
    private List<Warning> awaitedTargets(JsonNode dag) {
        var warnings = new ArrayList<Warning>();
        JsonNode steps = dag.path("steps");
        for (int i = 0; i < steps.size(); i++) {
            JsonNode step = steps.get(i);
            JsonNode project = step.path("params").path("project");
            JsonNode router = step.path("params").path("router");
            if (step.path("action_type").asText().equals(RouterCatalog.DELEGATE)
                    && project.isTextual()
                    && router.isTextual()
                    && store.findActive(project.textValue()::equals, router.textValue())
                            .isEmpty()) {
                String param = ParamPath.index(DagCheck.ROOT + ".steps", i) + ".params.router";
                warnings.add(new Warning(
                        WarningCode.DELEGATE_TARGET_INACTIVE,
                        "`" + param + "` is '" + router.textValue() + "', which is no active router of project '"
                                + project.textValue() + "' yet: until it is, a request that reaches step '"
                                + step.path("step_id").asText() + "' is 404 router_not_found.",
                        param));
            }
        }
        return warnings;
    }

    private RouterParams rules(Checker checker) {
        return new RouterParams(lookups, expressions, checker.principal(), checker.projects());
    }
}
