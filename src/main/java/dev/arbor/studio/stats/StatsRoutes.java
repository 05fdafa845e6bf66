package dev.arbor.studio.stats;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.QueryParam;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.studio.definitions.SettingRange;
import dev.arbor.studio.feedback.FeedbackStore;
import dev.arbor.studio.history.HistoryQuery;
import dev.arbor.studio.history.HistoryShapes;
import dev.arbor.studio.history.HistoryStore;
import dev.arbor.studio.history.HistoryTotals;
import dev.arbor.studio.history.StoredDecision;
import dev.arbor.studio.templates.Templates;
import io.javalin.http.Context;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code GET /v1/studio/decisions/stats} and the same per template: the list's filters, plus {@code group_by},
 * {@code include_extended} and a what-if ({@code what_if.temperature}, {@code what_if.act_threshold}).
 */
public final class StatsRoutes {
    private static final List<QueryParam> OWN = List.of(
            StatsShapes.GROUP_BY,
            StatsShapes.INCLUDE_EXTENDED,
            StatsShapes.WHAT_IF_TEMPERATURE,
            StatsShapes.WHAT_IF_ACT_THRESHOLD);
    /** A template's statistics take the list's filters but {@code template}, which its path sets. */
    private static final List<QueryParam> TEMPLATE_FILTERS = HistoryShapes.FILTERS.stream()
            .filter(param -> !param.name().equals("template"))
            .toList();

    private final HistoryStore decisions;
    private final HistoryTotals totals;
    private final FeedbackStore feedback;
    private final Templates templates;
    private final Clock clock;

    public StatsRoutes(
            HistoryStore decisions, HistoryTotals totals, FeedbackStore feedback, Templates templates, Clock clock) {
        this.decisions = requireNonNull(decisions, "decisions");
        this.totals = requireNonNull(totals, "totals");
        this.feedback = requireNonNull(feedback, "feedback");
        this.templates = requireNonNull(templates, "templates");
        this.clock = requireNonNull(clock, "clock");
    }

    /** Registered before the routes of one decision, so that {@code stats} is never read as a decision id. */
    public void addTo(Routes routes) {
        routes.group("studio.stats")
                .databaseUnavailableAs(ErrorCode.HISTORY_UNAVAILABLE)
                .get(
                        "/v1/studio/decisions/stats",
                        "Statistics over the decisions a filter matches",
                        ctx -> stats(ctx, Optional.empty()))
                .query(OWN)
                .query(HistoryShapes.FILTERS)
                .ok(StatsShapes.STATS)
                .get(
                        "/v1/studio/templates/builtin/{builtin_name}/stats",
                        "Statistics of a starter template's " + "decisions",
                        ctx -> stats(ctx, Optional.of("builtin/" + ctx.pathParam("builtin_name"))))
                .query(OWN)
                .query(TEMPLATE_FILTERS)
                .ok(StatsShapes.STATS)
                .get(
                        "/v1/studio/templates/{template_id}/stats",
                        "Statistics of a template's decisions",
                        ctx -> stats(ctx, Optional.of(ctx.pathParam("template_id"))))
                .query(OWN)
                .query(TEMPLATE_FILTERS)
                .ok(StatsShapes.STATS);
    }

    private void stats(Context ctx, Optional<String> template) {
        var params = new LinkedHashMap<>(HistoryQuery.params(ctx, OWN));
        template.ifPresent(id -> params.put("template", id));
        var whatIf = new Stats.WhatIf(
                number(ctx, StatsShapes.WHAT_IF_TEMPERATURE, SettingRange.TEMPERATURE),
                number(ctx, StatsShapes.WHAT_IF_ACT_THRESHOLD, SettingRange.ACT_THRESHOLD));
        boolean includeExtended =
                StatsShapes.INCLUDE_EXTENDED.read(ctx).filter("true"::equals).isPresent();
        List<String> groupBy = Stats.groupBy(StatsShapes.GROUP_BY.read(ctx));
        var stats = new Stats(groupBy, includeExtended, whatIf);
        var query = decisions.query(params, templates, clock.instant());
        if (TemplateStats.applies(params, groupBy, whatIf)) {
            TemplateStats.count(stats, totals, templates, params, !groupBy.isEmpty());
        } else {
            decisions.eachPage(query, page -> {
                Map<String, Map<String, Boolean>> correct = feedback.correctness(
                        page.stream().map(StoredDecision::id).toList());
                page.forEach(d -> stats.add(d, correct.getOrDefault(d.id(), Map.of())));
            });
        }
        Stats.Report report = stats.report();
        String one = params.getOrDefault("template", "");
        if (groupBy.equals(List.of("version"))
                && !one.isEmpty()
                && !one.contains(",")
                && !one.contains("@")
                && !one.equals("none")) {
            report = report.comparedByVersion((from, to) -> comparability(one, from, to));
        }
        Responses.ok(ctx, report);
    }

    /** How each question of version {@code to} compares with version {@code from}, by key. */
    private Map<String, String> comparability(String template, int from, int to) {
        var by = new LinkedHashMap<String, String>();
        templates
                .compare(template, Integer.toString(from), Integer.toString(to))
                .questions()
                .properties()
                .forEach(q ->
                        by.put(q.getKey(), q.getValue().path("comparability").asText("identical")));
        return by;
    }

    /** A what-if value in the setting's own range, or empty when not sent. */
    private static Optional<Double> number(Context ctx, QueryParam param, SettingRange range) {
        String name = param.name();
        String text = param.read(ctx).orElse(null);
        if (text == null) {
            return Optional.empty();
        }
        try {
            double value = Double.parseDouble(text);
            if (range.contains(value)) {
                return Optional.of(value);
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw ApiException.of(
                ErrorCode.INVALID_PARAMETER, name, "`" + name + "` " + range.refusal() + ", not '" + text + "'.");
    }
}
