package dev.arbor.platform.db;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import com.github.kagkarlsson.scheduler.event.AbstractSchedulerListener;
import com.github.kagkarlsson.scheduler.event.SchedulerListener;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;

/**
 * Keeps the job engines' log readable while the database cannot be reached. db-scheduler logs a stack trace for every
 * poll, heartbeat and sweep that fails, so a PostgreSQL restart would fill the log with the same trace twice a second.
 * Those traces are dropped; one warning says the database is out of reach and one that it is back, when an engine's
 * work on the database succeeds again. Every other error of the engines is logged as it comes.
 */
final class JobEngineLog extends TurboFilter {
    private static final Logger LOG = LoggerFactory.getLogger(JobEngineLog.class);
    private static final String ENGINE_LOGGERS = "com.github.kagkarlsson.scheduler";
    /**
     * What an engine reports only after its work on the database succeeded: executions picked, heartbeats written, the
     * look for dead executions (every few heartbeats, even when nothing is due).
     */
    private static final Set<SchedulerListener.SchedulerEventType> DATABASE_WORK_DONE = Set.of(
            SchedulerListener.SchedulerEventType.RAN_EXECUTE_DUE,
            SchedulerListener.SchedulerEventType.RAN_UPDATE_HEARTBEATS,
            SchedulerListener.SchedulerEventType.RAN_DETECT_DEAD);

    private final AtomicBoolean unreachable = new AtomicBoolean();

    JobEngineLog() {}

    /** Starts filtering the engines' log, where the log is Logback's (always, but in a test without it). */
    void install() {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            setName("arbor-job-engine-outages");
            start();
            context.addTurboFilter(this);
        }
    }

    void uninstall() {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            context.getTurboFilterList().remove(this);
            stop();
        }
    }

    /** What a job engine tells this log: a poll that succeeded ends an outage. */
    public SchedulerListener listener() {
        return new AbstractSchedulerListener() {
            @Override
            public void onSchedulerEvent(SchedulerEventType type) {
                if (DATABASE_WORK_DONE.contains(type) && unreachable.compareAndSet(true, false)) {
                    LOG.warn("the job engines reach the database again");
                }
            }
        };
    }

    @Override
    public FilterReply decide(
            Marker marker,
            ch.qos.logback.classic.Logger logger,
            Level level,
            String format,
            Object[] params,
            Throwable thrown) {
        if (!logger.getName().startsWith(ENGINE_LOGGERS) || !level.isGreaterOrEqual(Level.WARN)) {
            return FilterReply.NEUTRAL;
        }
        // the engines log a failure as the throwable, or as the last argument of a formatted message
        Throwable failure = thrown != null
                ? thrown
                : params != null && params.length > 0 && params[params.length - 1] instanceof Throwable last
                        ? last
                        : null;
        if (failure == null || !unreachable(failure)) {
            return FilterReply.NEUTRAL;
        }
        if (unreachable.compareAndSet(false, true)) {
            LOG.warn(
                    "the job engines cannot reach the database ({}); they keep trying at every poll, and say so here "
                            + "once it is back",
                    rootCause(failure));
        }
        return FilterReply.DENY;
    }

    /**
     * Whether the database out of reach is behind a failure, as its cause or as one suppressed on the way (a
     * rollback that failed after the statement did carries the first failure suppressed).
     */
    private static boolean unreachable(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (Database.unreachable(cause)) {
                return true;
            }
            for (Throwable suppressed : cause.getSuppressed()) {
                if (suppressed != failure && unreachable(suppressed)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static String rootCause(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.toString();
    }
}
