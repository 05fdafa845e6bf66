package dev.arbor.inference.spend;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static java.util.Objects.requireNonNull;

import dev.arbor.access.Access;
import dev.arbor.access.CurrentProject;
import dev.arbor.access.Principal;
import dev.arbor.access.ProjectId;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.http.Deleted;
import dev.arbor.platform.http.QueryParam;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodyReader;
import dev.arbor.platform.http.bodies.BodySpec;
import io.javalin.http.Context;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * {@code GET /spend}: what the current project's requests cost (an admin naming no project: every project's), grouped;
 * {@code GET /prices}, {@code PUT} and {@code DELETE /prices/{endpoint}}: the price catalog and the prices admins set.
 */
public final class SpendRoutes {
    private static final long LAST_SECOND = 253_402_300_799L;
    private static final Schema.Bound NONE = Schema.Bound.inclusive(0);
    private static final Schema.Bound MOST = Schema.Bound.inclusive(Price.MAX_USD.doubleValue());

    private static final QueryParam GROUP_BY = new QueryParam(
            "group_by",
            Schema.string(200),
            "Comma-separated: any of key, project, router, model, endpoint, and one of day, week, month (UTC).");
    private static final QueryParam FROM = new QueryParam(
            "from",
            Schema.integer(0, LAST_SECOND),
            "Requests from this moment on (Unix seconds); default: this month.");
    private static final QueryParam TO = new QueryParam(
            "to", Schema.integer(0, LAST_SECOND), "Requests before this moment (Unix seconds); default: now.");
    private static final QueryParam FORMAT =
            new QueryParam("format", Schema.oneOf("json", "csv"), "json (default) or csv (as Accept: text/csv).");

    private static final BodyField<Double> INPUT = BodyField.number(OPTIONAL, "input", NONE, MOST);
    private static final BodyField<Double> OUTPUT = BodyField.number(OPTIONAL, "output", NONE, MOST);
    private static final BodyField<Double> CACHED_INPUT = BodyField.number(OPTIONAL, "cached_input", NONE, MOST);
    private static final BodyField<String> PRICED_AS = BodyField.text(OPTIONAL, "priced_as", 200);
    static final BodySpec PRICE = BodySpec.closed("a price", INPUT, OUTPUT, CACHED_INPUT, PRICED_AS);

    private static final Schema AMOUNT = Schema.number();
    private static final Schema ROW = Schema.object()
            .required("group", Schema.mapOf(Schema.nullable(Schema.string())))
            .required("requests", Schema.integer())
            .required("prompt_tokens", Schema.integer())
            .required("completion_tokens", Schema.integer())
            .required("cost_usd", AMOUNT)
            .required("unpriced_requests", Schema.integer());
    private static final Schema SPEND = Schema.object()
            .required("object", Schema.oneOf("spend"))
            .required("from", Schema.integer())
            .required("to", Schema.integer())
            .required("group_by", Schema.arrayOf(Schema.string()))
            .required("data", Schema.arrayOf(ROW));
    private static final Schema.Obj OVERRIDE = Schema.object()
            .required("object", Schema.oneOf("price"))
            .required("endpoint", Schema.string())
            .required("input", Schema.nullable(AMOUNT))
            .required("output", Schema.nullable(AMOUNT))
            .required("cached_input", Schema.nullable(AMOUNT))
            .required("priced_as", Schema.nullable(Schema.string()))
            .required("set_at", Schema.integer());
    private static final Schema PRICES = Schema.object()
            .required("object", Schema.oneOf("prices"))
            .required("catalog_date", Schema.string())
            .required(
                    "catalog",
                    Schema.arrayOf(Schema.object()
                            .required("provider", Schema.string())
                            .required("model", Schema.string())
                            .required("input", AMOUNT)
                            .required("output", AMOUNT)
                            .required("cached_input", Schema.nullable(AMOUNT))))
            .required("overrides", Schema.arrayOf(OVERRIDE));

    private final SpendStore store;
    private final Prices prices;
    private final Access access;
    private final Predicate<String> knownEndpoint;
    private final Clock clock;

    /** @param knownEndpoint whether a reference names a cloud model of the registry or a deployment */
    public SpendRoutes(Database database, Prices prices, Access access, Predicate<String> knownEndpoint, Clock clock) {
        this.store = new SpendStore(requireNonNull(database, "database"));
        this.prices = requireNonNull(prices, "prices");
        this.access = requireNonNull(access, "access");
        this.knownEndpoint = requireNonNull(knownEndpoint, "knownEndpoint");
        this.clock = requireNonNull(clock, "clock");
    }

