package dev.arbor.connectors.agents;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.arbor.connectors.agents.CallStore.Call;
import dev.arbor.connectors.agents.CallStore.Outcome;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.secrets.Digests;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit of tool calls through agents' endpoints: a row for each call (who, which agent, gateway and tool, the
 * arguments' hash, how long, how it ended) and {@code arbor_connector_tool_calls_seconds} by tool and outcome. The
 * arguments are hashed as canonical JSON (keys sorted), so the same arguments hash alike however they were written.
 */
final class CallAudit {
    private static final Logger LOG = LoggerFactory.getLogger(CallAudit.class);
    private static final ObjectMapper CANONICAL =
            Json.mapper().copy().enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);

    /** A call in flight: what is known before it ends. */
    record Started(
            String projectId,
            String identity,
            String promptId,
            String gatewayId,
            String tool,
            String argumentsSha256,
            long atMillis,
            long startNanos) {}

    private final CallStore store;
    private final Meter.MeterProvider<Timer> timer;
    private final Duration retention;
    private final Clock clock;

    CallAudit(CallStore store, MeterRegistry meters, Duration retention, Clock clock) {
        this.store = requireNonNull(store, "store");
        this.timer = Timer.builder("arbor.connector.tool.calls")
                .description("Tool calls through agents' MCP endpoints by tool (as the agent names it) and outcome")
                .withRegistry(meters);
        this.retention = requireNonNull(retention, "retention");
        this.clock = requireNonNull(clock, "clock");
    }

    Started start(String projectId, String identity, String promptId, String gatewayId, String tool, JsonNode args) {
        return new Started(
                projectId, identity, promptId, gatewayId, tool, hash(args), clock.millis(), System.nanoTime());
    }

    /**
     * Records how the call ended. A row that cannot be written is logged, and the agent still gets its answer: the
     * tool has run by now, and refusing the answer would not undo it.
     */
    void ended(Started call, Outcome outcome, Optional<String> error) {
        long nanos = System.nanoTime() - call.startNanos();
        timer.withTags("tool", call.tool(), "outcome", outcome.wire()).record(nanos, TimeUnit.NANOSECONDS);
        try {
            store.record(new Call(
                    Ids.next("call"),
                    call.atMillis(),
                    call.projectId(),
                    call.identity(),
                    call.promptId(),
                    call.gatewayId(),
                    call.tool(),
                    call.argumentsSha256(),
                    TimeUnit.NANOSECONDS.toMillis(nanos),
                    outcome,
                    error));
        } catch (RuntimeException e) {
            LOG.error("A tool call of agent {} could not be audited: {}", call.promptId(), e.getMessage());
        }
    }

    /** Deletes the rows older than the retention; how many. */
    int prune() {
        return store.deleteBefore(clock.millis() - retention.toMillis());
    }

    /** The SHA-256 of {@code args} as canonical JSON, in hex. */
    static String hash(JsonNode args) {
        try {
            Object plain = CANONICAL.treeToValue(args, Object.class);
            return Digests.sha256Hex(CANONICAL.writeValueAsBytes(plain));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
