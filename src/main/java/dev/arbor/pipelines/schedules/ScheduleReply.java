package dev.arbor.pipelines.schedules;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.pipelines.schedules.ScheduleStore.Schedule;
import dev.arbor.pipelines.schedules.ScheduleStore.Status;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/** A schedule as the API shows it, with its next firing times in UTC seconds and in its zone's local time. */
record ScheduleReply(
        String id,
        String object,
        @JsonProperty("pipeline_id") String pipelineId,
        String name,
        String cron,
        String timezone,
        JsonNode params,
        String status,
        @JsonProperty("next_run_at") @Nullable Long nextRunAt,
        @JsonProperty("last_run_at") @Nullable Long lastRunAt,
        @JsonProperty("last_run_id") @Nullable String lastRunId,
        @JsonProperty("last_error") @Nullable String lastError,
        @JsonProperty("run_count") int runCount,
        @JsonProperty("next_runs") List<NextRun> nextRuns,
        @JsonProperty("created_at") long createdAt,
        @JsonProperty("updated_at") long updatedAt) {

    record NextRun(long at, String local) {}

    /** The schedule with its next {@code nextRuns} firing times (none while it is paused). */
    static ScheduleReply of(Schedule schedule, int nextRuns, long nowMillis) {
        CronSchedule cron = CronSchedule.parse(schedule.cron(), java.time.ZoneId.of(schedule.timezone()));
        List<NextRun> next = schedule.status() == Status.PAUSED
                ? List.of()
                : cron.next(Instant.ofEpochMilli(schedule.nextRunAt().orElse(nowMillis) - 1), nextRuns).stream()
                        .map(at -> new NextRun(
                                at.getEpochSecond(),
                                at.atZone(cron.zone()).toOffsetDateTime().toString()))
                        .toList();
        return new ScheduleReply(
                schedule.id(),
                "pipeline.schedule",
                schedule.pipelineId(),
                schedule.name(),
                schedule.cron(),
                schedule.timezone(),
                schedule.params(),
                schedule.status().json(),
                seconds(schedule.nextRunAt()),
                seconds(schedule.lastRunAt()),
                schedule.lastRunId().orElse(null),
                schedule.lastError().orElse(null),
                schedule.runCount(),
                next,
                schedule.createdAt() / 1000,
                schedule.updatedAt() / 1000);
    }

    /** A deleted schedule. */
    record Deleted(String id, String object, boolean deleted) {
        Deleted(String id) {
            this(id, "pipeline.schedule.deleted", true);
        }
    }

    /** The run a schedule's run now started. */
    record Started(
            String id,
            String object,
            String status,
            @JsonProperty("schedule_id") String scheduleId) {
        Started(String runId, String scheduleId) {
            // a run starts queued
            this(runId, "pipeline.run", "queued", scheduleId);
        }
    }

    private static @Nullable Long seconds(OptionalLong millis) {
        return millis.isPresent() ? millis.getAsLong() / 1000 : null;
    }
}
