package dev.arbor.triggers;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static dev.arbor.platform.http.bodies.BodyField.Presence.REQUIRED;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.access.CurrentProject;
import dev.arbor.access.Principal;
import dev.arbor.events.EventConnections;
import dev.arbor.events.EventConnections.Subscribable;
import dev.arbor.events.EventEnvelope;
import dev.arbor.events.providers.PayloadPath;
import dev.arbor.pipelines.Pipelines;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.DidYouMean;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problem;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodyReader;
import dev.arbor.platform.http.bodies.BodySpec;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.outbound.OutboundPolicy;
import dev.arbor.platform.outbound.OutboundRefusedException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A trigger's body, checked: the connection and the pipeline it names are looked up first (404 when the project may
 * not use them, which says nothing of other projects'), then every other problem is listed at once.
 */
final class TriggerBody {
    static final int MAX_DEBOUNCE_SECONDS = 86_400;
    static final int MAX_CONDITIONS = 20;
    static final int MAX_VALUES = 100;
    private static final int MAX_PATH_LENGTH = 500;
    private static final int MAX_URL_LENGTH = 2_000;

    static final BodyField<String> PROJECT_ID = BodyField.text(OPTIONAL, CurrentProject.FIELD, 100);
    private static final String NAME_REFUSAL = "must be a non-empty string of at most 200 characters";
    static final BodyField<String> NAME = BodyField.text(REQUIRED, "name", 200)
            .matching(Pattern.compile("[\\s\\S]*\\S[\\s\\S]*"), NAME_REFUSAL)
            .refusedAs(NAME_REFUSAL);
    static final BodyField<String> CONNECTION_ID = BodyField.text(REQUIRED, "connection_id", 100);
    static final BodyField<List<String>> EVENT_TYPES = BodyField.texts(REQUIRED, "event_types", 100, 200);
    private static final Schema SCALAR = Schema.anyOf(Schema.string(), Schema.number(), Schema.bool());
    static final BodyField<JsonNode> FILTER =
            BodyField.value(OPTIONAL, "filter", Schema.mapOf(Schema.anyOf(SCALAR, Schema.arrayOf(SCALAR, MAX_VALUES))));
    static final BodyField<JsonNode> TARGET = BodyField.value(
            REQUIRED,
            "target",
            Schema.anyOf(
                    Schema.object()
                            .required("pipeline_id", Schema.string())
                            .optional("params", Schema.mapOf(Schema.any()))
                            .closed(),
                    Schema.object()
                            .required("url", new Schema.Str(1, MAX_URL_LENGTH, "uri", ""))
                            .closed()));
    static final BodyField<Boolean> ENABLED = BodyField.flag(OPTIONAL, "enabled");
    static final BodyField<Long> DEBOUNCE_SECONDS =
            BodyField.integer(OPTIONAL, "debounce_seconds", 0, MAX_DEBOUNCE_SECONDS);
    static final BodyField<String> CORRELATION_KEY = BodyField.text(OPTIONAL, "correlation_key", MAX_PATH_LENGTH);
    static final BodyField<Boolean> ROTATE_SECRET = BodyField.flag(OPTIONAL, "rotate_secret");

    static final BodySpec CREATE = BodySpec.closed(
            "a trigger",
            PROJECT_ID,
            NAME,
            CONNECTION_ID,
            EVENT_TYPES,
            FILTER,
            TARGET,
            ENABLED,
            DEBOUNCE_SECONDS,
            CORRELATION_KEY);
    /**
     * A merge patch of a trigger's fields (checked as a whole trigger once applied), and {@code rotate_secret} for a
     * new signing secret of a URL target.
     */
    static final BodySpec CHANGE = BodySpec.closed(
            "a trigger's update",
            PROJECT_ID,
            BodyField.text(OPTIONAL, NAME.name(), 200),
            BodyField.text(OPTIONAL, CONNECTION_ID.name(), 100),
            BodyField.texts(OPTIONAL, EVENT_TYPES.name(), 100, 200),
            FILTER,
            BodyField.value(OPTIONAL, TARGET.name(), TARGET.schema()),
            ENABLED,
            DEBOUNCE_SECONDS,
            CORRELATION_KEY,
            ROTATE_SECRET);

    /** A body's trigger, before it has an id and (for a URL target) a secret. */
    record Draft(
            String name,
            String connectionId,
            List<String> eventTypes,
            EventFilter filter,
            TargetDraft target,
            boolean enabled,
            int debounceSeconds,
            Optional<PayloadPath> correlationKey) {}

    sealed interface TargetDraft {
        record Pipeline(String pipelineId, ObjectNode params) implements TargetDraft {}

        record Url(String url) implements TargetDraft {}
    }

    private final EventConnections connections;
    private final Pipelines pipelines;
    private final OutboundPolicy outbound;

