package dev.arbor.events.deliveries;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.events.EventSubscribers.Audience;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.db.Paging;
import dev.arbor.platform.json.Json;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/** The SQL of the delivery log; a delivery's row is also the durable record its dispatch works from. */
final class DeliveryStore {
    private static final String COLUMNS = "id, connection_id, provider, status, type, listed_type, "
            + "provider_delivery_id, duplicates, last_duplicate_at, signature, headers, payload, body, occurred_at, "
            + "received_at, pending_round, rounds, dispatched_at, error, body_bytes, trace_parent";
    private static final String INSERT = "INSERT INTO event_deliveries (" + COLUMNS + ") VALUES (:id, :connection_id, "
            + ":provider, :status, :type, :listed_type, :provider_delivery_id, 0, NULL, :signature, :headers, "
            + ":payload, :body, :occurred_at, :received_at, :pending_round, 0, NULL, :error, :body_bytes, :trace_parent) "
            + "ON CONFLICT (connection_id, provider_delivery_id) DO NOTHING";

    /** What recording a delivery did. */
    sealed interface Recorded {
        /** Stored as a new delivery. */
        record Fresh(Delivery delivery) implements Recorded {}

        /** The provider sent this delivery id before: counted on the first, which is {@code firstId}. */
        record Repeat(String firstId) implements Recorded {}
    }

    /**
     * A round of a delivery to dispatch, to the triggers of its audience, with the {@code traceparent} of the span
     * that recorded the delivery, whose trace its dispatch joins.
     */
    record Due(Delivery delivery, int round, Audience audience, Optional<String> traceParent) {}

    private final Database database;

    DeliveryStore(Database database) {
        this.database = requireNonNull(database, "database");
    }

    /** Stores a delivery; one whose provider id the connection has received before is only counted on the first. */
    Recorded record(Delivery delivery, Optional<String> traceParent) {
        return database.write(handle -> {
            int inserted = handle.createUpdate(INSERT)
                    .bindMap(values(delivery))
                    .bind("trace_parent", traceParent.orElse(null))
                    .execute();
            if (inserted == 1) {
                return new Recorded.Fresh(delivery);
            }
            String first = handle.createQuery("SELECT id FROM event_deliveries WHERE connection_id = :connection "
                            + "AND provider_delivery_id = :provider_id")
                    .bind("connection", delivery.connectionId())
                    .bind("provider_id", delivery.providerDeliveryId().orElseThrow())
                    .mapTo(String.class)
                    .one();
            handle.createUpdate("UPDATE event_deliveries SET duplicates = duplicates + 1, last_duplicate_at = :at "
                            + "WHERE id = :id")
                    .bind("at", delivery.receivedAt().toEpochMilli())
                    .bind("id", first)
                    .execute();
            return new Recorded.Repeat(first);
        });
    }

    Optional<Delivery> find(String connectionId, String id) {
        return database.read(handle -> handle.createQuery(
                        "SELECT " + COLUMNS + " FROM event_deliveries WHERE id = :id AND connection_id = :connection")
                .bind("id", id)
                .bind("connection", connectionId)
                .map((rs, ctx) -> row(rs))
                .findOne());
    }

    /** A connection's deliveries newest first, of one status and type when given. */
    Paging.Result<Delivery> list(
            String connectionId, Page page, Optional<Delivery.Status> status, Optional<String> type) {
        String from = "event_deliveries WHERE connection_id = :connection"
                + status.map(s -> " AND status = :status").orElse("")
                + type.map(t -> " AND type = :type").orElse("");
        return database.read(handle -> Paging.newestFirst(
                handle,
                COLUMNS,
                from,
                page,
                (rs, ctx) -> row(rs),
                cursor -> find(connectionId, cursor).isPresent(),
                query -> {
                    query.bind("connection", connectionId);
                    status.ifPresent(s -> query.bind("status", s.json()));
                    type.ifPresent(t -> query.bind("type", t));
                }));
    }

