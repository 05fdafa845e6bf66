package dev.arbor.studio.history;

import dev.arbor.platform.db.Database;
import dev.arbor.studio.questions.AnswerRow;
import dev.arbor.studio.questions.Rounding;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** How a decision is written as rows: the decision's own, its answers, kept files and secret hashes, its size. */
final class HistoryRows {
    private HistoryRows() {}

    static void insertRows(Database.Statements statements, List<HistoryStore.Prepared> decisions, String serverInstance)
            throws SQLException {
        PreparedStatement rows = statements.prepare("""
                INSERT INTO studio_decisions (id, status, storage, surface, endpoint, request_id, template_id,
                    template_version, model, act, min_certainty, error_code, pinned, metadata, rerun_of, created_at,
                    completed_at, total_ms, body, input, search_text, stored_bytes, server_instance)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""");
        for (HistoryStore.Prepared prepared : decisions) {
            StoredDecision decision = prepared.decision();
            rows.setString(1, decision.id());
            rows.setString(2, decision.status().wire());
            rows.setString(3, decision.storage().wire());
            rows.setString(4, decision.surface());
            rows.setString(5, decision.endpoint());
            rows.setString(6, decision.requestId());
            rows.setString(7, decision.templateId().orElse(null));
            rows.setObject(8, decision.templateVersion().orElse(null), Types.INTEGER);
            rows.setString(9, decision.model().orElse(null));
            rows.setObject(10, decision.act().orElse(null), Types.BOOLEAN);
            rows.setObject(11, decision.minCertainty().orElse(null), Types.DOUBLE);
            rows.setString(12, decision.errorCode().orElse(null));
            rows.setBoolean(13, decision.pinned());
            rows.setString(14, prepared.metadata());
            rows.setString(15, decision.rerunOf().orElse(null));
            rows.setLong(16, decision.createdAtMillis());
            rows.setObject(17, decision.completedAtMillis().orElse(null), Types.BIGINT);
            rows.setObject(18, decision.totalMs().orElse(null), Types.DOUBLE);
            rows.setString(19, prepared.body());
            rows.setString(20, prepared.input().orElse(null));
            rows.setString(21, decision.searchText().orElse(null));
            rows.setLong(22, prepared.storedBytes());
            rows.setString(23, serverInstance);
            rows.addBatch();
        }
        rows.executeBatch();
    }

    /** The columns a finished run sets, when a queued decision is updated with its outcome. */
    static Map<String, Object> outcome(HistoryStore.Prepared prepared) {
        StoredDecision decision = prepared.decision();
        var values = new HashMap<String, Object>();
        values.put("status", decision.status().wire());
        values.put("storage", decision.storage().wire());
        values.put("model", decision.model().orElse(null));
        values.put("act", decision.act().orElse(null));
        values.put("min_certainty", decision.minCertainty().orElse(null));
        values.put("error_code", decision.errorCode().orElse(null));
        values.put("completed_at", decision.completedAtMillis().orElse(null));
        values.put("total_ms", decision.totalMs().orElse(null));
        values.put("body", prepared.body());
        values.put("input", prepared.input().orElse(null));
        values.put("search_text", decision.searchText().orElse(null));
        values.put("stored_bytes", prepared.storedBytes());
        return values;
    }

    /** What a decision keeps: its record, its input and the bytes of the media files its input keeps. */
    static long storedBytes(String body, Optional<DecisionInput> input, Optional<String> inputJson, String metadata) {
        long media = input.map(DecisionInput::keptBytes).orElse(0L);
        return utf8Length(body) + inputJson.map(HistoryRows::utf8Length).orElse(0L) + utf8Length(metadata) + media;
    }

    /** The length of a text in UTF-8, counted without encoding it. */
    static long utf8Length(String text) {
        long bytes = text.length();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c >= 0x80) {
                bytes += c >= 0x800 && !Character.isSurrogate(c) ? 2 : 1; // a surrogate pair counts 4 in all
            }
        }
        return bytes;
    }

    /** The answers, kept files and secret hashes of decisions whose rows are written. */
    static void insertDetails(Database.Statements statements, List<StoredDecision> decisions) throws SQLException {
        PreparedStatement answers = statements.prepare("""
                INSERT INTO studio_decision_answers (decision_seq, question_key, ordinal, position, type, answer,
                    value, certainty, act, origin)
                VALUES ((SELECT seq FROM studio_decisions WHERE id = ?), ?, ?, ?, ?, ?, ?, ?, ?, ?)""");
        for (StoredDecision decision : decisions) {
            for (AnswerRow row : decision.rows()) {
                answers.setString(1, decision.id());
                answers.setString(2, row.questionKey());
                answers.setInt(3, row.ordinal());
                answers.setInt(4, row.position());
                answers.setString(5, row.type().wire());
                answers.setString(6, row.answer());
                answers.setDouble(7, row.value());
                // certainty as the decision shows it, so that sums over rows equal sums over what readers see
                answers.setDouble(8, Rounding.round(row.certainty(), 4));
                answers.setBoolean(9, row.act());
                answers.setString(10, row.origin().wire());
                answers.addBatch();
            }
        }
        answers.executeBatch();
        var files = new ArrayList<List<String>>();
        var secrets = new ArrayList<List<String>>();
        for (StoredDecision decision : decisions) {
            decision.input()
                    .ifPresent(input -> input.keptFiles().forEach(fileId -> files.add(List.of(decision.id(), fileId))));
            decision.secrets()
                    .properties()
                    .forEach(e -> secrets.add(
                            List.of(decision.id(), e.getKey(), e.getValue().asText())));
        }
        insertEach(statements, """
                INSERT INTO studio_decision_files (decision_seq, file_id)
                VALUES ((SELECT seq FROM studio_decisions WHERE id = ?), ?)
                ON CONFLICT DO NOTHING""", files);
        insertEach(statements, """
                INSERT INTO studio_decision_secrets (decision_seq, variable, hmac)
                VALUES ((SELECT seq FROM studio_decisions WHERE id = ?), ?, ?)""", secrets);
    }

    /** Runs an insert once for each row of text values, in one batch; nothing when there are none. */
    static void insertEach(Database.Statements statements, String sql, List<List<String>> rows) throws SQLException {
        if (rows.isEmpty()) {
            return;
        }
        PreparedStatement insert = statements.prepare(sql);
        for (List<String> row : rows) {
            for (int i = 0; i < row.size(); i++) {
                insert.setString(i + 1, row.get(i));
            }
            insert.addBatch();
        }
        insert.executeBatch();
    }
}
