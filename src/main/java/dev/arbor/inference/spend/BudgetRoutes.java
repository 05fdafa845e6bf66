package dev.arbor.inference.spend;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static dev.arbor.platform.http.bodies.BodyField.Presence.REQUIRED;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import dev.arbor.access.Access;
import dev.arbor.access.CurrentProject;
import dev.arbor.access.Principal;
import dev.arbor.access.ProjectId;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.Deleted;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodyReader;
import dev.arbor.platform.http.bodies.BodySpec;
import dev.arbor.platform.ids.Ids;
import io.javalin.http.Context;
import java.math.BigDecimal;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.BiPredicate;
import org.jspecify.annotations.Nullable;

/**
 * {@code /budgets}: the budgets of the current project, of its inference keys and of its routers. Members manage their
 * own projects' budgets; another project's budget is not found.
 */
public final class BudgetRoutes {
    /** Ten million USD: more is a typo, not a budget. */
    static final BigDecimal MAX_USD = BigDecimal.valueOf(10_000_000);

    static final long MAX_TOKENS = 1_000_000_000_000_000L;

    private static final BodyField<String> PROJECT_ID = BodyField.text(OPTIONAL, CurrentProject.FIELD, 100);
    private static final BodyField<Budget.Scope> SCOPE =
            BodyField.word(REQUIRED, "scope", Arrays.asList(Budget.Scope.values()), Budget.Scope::wire);
    private static final BodyField<String> SCOPE_ID = BodyField.text(OPTIONAL, "scope_id", 100);
    private static final BodyField<Double> USD =
            BodyField.number(OPTIONAL, "usd", Schema.Bound.exclusive(0), Schema.Bound.inclusive(MAX_USD.doubleValue()));
    private static final BodyField<Long> TOKENS = BodyField.integer(OPTIONAL, "tokens", 1, MAX_TOKENS);
    private static final BodyField<Budget.Period> PERIOD =
            BodyField.word(REQUIRED, "period", Arrays.asList(Budget.Period.values()), Budget.Period::wire);
    private static final BodyField<String> TIME_ZONE = BodyField.text(OPTIONAL, "time_zone", 100);
    static final BodySpec NEW_BUDGET =
            BodySpec.closed("a budget", PROJECT_ID, SCOPE, SCOPE_ID, USD, TOKENS, PERIOD, TIME_ZONE);

    static final Schema BUDGET = Schema.object()
            .required("id", Schema.string())
            .required("object", Schema.oneOf("budget"))
            .required("project_id", Schema.string())
            .required("scope", Schema.oneOf("project", "key", "router"))
            .required("scope_id", Schema.string())
            .required("usd", Schema.nullable(Schema.number()))
            .required("tokens", Schema.nullable(Schema.integer()))
            .required("period", Schema.oneOf("day", "week", "month", "total"))
            .required("time_zone", Schema.string())
            .required("created_at", Schema.integer())
            .required("period_start", Schema.integer())
            .required("resets_at", Schema.nullable(Schema.integer()))
            .required("spent_usd", Schema.number())
            .required("spent_tokens", Schema.integer())
            .required("reserved_usd", Schema.number())
            .required("reserved_tokens", Schema.integer());

    private final Budgets budgets;
    private final Access access;
    private final BiPredicate<String, String> keyInProject;
    private final BiPredicate<String, String> routerInProject;

    /**
     * @param keyInProject whether an inference key (its id) is in a project (its id)
     * @param routerInProject whether a router (its id) is in a project
     */
    public BudgetRoutes(
            Budgets budgets,
            Access access,
            BiPredicate<String, String> keyInProject,
            BiPredicate<String, String> routerInProject) {
        this.budgets = requireNonNull(budgets, "budgets");
        this.access = requireNonNull(access, "access");
        this.keyInProject = requireNonNull(keyInProject, "keyInProject");
        this.routerInProject = requireNonNull(routerInProject, "routerInProject");
    }