    /**
     * Asks for the next round of an accepted delivery for {@code audience}: empty when it is not accepted; the delivery
     * with the round that waits. A round already waiting is not doubled: the replay joins it, and the round fires the
     * triggers of every replay that joined (an admin's joining a member's fires every project's; a member's joining an
     * admin's adds nothing).
     */
    Optional<Due> replay(String connectionId, String id, Audience audience) {
        return database.write(handle -> {
            handle.createUpdate("UPDATE event_deliveries SET pending_round = rounds, pending_projects = :projects "
                            + "WHERE id = :id AND connection_id = :connection AND status = :accepted "
                            + "AND pending_round IS NULL")
                    .bind("projects", projects(audience))
                    .bind("id", id)
                    .bind("connection", connectionId)
                    .bind("accepted", Delivery.Status.ACCEPTED.json())
                    .execute();
            // locked, so that two replays joining at once on PostgreSQL both count
            Optional<Due> waiting = handle.createQuery("SELECT " + COLUMNS + ", pending_projects FROM "
                            + "event_deliveries WHERE id = :id AND connection_id = :connection"
                            + database.dialect().forUpdate())
                    .bind("id", id)
                    .bind("connection", connectionId)
                    .map((rs, ctx) -> due(rs))
                    .findOne()
                    .flatMap(due -> due);
            if (waiting.isEmpty()) {
                return waiting;
            }
            Due due = waiting.get();
            Audience joined = due.audience().joinedWith(audience);
            if (joined.equals(due.audience())) {
                return waiting;
            }
            handle.createUpdate("UPDATE event_deliveries SET pending_projects = :projects WHERE id = :id "
                            + "AND pending_round = :round")
                    .bind("projects", projects(joined))
                    .bind("id", id)
                    .bind("round", due.round())
                    .execute();
            return Optional.of(new Due(due.delivery(), due.round(), joined, due.traceParent()));
        });
    }

    /** Rounds waiting since before {@code before}, oldest first: those no dispatch in this process has in hand. */
    List<Due> waiting(Instant before, int limit) {
        return database.read(handle -> handle
                .createQuery("SELECT " + COLUMNS + ", pending_projects FROM "
                        + "event_deliveries WHERE pending_round IS NOT NULL AND received_at < :before "
                        + "ORDER BY received_at LIMIT :limit")
                .bind("before", before.toEpochMilli())
                .bind("limit", limit)
                .map((rs, ctx) -> due(rs))
                .stream()
                .flatMap(Optional::stream)
                .toList());
    }

    /**
     * Marks rounds dispatched, in one transaction; a round another dispatch marked already is left as it is, and so is
     * one a replay joined after it was read (it waits to be dispatched again, to the triggers the joining replay added).
     */
    void dispatched(List<Due> rounds, Instant at) {
        if (rounds.isEmpty()) {
            return;
        }
        database.update(handle -> {
            var batch =
                    handle.prepareBatch("UPDATE event_deliveries SET pending_round = NULL, pending_projects = NULL, "
                            + "rounds = :next, dispatched_at = :at, error = NULL WHERE id = :id AND pending_round = :round "
                            + "AND pending_projects IS NOT DISTINCT FROM :projects");
            for (Due due : rounds) {
                batch.bind("next", due.round() + 1)
                        .bind("at", at.toEpochMilli())
                        .bind("id", due.delivery().id())
                        .bind("round", due.round())
                        .bind("projects", projects(due.audience()))
                        .add();
            }
            batch.execute();
        });
    }

    /** Keeps why a round's dispatch failed; the round stays waiting, to be tried again. */
    void failed(Due due, String error) {
        database.update(handle -> handle.createUpdate(
                        "UPDATE event_deliveries SET error = :error WHERE id = :id AND pending_round = :round")
                .bind("error", error)
                .bind("id", due.delivery().id())
                .bind("round", due.round())
                .execute());
    }

