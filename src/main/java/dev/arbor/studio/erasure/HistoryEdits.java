package dev.arbor.studio.erasure;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.Substitution;
import dev.arbor.studio.history.DecisionInput;
import dev.arbor.studio.history.DecisionView;
import dev.arbor.studio.history.HistoryQuery;
import dev.arbor.studio.history.HistoryStore;
import dev.arbor.studio.history.StoredDecision;
import dev.arbor.studio.templates.Templates;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The changes that remove things from history, with the checks of their bodies: a bulk delete or redaction of the
 * decisions a filter matches, and the redaction of one decision.
 */
final class HistoryEdits {
    private static final Set<String> BULK_FIELDS = Set.of("filter", "all", "dry_run", "include_pinned", "fields");

    /** What a bulk delete did (or, on a dry run, would do), as the route answers it. */
    @JsonPropertyOrder({"object", "matched", "deleted", "skipped_pinned", "dry_run"})
    record BulkDeleted(
            int matched,
            int deleted,
            @JsonProperty("skipped_pinned") int skippedPinned,
            @JsonProperty("dry_run") boolean dryRun) {
        @JsonProperty("object")
        String object() {
            return "decision.bulk_delete";
        }
    }

    /** What a bulk redaction did (or, on a dry run, would do), as the route answers it. */
    @JsonPropertyOrder({"object", "matched", "redacted", "skipped_pinned", "dry_run"})
    record BulkRedacted(
            int matched,
            int redacted,
            @JsonProperty("skipped_pinned") int skippedPinned,
            @JsonProperty("dry_run") boolean dryRun) {
        @JsonProperty("object")
        String object() {
            return "decision.bulk_redact";
        }
    }

    private final HistoryStore store;
    private final Templates templates;
    private final Clock clock;
    private final byte[] hmacKey;

    HistoryEdits(HistoryStore store, Templates templates, Clock clock, byte[] hmacKey) {
        this.store = requireNonNull(store, "store");
        this.templates = requireNonNull(templates, "templates");
        this.clock = requireNonNull(clock, "clock");
        this.hmacKey = requireNonNull(hmacKey, "hmacKey").clone();
    }

    /** Deletes the decisions {@code body} matches, pinned ones only when it says so. */
    BulkDeleted deleteAll(ObjectNode body) {
        Bulk bulk = bulk(body, false);
        var matched = store.matching(bulk.query());
        List<String> ids = matched.stream()
                .filter(m -> bulk.includePinned() || !m.getValue())
                .map(Map.Entry::getKey)
                .toList();
        int deleted = bulk.dryRun() ? 0 : store.deleteAll(ids);
        return new BulkDeleted(
                matched.size(), bulk.dryRun() ? ids.size() : deleted, matched.size() - ids.size(), bulk.dryRun());
    }

    /** Redacts the fields {@code body} names in the decisions it matches, pinned ones only when it says so. */
    BulkRedacted redactAll(ObjectNode body) {
        Bulk bulk = bulk(body, true);
        var matched = store.matching(bulk.query());
        int redacted = 0;
        for (var match : matched) {
            if (match.getValue() && !bulk.includePinned()) {
                continue;
            }
            if (!bulk.dryRun()) {
                store.find(match.getKey())
                        .ifPresent(decision -> redact(decision, bulk.redaction().orElseThrow()));
            }
            redacted++;
        }
        return new BulkRedacted(matched.size(), redacted, matched.size() - redacted, bulk.dryRun());
    }

    /** Redacts the fields {@code body} names in decision {@code id}; answers the decision as it is now. */
    StoredDecision redactOne(String id, ObjectNode body) {
        var problems = new Problems();
        body.fieldNames().forEachRemaining(name -> {
            if (!name.equals("fields")) {
                problems.add(ErrorCode.INVALID_FIELD, name, "`" + name + "` is not a field of a redaction (fields).");
            }
        });
        Redaction redaction = Redaction.parse(body.get("fields"), problems);
        problems.throwIfAny();
        StoredDecision decision = store.find(id).orElseThrow(() -> DecisionView.notFound(id));
        redact(decision, redaction);
        return store.find(id).orElseThrow(() -> DecisionView.notFound(id));
    }

    /** A bulk request: what it matches and how. */
    private record Bulk(HistoryQuery query, boolean dryRun, boolean includePinned, Optional<Redaction> redaction) {}

    private Bulk bulk(ObjectNode body, boolean redacting) {
        var problems = new Problems();
        body.fieldNames().forEachRemaining(name -> {
            if (!BULK_FIELDS.contains(name) || (!redacting && name.equals("fields"))) {
                problems.add(ErrorCode.INVALID_FIELD, name, "`" + name + "` is not a field of this request.");
            }
        });
        boolean all = flag(body, "all", problems);
        boolean dryRun = flag(body, "dry_run", problems);
        boolean includePinned = flag(body, "include_pinned", problems);
        JsonNode filter = body.path("filter");
        if (!filter.isMissingNode() && !filter.isNull() && !filter.isObject()) {
            problems.add(ErrorCode.INVALID_FIELD, "filter", "`filter` must be an object of the list's filters.");
        }
        Optional<Redaction> redaction =
                redacting ? Optional.of(Redaction.parse(body.get("fields"), problems)) : Optional.empty();
        problems.throwIfAny();
        if (!filter.isObject() || filter.isEmpty()) {
            if (!all) {
                throw ApiException.of(
                        ErrorCode.FILTER_REQUIRED,
                        "filter",
                        "Say which decisions: send a `filter`, " + "or \"all\": true to mean every decision.");
            }
            filter = Json.object();
        }
        var params = new LinkedHashMap<String, String>();
        JsonNode secrets = Json.object();
        for (var entries = filter.properties().iterator(); entries.hasNext(); ) {
            var entry = entries.next();
            JsonNode value = entry.getValue();
            if (entry.getKey().equals("sensitive_hash")) {
                if (!value.isObject() || value.isEmpty()) {
                    throw ApiException.of(
                            ErrorCode.INVALID_FIELD,
                            "filter.sensitive_hash",
                            "`filter.sensitive_hash` " + "must be an object of variable name to the value to find.");
                }
                secrets = value;
            } else if (value.isArray()) {
                var items = new ArrayList<String>();
                value.forEach(item -> items.add(item.asText()));
                params.put(entry.getKey(), String.join(",", items));
            } else {
                params.put(entry.getKey(), value.asText());
            }
        }
        HistoryQuery query;
        try {
            query = store.query(params, templates, clock.instant());
        } catch (ApiException e) {
            throw ApiException.of(
                    e.code(),
                    "filter." + e.problems().getFirst().param(),
                    e.problems().getFirst().message());
        }
        secrets.properties().forEach(e -> query.secret(e.getKey(), Substitution.sensitiveHash(hmacKey, e.getValue())));
        return new Bulk(query, dryRun, includePinned, redaction);
    }

    private void redact(StoredDecision decision, Redaction redaction) {
        Optional<DecisionInput> input = decision.input().map(redaction::apply);
        ObjectNode metadata = decision.metadata().deepCopy();
        redaction.applyToMetadata(metadata);
        store.redact(decision.id(), input, metadata, redaction.fields().stream().anyMatch(f -> f.startsWith("input.")));
    }

    private static boolean flag(ObjectNode body, String name, Problems problems) {
        JsonNode value = body.path(name);
        if (value.isMissingNode() || value.isNull()) {
            return false;
        }
        if (!value.isBoolean()) {
            problems.add(ErrorCode.INVALID_FIELD, name, "`" + name + "` must be true or false.");
            return false;
        }
        return value.booleanValue();
    }
}
