package dev.arbor.connectors.agents;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.connectors.agents.BindingStore.Policy;
import dev.arbor.connectors.agents.BindingStore.ToolPolicy;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.http.Schema;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;

/**
 * The {@code policies} of an attachment, checked: for each attached tool (by id) that has one, {@code policy}
 * ({@code allow} or {@code deny}) and {@code calls_per_minute} (1 to {@value #MAX_PER_MINUTE}); a tool left out is
 * allowed without a limit.
 */
final class ToolPolicies {
    static final int MAX_PER_MINUTE = 100_000;
    static final Schema SHAPE = Schema.mapOf(Schema.object()
            .optional(
                    "policy",
                    Schema.oneOf(
                            Arrays.stream(Policy.values()).map(Policy::wire).toArray(String[]::new)))
            .optional("calls_per_minute", Schema.integer(1, MAX_PER_MINUTE))
            .closed());

    private ToolPolicies() {}

    /**
     * Each attached tool of {@code toolIds}, in order, with its policy from {@code policies} (a missing node when the
     * body has none); problems go to {@code problems} at {@code policies.<tool id>...}.
     */
    static Map<String, ToolPolicy> read(Set<String> toolIds, JsonNode policies, Problems problems) {
        var read = new LinkedHashMap<String, ToolPolicy>();
        toolIds.forEach(id -> read.put(id, ToolPolicy.OPEN));
        if (policies.isMissingNode() || policies.isNull()) {
            return read;
        }
        if (!policies.isObject()) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    "policies",
                    "`policies` must map attached tool ids to {policy, calls_per_minute}.");
            return read;
        }
        for (var entry : policies.properties()) {
            String at = "policies." + entry.getKey();
            JsonNode given = entry.getValue();
            if (!toolIds.contains(entry.getKey())) {
                problems.add(ErrorCode.INVALID_FIELD, at, "`" + at + "` names a tool that `tool_ids` does not attach.");
                continue;
            }
            if (!given.isObject()) {
                problems.add(ErrorCode.INVALID_FIELD, at, "`" + at + "` must be {policy, calls_per_minute}.");
                continue;
            }
            problems.unknownFields(given, Set.of("policy", "calls_per_minute"), at, "a tool's policy");
            Policy policy = Policy.ALLOW;
            JsonNode word = given.path("policy");
            if (!word.isMissingNode() && !word.isNull()) {
                var chosen = word.isTextual() ? Policy.of(word.textValue()) : java.util.Optional.<Policy>empty();
                if (chosen.isEmpty()) {
                    problems.add(ErrorCode.INVALID_FIELD, at + ".policy", "`" + at + ".policy` must be allow or deny.");
                } else {
                    policy = chosen.get();
                }
            }
            OptionalInt perMinute = OptionalInt.empty();
            JsonNode limit = given.path("calls_per_minute");
            if (!limit.isMissingNode() && !limit.isNull()) {
                if (limit.canConvertToExactIntegral() && limit.asLong() >= 1 && limit.asLong() <= MAX_PER_MINUTE) {
                    perMinute = OptionalInt.of(limit.asInt());
                } else {
                    problems.add(
                            ErrorCode.INVALID_FIELD,
                            at + ".calls_per_minute",
                            "`" + at + ".calls_per_minute` must be a whole number from 1 to " + MAX_PER_MINUTE + ".");
                }
            }
            read.put(entry.getKey(), new ToolPolicy(policy, perMinute));
        }
        return read;
    }
}
