package dev.arbor.pipelines.runs.store;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.access.Principal;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.json.Json;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.StatementContext;

/**
 * The SQL of approval steps' questions. One per step and generation of a run; its answer is written once, by the
 * first of the approvers (or of the timeout) whose update finds it still pending.
 */
public final class ApprovalStore {
    private static final String COLUMNS = "id, run_id, step_id, generation, pipeline_id, message, approvers, "
            + "on_timeout, status, decided_by, decided_at, comment, requested_at, expires_at";

    public enum Status {
        PENDING,
        APPROVED,
        REJECTED;

        public String json() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** A question to approvers, and its answer once it has one. */
    public record Approval(
            String id,
            String runId,
            String stepId,
            int generation,
            String pipelineId,
            String message,
            List<String> approvers,
            Status onTimeout,
            Status status,
            Optional<String> decidedBy,
            OptionalLong decidedAt,
            Optional<String> comment,
            long requestedAt,
            long expiresAt) {
        public Approval {
            approvers = List.copyOf(approvers);
        }

        /**
         * Whether {@code caller} is one of the approvers: named by its token id, by its role ({@code role:admin},
         * {@code role:member}), or as a member of a project ({@code project:<id>}, which admins are of every one).
         */
        public boolean answerableBy(Principal caller) {
            return approvers.stream()
                    .anyMatch(approver -> approver.equals(caller.tokenId())
                            || approver.equals(caller.isAdmin() ? "role:admin" : "role:member")
                            || approver.startsWith("project:")
                                    && caller.mayActIn(approver.substring("project:".length())));
        }
    }

    private final Database database;

    public ApprovalStore(Database database) {
        this.database = requireNonNull(database, "database");
    }

    /** The question of a step at a generation, asked now unless it was asked already; the one stored either way. */
    public Approval ask(
            String runId,
            String stepId,
            int generation,
            String pipelineId,
            String message,
            List<String> approvers,
            Status onTimeout,
            long now,
            long expiresAt) {
        return database.write(handle -> {
            handle.createUpdate("INSERT INTO pipeline_approvals (" + COLUMNS + ") VALUES (:id, :run, :step, "
                            + ":generation, :pipeline, :message, :approvers, :onTimeout, 'pending', NULL, NULL, NULL, "
                            + ":now, :expires) ON CONFLICT DO NOTHING")
                    .bind("id", Ids.next("apr"))
                    .bind("run", runId)
                    .bind("step", stepId)
                    .bind("generation", generation)
                    .bind("pipeline", pipelineId)
                    .bind("message", message)
                    .bind("approvers", Json.writeString(approvers))
                    .bind("onTimeout", onTimeout.json())
                    .bind("now", now)
                    .bind("expires", expiresAt)
                    .execute();
            return find(handle, runId, stepId, generation).orElseThrow();
        });
    }

    /** The question with this id. */
    public Optional<Approval> find(String approvalId) {
        return database.read(
                handle -> handle.createQuery("SELECT " + COLUMNS + " FROM pipeline_approvals WHERE id = :id")
                        .bind("id", approvalId)
                        .map(ApprovalStore::row)
                        .findOne());
    }

    public Optional<Approval> find(String runId, String stepId, int generation) {
        return database.read(handle -> find(handle, runId, stepId, generation));
    }

    public static Optional<Approval> find(Handle handle, String runId, String stepId, int generation) {
        return handle.createQuery("SELECT " + COLUMNS + " FROM pipeline_approvals WHERE run_id = :run "
                        + "AND step_id = :step AND generation = :generation")
                .bind("run", runId)
                .bind("step", stepId)
                .bind("generation", generation)
                .map(ApprovalStore::row)
                .findOne();
    }

    /**
     * Answers a pending question: true for the one answer that finds it pending, false for every later one. Inside a
     * run's transition, so that the step's due time moves with it.
     */
    public static boolean decide(
            RunStore.Transition tx, String approvalId, Status decision, String by, Optional<String> comment) {
        return tx.handle()
                        .createUpdate("UPDATE pipeline_approvals SET status = :status, decided_by = :by, "
                                + "decided_at = :now, comment = :comment WHERE id = :id AND status = 'pending'")
                        .bind("status", decision.json())
                        .bind("by", by)
                        .bind("now", tx.now())
                        .bind("comment", comment.orElse(null))
                        .bind("id", approvalId)
                        .execute()
                == 1;
    }

    /** Answers a question whose time ran out with its {@code on_timeout}; false when someone answered first. */
    public boolean expire(String approvalId, long now) {
        return database.write(handle -> handle.createUpdate("UPDATE pipeline_approvals SET status = on_timeout, "
                                + "decided_by = 'timeout', decided_at = :now WHERE id = :id AND status = 'pending'")
                        .bind("now", now)
                        .bind("id", approvalId)
                        .execute()
                == 1);
    }