    /**
     * Removes the deliveries that wait for nothing received before {@code before}, and the refused ones received
     * before {@code refusedBefore}; how many.
     */
    int prune(Instant before, Instant refusedBefore) {
        return database.write(handle -> handle.createUpdate("DELETE FROM event_deliveries WHERE pending_round IS NULL "
                        + "AND (received_at < :before OR (status = :refused AND received_at < :refused_before))")
                .bind("before", before.toEpochMilli())
                .bind("refused", Delivery.Status.REFUSED.json())
                .bind("refused_before", refusedBefore.toEpochMilli())
                .execute());
    }

    private static Map<String, Object> values(Delivery d) {
        var values = new HashMap<String, Object>();
        values.put("id", d.id());
        values.put("connection_id", d.connectionId());
        values.put("provider", d.provider());
        values.put("status", d.status().json());
        values.put("type", d.type().orElse(null));
        values.put("listed_type", d.listedType() ? 1 : 0);
        values.put("provider_delivery_id", d.providerDeliveryId().orElse(null));
        values.put("signature", Json.writeString(d.signature()));
        values.put("headers", Json.writeString(d.headers()));
        values.put("payload", d.payload().map(Json::writeString).orElse(null));
        values.put("body", d.body().orElse(null));
        values.put(
                "body_bytes", d.truncatedFrom().isPresent() ? d.truncatedFrom().getAsLong() : null);
        values.put("occurred_at", d.occurredAt().toEpochMilli());
        values.put("received_at", d.receivedAt().toEpochMilli());
        values.put("error", d.error().orElse(null));
        values.put(
                "pending_round", d.pendingRound().isPresent() ? d.pendingRound().getAsInt() : null);
        return values;
    }

    private static Delivery row(ResultSet rs) throws SQLException {
        return new Delivery(
                rs.getString("id"),
                rs.getString("connection_id"),
                rs.getString("provider"),
                Delivery.Status.of(rs.getString("status")).orElseThrow(),
                Optional.ofNullable(rs.getString("type")),
                rs.getInt("listed_type") == 1,
                Optional.ofNullable(rs.getString("provider_delivery_id")),
                rs.getInt("duplicates"),
                instant(rs, "last_duplicate_at"),
                (ObjectNode) Json.read(rs.getString("signature")),
                (ObjectNode) Json.read(rs.getString("headers")),
                Optional.ofNullable(rs.getString("payload")).map(Json::read),
                Optional.ofNullable(rs.getString("body")),
                Instant.ofEpochMilli(rs.getLong("occurred_at")),
                Instant.ofEpochMilli(rs.getLong("received_at")),
                rs.getObject("pending_round") == null
                        ? OptionalInt.empty()
                        : OptionalInt.of(rs.getInt("pending_round")),
                rs.getInt("rounds"),
                instant(rs, "dispatched_at"),
                Optional.ofNullable(rs.getString("error")),
                rs.getObject("body_bytes") == null ? OptionalLong.empty() : OptionalLong.of(rs.getLong("body_bytes")));
    }

    /** A row read with its {@code pending_projects}, as the round that waits; empty when none waits. */
    private static Optional<Due> due(ResultSet rs) throws SQLException {
        Delivery delivery = row(rs);
        String projects = rs.getString("pending_projects");
        Audience audience = Audience.everyone();
        if (projects != null) {
            var ids = new HashSet<String>();
            Json.read(projects).forEach(id -> ids.add(id.asText()));
            audience = new Audience.Projects(ids);
        }
        return delivery.pendingRound().isPresent()
                ? Optional.of(new Due(
                        delivery,
                        delivery.pendingRound().getAsInt(),
                        audience,
                        Optional.ofNullable(rs.getString("trace_parent"))))
                : Optional.empty();
    }

    private static @Nullable String projects(Audience audience) {
        return switch (audience) {
            case Audience.Everyone everyone -> null;
            case Audience.Projects projects ->
                Json.writeString(projects.ids().stream().sorted().toList());
        };
    }

    private static Optional<Instant> instant(ResultSet rs, String column) throws SQLException {
        long millis = rs.getLong(column);
        return rs.wasNull() ? Optional.empty() : Optional.of(Instant.ofEpochMilli(millis));
    }
}