    public void addTo(Routes routes) {
        routes.group("spend")
                .post(
                        "/budgets",
                        "Create a budget of the current project, or of one of its inference keys or routers: USD and/or "
                                + "tokens per day, week or month in a time zone, or in total",
                        this::create)
                .body(NEW_BUDGET.schema())
                .header(CurrentProject.HEADER)
                .created(BUDGET)
                .get("/budgets", "The budgets of the current project, with what each period has spent", this::list)
                .header(CurrentProject.HEADER)
                .ok(Schema.list(BUDGET))
                .get("/budgets/{budget_id}", "A budget, with what its period has spent", this::get)
                .header(CurrentProject.HEADER)
                .ok(BUDGET)
                .delete("/budgets/{budget_id}", "Delete a budget: its requests are no longer capped", this::delete)
                .header(CurrentProject.HEADER)
                .ok(Schema.deleted("budget"));
    }

    @JsonPropertyOrder({
        "id",
        "object",
        "project_id",
        "scope",
        "scope_id",
        "usd",
        "tokens",
        "period",
        "time_zone",
        "created_at",
        "period_start",
        "resets_at",
        "spent_usd",
        "spent_tokens",
        "reserved_usd",
        "reserved_tokens"
    })
    record BudgetJson(
            @JsonProperty("id") String id,
            @JsonProperty("object") String object,
            @JsonProperty("project_id") String projectId,
            @JsonProperty("scope") String scope,
            @JsonProperty("scope_id") String scopeId,

            @JsonProperty("usd") @JsonSerialize(using = PlainDecimal.class) @Nullable
            BigDecimal usd,

            @JsonProperty("tokens") @Nullable Long tokens,
            @JsonProperty("period") String period,
            @JsonProperty("time_zone") String timeZone,
            @JsonProperty("created_at") long createdAt,
            @JsonProperty("period_start") long periodStart,
            @JsonProperty("resets_at") @Nullable Long resetsAt,

            @JsonProperty("spent_usd") @JsonSerialize(using = PlainDecimal.class)
            BigDecimal spentUsd,

            @JsonProperty("spent_tokens") long spentTokens,

            @JsonProperty("reserved_usd") @JsonSerialize(using = PlainDecimal.class)
            BigDecimal reservedUsd,

            @JsonProperty("reserved_tokens") long reservedTokens) {
        static BudgetJson of(Budget budget, Budgets budgets) {
            long now = budgets.nowMillis();
            BudgetStore.Standing standing = budgets.standing(budget);
            return new BudgetJson(
                    budget.id(),
                    "budget",
                    budget.projectId(),
                    budget.scope().wire(),
                    budget.scopeId(),
                    budget.usdPicos().isPresent()
                            ? Price.usdOfPicos(budget.usdPicos().getAsLong())
                            : null,
                    budget.tokens().isPresent() ? budget.tokens().getAsLong() : null,
                    budget.period().wire(),
                    budget.zone().getId(),
                    budget.createdAtMillis() / 1000,
                    budget.periodStart(now) / 1000,
                    budget.resetsAt(now).map(at -> at.getEpochSecond()).orElse(null),
                    Price.usdOfPicos(standing.spentPicos()),
                    standing.spentTokens(),
                    Price.usdOfPicos(standing.reservedPicos()),
                    standing.reservedTokens());
        }
    }

    private BudgetJson json(Budget budget) {
        return BudgetJson.of(budget, budgets);
    }