    public void addTo(Routes routes) {
        routes.group("spend")
                .get(
                        "/spend",
                        "What the current project's inference requests cost, grouped (an admin naming no project: "
                                + "every project's); CSV with Accept: text/csv or format=csv",
                        this::spend)
                .query(GROUP_BY, FROM, TO, FORMAT)
                .header(CurrentProject.HEADER)
                .ok(SPEND)
                .answers(200, "text/csv", Schema.any("A header row, then one row per group"))
                .get("/prices", "The price catalog, its date, and the prices admins set (admin)", this::list)
                .ok(PRICES)
                .put(
                        "/prices/{endpoint}",
                        "Set what a cloud model or deployment costs: USD per million tokens, or a catalog entry "
                                + "(priced_as: provider/model) (admin)",
                        this::set)
                .body(PRICE.schema())
                .ok(OVERRIDE)
                .delete(
                        "/prices/{endpoint}",
                        "Forget a cloud model's or deployment's price: the catalog's (or none) applies again (admin)",
                        this::clear)
                .ok(Schema.deleted("price"));
    }

    private void spend(Context ctx) {
        var problems = new Problems();
        List<SpendQuery.Dimension> groupBy = groupBy(GROUP_BY.read(ctx).orElse(""), problems);
        long now = clock.millis();
        long to = seconds(TO, ctx, problems).map(s -> s * 1000).orElse(now);
        long from = seconds(FROM, ctx, problems)
                .map(s -> s * 1000)
                .orElseGet(() -> LocalDate.ofInstant(java.time.Instant.ofEpochMilli(now), ZoneOffset.UTC)
                        .withDayOfMonth(1)
                        .atStartOfDay(ZoneOffset.UTC)
                        .toInstant()
                        .toEpochMilli());
        if (from >= to) {
            problems.add(ErrorCode.INVALID_PARAMETER, "from", "`from` must be before `to`.");
        }
        Optional<String> format = FORMAT.read(ctx);
        if (format.isPresent() && !List.of("json", "csv").contains(format.get())) {
            problems.add(ErrorCode.INVALID_PARAMETER, "format", "`format` is json or csv, not '" + format.get() + "'.");
        }
        problems.throwIfAny();
        var query = new SpendQuery(projects(ctx), from, to, groupBy);
        List<SpendStore.Row> rows = store.totals(query);
        boolean csv = format.map("csv"::equals)
                .orElseGet(() -> Optional.ofNullable(ctx.header("Accept"))
                        .filter(accept -> accept.contains("text/csv"))
                        .isPresent());
        if (csv) {
            csv(ctx, groupBy, rows);
            return;
        }
        Responses.ok(
                ctx,
                new SpendReplies.SpendJson(
                        "spend",
                        from / 1000,
                        to / 1000,
                        groupBy.stream().map(SpendQuery.Dimension::wire).toList(),
                        rows.stream().map(SpendReplies.RowJson::of).toList()));
    }

    /** The projects a caller may see the spend of: the one named; else an admin's every one, a member's own. */
    private Optional<Set<String>> projects(Context ctx) {
        Optional<ProjectId> named = access.currentProject().named(ctx);
        if (named.isPresent()) {
            return Optional.of(Set.of(named.get().value()));
        }
        Principal principal = Access.principal(ctx);
        return principal.isAdmin() ? Optional.empty() : Optional.of(principal.projects());
    }

    private static List<SpendQuery.Dimension> groupBy(String sent, Problems problems) {
        var dimensions = new ArrayList<SpendQuery.Dimension>();
        for (String word : sent.split(",", -1)) {
            String name = word.strip().toLowerCase(Locale.ROOT);
            if (name.isEmpty() && sent.isBlank()) {
                continue;
            }
            Optional<SpendQuery.Dimension> dimension = SpendQuery.Dimension.of(name);
            if (dimension.isEmpty()) {
                problems.add(
                        ErrorCode.INVALID_PARAMETER,
                        "group_by",
                        "`group_by` names '" + word.strip() + "'; it is a comma-separated list of "
                                + String.join(
                                        ", ",
                                        Arrays.stream(SpendQuery.Dimension.values())
                                                .map(SpendQuery.Dimension::wire)
                                                .toList())
                                + ".");
            } else if (dimensions.contains(dimension.get())) {
                problems.add(ErrorCode.INVALID_PARAMETER, "group_by", "`group_by` names '" + name + "' twice.");
            } else {
                dimensions.add(dimension.get());
            }
        }
        if (dimensions.stream().filter(SpendQuery.Dimension::period).count() > 1) {
            problems.add(ErrorCode.INVALID_PARAMETER, "group_by", "`group_by` takes one period: day, week or month.");
        }
        return dimensions;
    }

