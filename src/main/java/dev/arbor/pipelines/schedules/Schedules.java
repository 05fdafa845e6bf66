package dev.arbor.pipelines.schedules;

import static java.util.Objects.requireNonNull;

import dev.arbor.pipelines.runs.ScheduledRuns;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.http.Routes;
import java.time.Clock;

/**
 * Schedules of pipelines: a cron expression in a time zone and the params its runs get, fired on a durable engine.
 * Each firing starts a run through {@link ScheduledRuns}, which the pipelines answer. Admin routes, as pipelines'.
 */
public final class Schedules implements AutoCloseable {
    private final ScheduleFirings firings;
    private final ScheduleRoutes routes;

    /** @param runs what starts the schedules' runs and checks their params: the pipelines */
    public Schedules(Database database, ScheduledRuns runs, Clock clock) {
        var schedules = new ScheduleStore(requireNonNull(database, "database"), requireNonNull(clock, "clock"));
        this.firings = new ScheduleFirings(database, schedules, requireNonNull(runs, "runs"), clock);
        this.routes = new ScheduleRoutes(new ScheduleService(runs, schedules, firings, clock));
    }

    public void addRoutes(Routes routes) {
        this.routes.addTo(routes);
    }

    /** Starts firing schedules, making up once for the firings missed while no server ran. */
    public void start() {
        firings.start();
    }

    @Override
    public void close() {
        firings.close();
    }
}