    private void create(Context ctx) {
        BodyReader body = NEW_BUDGET.reader(Requests.jsonObject(ctx));
        Optional<String> projectId = PROJECT_ID.read(body);
        Optional<Budget.Scope> scope = SCOPE.read(body);
        Optional<String> scopeId = SCOPE_ID.read(body).map(String::strip);
        Optional<BigDecimal> usd = USD.read(body).map(BigDecimal::valueOf);
        Optional<Long> tokens = TOKENS.read(body);
        Optional<Budget.Period> period = PERIOD.read(body);
        Optional<ZoneId> zone = zone(TIME_ZONE.read(body).map(String::strip).orElse("UTC"), body);
        usd.filter(amount -> amount.stripTrailingZeros().scale() > Price.SCALE)
                .ifPresent(amount -> body.reject(
                        "usd", ErrorCode.INVALID_FIELD, "has more than " + Price.SCALE + " decimal places"));
        if (usd.isEmpty()
                && tokens.isEmpty()
                && !body.problems().list().stream()
                        .anyMatch(p -> List.of("usd", "tokens").contains(p.param()))) {
            body.reject("usd", ErrorCode.INVALID_FIELD, "or `tokens` is required: what the budget caps");
        }
        if (scope.filter(s -> s != Budget.Scope.PROJECT).isPresent() && scopeId.isEmpty()) {
            body.reject("scope_id", ErrorCode.INVALID_FIELD, "is required for a key's or router's budget (its id)");
        }
        body.finish();
        ProjectId project = access.currentProject().required(ctx, projectId);
        Budget.Scope of = scope.orElseThrow();
        String target = of == Budget.Scope.PROJECT ? project.value() : scopeId.orElseThrow();
        if (of == Budget.Scope.PROJECT
                && scopeId.filter(id -> !id.equals(project.value())).isPresent()) {
            throw ApiException.of(
                    ErrorCode.INVALID_FIELD,
                    "scope_id",
                    "`scope_id` of a project's budget is the project's own id, or absent.");
        }
        if ((of == Budget.Scope.KEY && !keyInProject.test(target, project.value()))
                || (of == Budget.Scope.ROUTER && !routerInProject.test(target, project.value()))) {
            throw ApiException.of(
                    of == Budget.Scope.KEY ? ErrorCode.KEY_NOT_FOUND : ErrorCode.ROUTER_NOT_FOUND,
                    "scope_id",
                    "There is no " + of.wire() + " '" + target + "' in project " + project.value() + ".");
        }
        Budget created = budgets.create(new Budget(
                Ids.next("bgt"),
                project.value(),
                of,
                target,
                usd.map(amount -> OptionalLong.of(amount.movePointRight(12).longValueExact()))
                        .orElse(OptionalLong.empty()),
                tokens.map(OptionalLong::of).orElse(OptionalLong.empty()),
                period.orElseThrow(),
                zone.orElseThrow(),
                budgets.nowMillis()));
        Responses.created(ctx, "/budgets/" + created.id(), json(created));
    }

    /** An IANA zone or a fixed offset from UTC, to the second ({@code +05:45}, {@code -03:17:30}). */
    private static Optional<ZoneId> zone(String sent, BodyReader body) {
        try {
            return Optional.of(ZoneId.of(sent));
        } catch (DateTimeException e) {
            body.reject(
                    "time_zone",
                    ErrorCode.INVALID_FIELD,
                    "is an IANA time zone (Europe/Paris) or an offset from UTC (+05:45, -03:17:30), not '" + sent
                            + "'");
            return Optional.empty();
        }
    }

    private void list(Context ctx) {
        Optional<ProjectId> named = access.currentProject().named(ctx);
        Principal principal = Access.principal(ctx);
        Optional<Set<String>> projects = named.<Optional<Set<String>>>map(p -> Optional.of(Set.of(p.value())))
                .orElseGet(() -> principal.isAdmin() ? Optional.empty() : Optional.of(principal.projects()));
        List<BudgetJson> all =
                budgets.ofProjects(projects).stream().map(this::json).toList();
        Responses.ok(ctx, Responses.list(all, all.stream().map(BudgetJson::id).toList(), false));
    }

    private void get(Context ctx) {
        Responses.ok(ctx, json(visible(ctx)));
    }

    private void delete(Context ctx) {
        String id = visible(ctx).id();
        budgets.delete(id);
        Responses.ok(ctx, Deleted.of(id, "budget"));
    }

    private Budget visible(Context ctx) {
        Optional<ProjectId> current = access.currentProject().named(ctx);
        Principal principal = Access.principal(ctx);
        String id = ctx.pathParam("budget_id");
        return budgets.find(id)
                .filter(b -> principal.mayActIn(b.projectId()))
                .filter(b -> current.map(p -> p.value().equals(b.projectId())).orElse(true))
                .orElseThrow(() -> ApiException.of(
                        ErrorCode.BUDGET_NOT_FOUND,
                        "budget_id",
                        "There is no budget '" + id + "' in a project you may use."));
    }
}