    TriggerBody(EventConnections connections, Pipelines pipelines, OutboundPolicy outbound) {
        this.connections = requireNonNull(connections, "connections");
        this.pipelines = requireNonNull(pipelines, "pipelines");
        this.outbound = requireNonNull(outbound, "outbound");
    }

    /**
     * The trigger {@code body} describes for {@code project}, a whole trigger's fields ({@link #CREATE}); every
     * problem thrown at once.
     */
    Draft check(ObjectNode body, String project, Principal principal) {
        BodyReader reader = CREATE.reader(body);
        Problems problems = reader.problems();
        PROJECT_ID.read(reader);
        Optional<String> name = NAME.read(reader).map(String::strip);
        Optional<Subscribable> connection = CONNECTION_ID.read(reader).map(id -> usable(id, project));
        Optional<List<String>> types = EVENT_TYPES.read(reader);
        types.ifPresent(list -> connection.ifPresent(c -> eventTypes(list, c, problems)));
        EventFilter filter = FILTER.read(reader).map(f -> filter(f, problems)).orElse(new EventFilter(List.of()));
        Optional<TargetDraft> target = TARGET.read(reader).flatMap(t -> target(t, principal, problems));
        int debounce = DEBOUNCE_SECONDS.read(reader).map(Long::intValue).orElse(0);
        Optional<PayloadPath> correlation =
                CORRELATION_KEY.read(reader).flatMap(key -> path(key, CORRELATION_KEY.name(), problems));
        if (body.hasNonNull(CORRELATION_KEY.name()) && debounce == 0) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    CORRELATION_KEY.name(),
                    "`correlation_key` groups events for debouncing: set `debounce_seconds` too, or leave the key "
                            + "out.");
        }
        boolean enabled = ENABLED.read(reader).orElse(true);
        problems.throwIfAny();
        return new Draft(
                name.orElseThrow(),
                connection.orElseThrow().id(),
                types.orElseThrow(),
                filter,
                target.orElseThrow(),
                enabled,
                debounce,
                correlation);
    }

    /** The connection, when the project may use it: otherwise 404, as if there were none. */
    private Subscribable usable(String id, String project) {
        return connections
                .find(id)
                .filter(c -> c.usableBy(project))
                .orElseThrow(() -> ApiException.of(
                        ErrorCode.EVENT_CONNECTION_NOT_FOUND,
                        CONNECTION_ID.name(),
                        "There is no shared event connection '" + id + "' this project may use (`connection_id`)."));
    }

    private static void eventTypes(List<String> types, Subscribable connection, Problems problems) {
        if (types.isEmpty()) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    EVENT_TYPES.name(),
                    "`event_types` must list at least one of " + connection.provider() + "'s event types.");
        }
        for (int i = 0; i < types.size(); i++) {
            String type = types.get(i);
            if (!connection.eventTypes().contains(type)) {
                String param = ParamPath.index(EVENT_TYPES.name(), i);
                problems.add(
                        ErrorCode.INVALID_FIELD,
                        param,
                        "`" + param + "` is '" + type + "', which is not an event type of " + connection.provider()
                                + " (GET /events/descriptors?provider=" + connection.provider() + " lists them)."
                                + DidYouMean.hint(type, connection.eventTypes()));
            }
        }
    }

    private static EventFilter filter(JsonNode given, Problems problems) {
        if (!given.isObject()) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    FILTER.name(),
                    "`filter` must be an object from JSONPaths into the event to a value or a list of values.");
            return new EventFilter(List.of());
        }
        if (given.size() > MAX_CONDITIONS) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    FILTER.name(),
                    "`filter` has " + given.size() + " conditions; at most " + MAX_CONDITIONS + " are allowed.");
        }
        var conditions = new ArrayList<EventFilter.Condition>();
        for (var entry : given.properties()) {
            String param = ParamPath.key(FILTER.name(), entry.getKey());
            Optional<PayloadPath> path = path(entry.getKey(), param, problems);
            JsonNode value = entry.getValue();
            boolean scalar = isScalar(value);
            boolean list = value.isArray()
                    && !value.isEmpty()
                    && value.size() <= MAX_VALUES
                    && value.valueStream().allMatch(TriggerBody::isScalar);
            if (!scalar && !list) {
                problems.add(
                        ErrorCode.INVALID_FIELD,
                        param,
                        "`" + param + "` must be a string, number or boolean (equal to it), or a list of 1 to "
                                + MAX_VALUES + " of them (equal to one of them).");
            } else {
                path.ifPresent(p -> conditions.add(new EventFilter.Condition(p, value)));
            }
        }
        return new EventFilter(conditions);
    }

    private static boolean isScalar(JsonNode value) {
        return value.isTextual() || value.isNumber() || value.isBoolean();
    }

    /**
     * A JSONPath rooted at the event's envelope, into one of its fields: {@code $.type}, {@code $.payload.x}. A path
     * written as if rooted at the payload gets a hint.
     */
    private static Optional<PayloadPath> path(String text, String param, Problems problems) {
        Optional<PayloadPath> path = text.length() > MAX_PATH_LENGTH ? Optional.empty() : PayloadPath.parse(text);
        if (path.isEmpty() || path.get().steps().isEmpty()) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    param,
                    "`" + param + "` must be a JSONPath into the event such as `$.payload.repository.name`: `$`, "
                            + "then `.name`, `['name']` or `[index]` steps (no wildcards or filters).");
            return Optional.empty();
        }
        if (!(path.get().steps().getFirst() instanceof PayloadPath.Step.Field first)
                || !EventEnvelope.FIELDS.contains(first.name())) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    param,
                    "`" + param + "` must start at one of the event's fields ("
                            + String.join(", ", EventEnvelope.FIELDS)
                            + "): paths are rooted at the event, not its payload. Did you mean `$.payload"
                            + text.substring(1) + "`?");
            return Optional.empty();
        }
        return path;
    }

    private Optional<TargetDraft> target(JsonNode given, Principal principal, Problems problems) {
        String name = TARGET.name();
        if (!given.isObject()) {
            problems.add(ErrorCode.INVALID_FIELD, name, "`target` must be {\"pipeline_id\", \"params\"} or {\"url\"}.");
            return Optional.empty();
        }
        int before = problems.list().size();
        problems.unknownFields(given, Set.of("pipeline_id", "params", "url"), name, "a target");
        boolean pipeline = given.has("pipeline_id");
        boolean url = given.has("url");
        if (pipeline == url) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    name,
                    "`target` must have either `pipeline_id` (with its `params`) or `url`"
                            + (pipeline ? ", not both (to switch, send the other as null)." : "."));
            return Optional.empty();
        }
        if (url) {
            if (given.has("params")) {
                problems.add(
                        ErrorCode.INVALID_FIELD, "target.params", "`target.params` goes with a pipeline target only.");
            }
            return url(given.get("url"), problems).filter(u -> problems.list().size() == before);
        }
        return pipelineTarget(given, principal, problems)
                .filter(p -> problems.list().size() == before);
    }

    private Optional<TargetDraft> pipelineTarget(JsonNode given, Principal principal, Problems problems) {
        String param = "target.pipeline_id";
        JsonNode id = given.get("pipeline_id");
        if (!id.isTextual() || id.textValue().isBlank()) {
            problems.add(ErrorCode.INVALID_FIELD, param, "`" + param + "` must be a pipeline's id.");
            return Optional.empty();
        }
        if (!principal.isAdmin()) {
            // pipelines are admins' own: a member's trigger may not run one
            throw ApiException.of(
                    ErrorCode.ADMIN_REQUIRED,
                    param,
                    "Only an admin token may make a trigger start a pipeline; a member's trigger calls a URL.");
        }
        JsonNode params = given.path("params");
        if (!params.isMissingNode() && !params.isNull() && !params.isObject()) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    "target.params",
                    "`target.params` must be an object of the pipeline's parameters.");
            return Optional.empty();
        }
        ObjectNode checked = params.isObject() ? (ObjectNode) params : Json.object();
        List<Problem> found = pipelines
                .eventRunProblems(id.textValue(), checked)
                .orElseThrow(() -> ApiException.of(
                        ErrorCode.PIPELINE_NOT_FOUND, param, "There is no pipeline '" + id.textValue() + "'."));
        for (Problem problem : found) {
            problems.add(
                    problem.code(),
                    "target." + problem.param(),
                    problem.message().replace("`params", "`target.params"));
        }
        return Optional.of(new TargetDraft.Pipeline(id.textValue(), checked));
    }

    private Optional<TargetDraft> url(JsonNode given, Problems problems) {
        String param = "target.url";
        if (!given.isTextual() || given.textValue().length() > MAX_URL_LENGTH) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    param,
                    "`" + param + "` must be an http or https URL of at most " + MAX_URL_LENGTH + " characters.");
            return Optional.empty();
        }
        try {
            URI uri = new URI(given.textValue());
            if (!uri.isAbsolute() || uri.getHost() == null) {
                throw new URISyntaxException(given.textValue(), "not an absolute URL with a host");
            }
            outbound.check(uri);
            return Optional.of(new TargetDraft.Url(uri.toString()));
        } catch (URISyntaxException e) {
            problems.add(ErrorCode.INVALID_FIELD, param, "`" + param + "` is not an http or https URL.");
        } catch (OutboundRefusedException e) {
            problems.add(ErrorCode.INVALID_FIELD, param, "`" + param + "` cannot be used: " + e.getMessage() + ".");
        }
        return Optional.empty();
    }
}