    private static Optional<Long> seconds(QueryParam param, Context ctx, Problems problems) {
        Optional<String> sent = param.read(ctx);
        if (sent.isEmpty()) {
            return Optional.empty();
        }
        try {
            long seconds = Long.parseLong(sent.get().strip());
            if (seconds >= 0 && seconds <= LAST_SECOND) {
                return Optional.of(seconds);
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        problems.add(
                ErrorCode.INVALID_PARAMETER,
                param.name(),
                "`" + param.name() + "` is a moment in Unix seconds, not '" + sent.get() + "'.");
        return Optional.empty();
    }

    private static void csv(Context ctx, List<SpendQuery.Dimension> groupBy, List<SpendStore.Row> rows) {
        ctx.contentType("text/csv; charset=utf-8");
        ctx.header("content-disposition", "attachment; filename=\"spend.csv\"");
        try (var out =
                new BufferedWriter(new OutputStreamWriter(ctx.res().getOutputStream(), StandardCharsets.UTF_8))) {
            var header = new ArrayList<String>();
            groupBy.forEach(d -> header.add(d.column()));
            header.addAll(List.of("requests", "prompt_tokens", "completion_tokens", "cost_usd", "unpriced_requests"));
            out.write(String.join(",", header) + "\r\n");
            for (SpendStore.Row row : rows) {
                var cells = new ArrayList<String>();
                row.group().values().forEach(value -> cells.add(cell(value == null ? "" : value)));
                cells.add(Long.toString(row.requests()));
                cells.add(Long.toString(row.promptTokens()));
                cells.add(Long.toString(row.completionTokens()));
                cells.add(row.costUsd().toPlainString());
                cells.add(Long.toString(row.unpricedRequests()));
                out.write(String.join(",", cells) + "\r\n");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A CSV cell (RFC 4180): quoted when it holds a comma, a quote or a line break. */
    private static String cell(String value) {
        return value.chars().anyMatch(c -> c == ',' || c == '"' || c == '\n' || c == '\r')
                ? "\"" + value.replace("\"", "\"\"") + "\""
                : value;
    }

    private void list(Context ctx) {
        Access.requireAdmin(ctx);
        Responses.ok(
                ctx,
                new SpendReplies.PricesJson(
                        "prices",
                        prices.catalogDate().toString(),
                        prices.catalogEntries().stream()
                                .map(SpendReplies.CatalogPriceJson::of)
                                .toList(),
                        prices.overrides().stream()
                                .map(SpendReplies.PriceJson::of)
                                .toList()));
    }

    private void set(Context ctx) {
        Access.requireAdmin(ctx);
        String endpoint = ctx.pathParam("endpoint");
        BodyReader body = PRICE.reader(Requests.jsonObject(ctx));
        Prices.Setting setting = PriceRules.setting(
                INPUT.read(body).map(BigDecimal::valueOf),
                OUTPUT.read(body).map(BigDecimal::valueOf),
                CACHED_INPUT.read(body).map(BigDecimal::valueOf),
                PRICED_AS.read(body),
                prices,
                body);
        body.finish();
        if (!knownEndpoint.test(endpoint)) {
            throw ApiException.of(
                    ErrorCode.MODEL_NOT_FOUND,
                    "endpoint",
                    "There is no cloud model or deployment '" + endpoint + "' (GET /models, GET /deployments).");
        }
        Responses.ok(ctx, SpendReplies.PriceJson.of(prices.set(endpoint, setting)));
    }

    private void clear(Context ctx) {
        Access.requireAdmin(ctx);
        String endpoint = ctx.pathParam("endpoint");
        prices.clear(endpoint);
        Responses.ok(ctx, Deleted.of(endpoint, "price"));
    }
}