    /** Whether the question's channels have been told of it (by an execution of its step, on any server). */
    public boolean notified(String approvalId) {
        return database.read(handle -> handle.createQuery(
                                "SELECT notified_at FROM pipeline_approvals WHERE id = :id AND notified_at IS NOT NULL")
                        .bind("id", approvalId)
                        .mapTo(Long.class)
                        .findOne())
                .isPresent();
    }

    /** Records that the question's channels have been told of it. */
    public void markNotified(String approvalId, long now) {
        database.write(handle -> handle.createUpdate(
                        "UPDATE pipeline_approvals SET notified_at = :now WHERE id = :id AND notified_at IS NULL")
                .bind("now", now)
                .bind("id", approvalId)
                .execute());
    }

    /** A one-click link of a question's email: who it was sent to, what it answers, and when it was used. */
    public record Link(
            String id, String approvalId, Status decision, String recipient, long createdAt, OptionalLong usedAt) {}

    /** Stores a new link answering {@code approvalId} with {@code decision} for {@code recipient}; its id. */
    public String newLink(String approvalId, Status decision, String recipient, long now) {
        String id = Ids.next("apl");
        database.write(handle -> handle.createUpdate("INSERT INTO pipeline_approval_links (id, approval_id, decision, "
                        + "recipient, created_at, used_at) VALUES (:id, :approval, :decision, :recipient, :now, NULL)")
                .bind("id", id)
                .bind("approval", approvalId)
                .bind("decision", decision.json())
                .bind("recipient", recipient)
                .bind("now", now)
                .execute());
        return id;
    }

    public Optional<Link> link(String linkId) {
        return database.read(handle -> link(handle, linkId));
    }

    public static Optional<Link> link(Handle handle, String linkId) {
        return handle.createQuery("SELECT id, approval_id, decision, recipient, created_at, used_at "
                        + "FROM pipeline_approval_links WHERE id = :id")
                .bind("id", linkId)
                .map((rs, ctx) -> new Link(
                        rs.getString("id"),
                        rs.getString("approval_id"),
                        Status.valueOf(rs.getString("decision").toUpperCase(Locale.ROOT)),
                        rs.getString("recipient"),
                        rs.getLong("created_at"),
                        RunStore.millis(rs, "used_at")))
                .findOne();
    }

    /** Marks a link used, inside the run's transition that answers with it; false when it was used already. */
    public static boolean useLink(RunStore.Transition tx, String linkId) {
        return tx.handle()
                        .createUpdate("UPDATE pipeline_approval_links SET used_at = :now WHERE id = :id "
                                + "AND used_at IS NULL")
                        .bind("now", tx.now())
                        .bind("id", linkId)
                        .execute()
                == 1;
    }

    /**
     * The questions in {@code status}, oldest first; pending ones only while their step waits (a cancelled or failed
     * run's question is not).
     */
    public List<Approval> list(Status status, int limit) {
        return database.read(handle -> handle.createQuery("SELECT " + COLUMNS + " FROM pipeline_approvals a "
                        + "WHERE status = :status"
                        + (status == Status.PENDING
                                ? " AND EXISTS (SELECT 1 FROM pipeline_run_steps s WHERE s.run_id = a.run_id "
                                        + "AND s.step_id = a.step_id AND s.status = 'waiting')"
                                : "")
                        + " ORDER BY requested_at, id LIMIT :limit")
                .bind("status", status.json())
                .bind("limit", limit)
                .map(ApprovalStore::row)
                .list());
    }

    private static Approval row(ResultSet rs, StatementContext ctx) throws SQLException {
        var approvers = new ArrayList<String>();
        for (JsonNode approver : Json.read(rs.getString("approvers"))) {
            approvers.add(approver.asText());
        }
        long decidedAt = rs.getLong("decided_at");
        boolean undecided = rs.wasNull();
        return new Approval(
                rs.getString("id"),
                rs.getString("run_id"),
                rs.getString("step_id"),
                rs.getInt("generation"),
                rs.getString("pipeline_id"),
                rs.getString("message"),
                approvers,
                Status.valueOf(rs.getString("on_timeout").toUpperCase(Locale.ROOT)),
                Status.valueOf(rs.getString("status").toUpperCase(Locale.ROOT)),
                Optional.ofNullable(rs.getString("decided_by")),
                undecided ? OptionalLong.empty() : OptionalLong.of(decidedAt),
                Optional.ofNullable(rs.getString("comment")),
                rs.getLong("requested_at"),
                rs.getLong("expires_at"));
    }
}
