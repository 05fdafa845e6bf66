package dev.arbor.events.providers;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.arbor.events.providers.DeliveryRules.EventTypeRule;
import dev.arbor.events.providers.DeliveryRules.OccurredAt;
import dev.arbor.events.providers.DeliveryRules.PayloadFormat;
import dev.arbor.events.providers.DeliveryRules.TimeFormat;
import dev.arbor.events.providers.DeliveryRules.ValueSource;
import dev.arbor.platform.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SequencedMap;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The event providers the server knows, read at start from {@code catalog/event-providers.json} (their names, in the
 * order lists show them) and one file per provider in {@code catalog/event-providers/}. Each file is checked against
 * {@link DescriptorShapes#CATALOG_ENTRY} and then for sense (a signature scheme's own fields, the secret's credential field,
 * every sample event yielding its own type through the type rule); a provider that fails stops the start with a
 * message naming it and each field at fault.
 */
public final class EventCatalog {
    private static final String INDEX = "/catalog/event-providers.json";
    private static final String FOLDER = "/catalog/event-providers/";
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
    private static final URI SAMPLE_URL = URI.create("https://arbor.invalid/events/hooks/sample");

    private final Map<String, ProviderDescriptor> providers;

    private EventCatalog(Map<String, ProviderDescriptor> providers) {
        this.providers = requireNonNull(providers, "providers");
    }

    /** The catalog shipped with the server. */
    public static EventCatalog load() {
        var files = new LinkedHashMap<String, JsonNode>();
        for (JsonNode name : read(INDEX).path("providers")) {
            if (files.put(name.asText(), read(FOLDER + name.asText() + ".json")) != null) {
                throw new IllegalStateException("event provider '" + name.asText() + "' is listed twice in " + INDEX);
            }
        }
        return of(files);
    }

    /** A catalog of these files, by the provider each is named for; the first one at fault stops it. */
    static EventCatalog of(SequencedMap<String, JsonNode> files) {
        var providers = new LinkedHashMap<String, ProviderDescriptor>();
        var schema = SCHEMAS.getSchema(schemaJson());
        files.forEach((name, entry) -> {
            var problems = new ArrayList<String>();
            for (Error error : schema.validate(entry)) {
                String at = field(error.getInstanceLocation().toString());
                problems.add((at.isEmpty() ? "" : at + ": ") + error.getMessage());
            }
            if (problems.isEmpty()) {
                var reader = new EntryReader(problems);
                ProviderDescriptor descriptor = reader.descriptor((ObjectNode) entry);
                if (!descriptor.provider().equals(name)) {
                    problems.add("provider: is '" + descriptor.provider() + "', not the file's name '" + name + "'");
                }
                if (problems.isEmpty()) {
                    providers.put(name, descriptor);
                }
            }
            if (!problems.isEmpty()) {
                throw new IllegalStateException("event provider '" + name + "' (catalog/event-providers/" + name
                        + ".json) is invalid: " + String.join("; ", problems));
            }
        });
        return new EventCatalog(Collections.unmodifiableMap(providers));
    }

    /** Every provider, in the catalog's order. */
    public List<ProviderDescriptor> all() {
        return List.copyOf(providers.values());
    }

    public Optional<ProviderDescriptor> find(String provider) {
        return Optional.ofNullable(providers.get(provider));
    }

    public List<String> names() {
        return List.copyOf(providers.keySet());
    }

    /** A JSON pointer as the other problems name fields: {@code /a/0/b} is {@code a[0].b}. */
    private static String field(String pointer) {
        var field = new StringBuilder();
        for (String step : pointer.split("/")) {
            if (step.matches("\\d+")) {
                field.append('[').append(step).append(']');
            } else if (!step.isEmpty()) {
                field.append(field.isEmpty() ? "" : ".")
                        .append(step.replace("~1", "/").replace("~0", "~"));
            }
        }
        return field.toString();
    }

    private static JsonNode schemaJson() {
        ObjectNode schema = Json.mapper().valueToTree(DescriptorShapes.CATALOG_ENTRY.json());
        schema.put("$schema", "https://json-schema.org/draft/2020-12/schema");
        return schema;
    }

    private static JsonNode read(String resource) {
        try (InputStream in = EventCatalog.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("the event catalog has no " + resource);
            }
            return Json.read(in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Builds one descriptor from a file that fits the schema, adding a problem (as {@code field: what is wrong}) for
     * each rule the schema cannot state.
     */
    private record EntryReader(List<String> problems) {
        ProviderDescriptor descriptor(ObjectNode entry) {
            var credentials = new ArrayList<ProviderDescriptor.CredentialField>();
            var keys = new HashSet<String>();
            int index = 0;
            for (JsonNode field : entry.path("credentials")) {
                var credential = new ProviderDescriptor.CredentialField(
                        field.path("key").asText(),
                        field.path("label").asText(),
                        field.path("type").asText(),
                        field.path("secret").asBoolean(),
                        field.path("required").asBoolean(),
                        field.path("generated").asBoolean());
                if (!keys.add(credential.key())) {
                    problems.add("credentials[" + index + "].key: '" + credential.key() + "' is there twice");
                }
                credentials.add(credential);
                index++;
            }
            DeliveryRules delivery = delivery(entry.path("delivery"), credentials);
            var types = new ArrayList<ProviderDescriptor.EventType>();
            var seen = new HashSet<String>();
            index = 0;
            for (JsonNode type : entry.path("event_types")) {
                var headers = new LinkedHashMap<String, String>();
                type.path("sample_headers")
                        .properties()
                        .forEach(h -> headers.put(h.getKey(), h.getValue().asText()));
                var eventType = new ProviderDescriptor.EventType(
                        type.path("type").asText(),
                        type.path("description").asText(),
                        type.path("sample_event"),
                        headers);
                String at = "event_types[" + index + "]";
                if (!seen.add(eventType.type())) {
                    problems.add(at + ".type: '" + eventType.type() + "' is there twice");
                }
                checkSample(eventType, delivery, at);
                types.add(eventType);
                index++;
            }
            if (types.isEmpty()) {
                problems.add("event_types: lists no event type");
            }
            var suggestions = new ArrayList<ProviderDescriptor.GroupingSuggestion>();
            index = 0;
            for (JsonNode suggestion : entry.path("grouping_suggestions")) {
                String at = "grouping_suggestions[" + index++ + "].path";
                path(suggestion.path("path").asText(), at).ifPresent(path -> {
                    if (types.stream().noneMatch(t -> path.read(t.sampleEvent()).isPresent())) {
                        problems.add(at + ": " + path + " is in no sample event");
                    }
                    suggestions.add(new ProviderDescriptor.GroupingSuggestion(
                            path, suggestion.path("label").asText()));
                });
            }
            return new ProviderDescriptor(
                    entry.path("provider").asText(),
                    entry.path("provider_type").asText(),
                    entry.path("name").asText(),
                    entry.path("documentation_url").asText(),
                    credentials,
                    types,
                    suggestions,
                    delivery);
        }

        /** A sample must be what the rules read: its type comes out of the type rule as the catalog names it. */
        private void checkSample(ProviderDescriptor.EventType type, DeliveryRules delivery, String at) {
            var request = new InboundRequest(
                    new byte[0],
                    type.sampleHeaders().entrySet().stream()
                            .collect(Collectors.toMap(Map.Entry::getKey, e -> List.of(e.getValue()))),
                    SAMPLE_URL);
            Optional<String> found = delivery.eventType().typeOf(request, type.sampleEvent());
            if (!found.equals(Optional.of(type.type()))) {
                problems.add(at + ".sample_event: yields "
                        + found.map(t -> "the type '" + t + "'").orElse("no type")
                        + " through the type rule, not '" + type.type() + "'");
            }
        }

        private DeliveryRules delivery(JsonNode json, List<ProviderDescriptor.CredentialField> credentials) {
            PayloadFormat format =
                    PayloadFormat.valueOf(json.path("payload_format").asText().toUpperCase(Locale.ROOT));
            var parts = new ArrayList<EventTypeRule.Part>();
            int index = 0;
            for (JsonNode part : json.path("event_type")) {
                String at = "delivery.event_type[" + index++ + "]";
                source(part, at, true)
                        .ifPresent(source -> parts.add(new EventTypeRule.Part(
                                source, part.path("optional").asBoolean(false))));
            }
            if (json.path("event_type").isEmpty()) {
                problems.add("delivery.event_type: has no part");
            }
            Optional<ValueSource> deliveryId = json.has("delivery_id")
                    ? source(json.path("delivery_id"), "delivery.delivery_id", false)
                    : Optional.empty();
            Optional<OccurredAt> occurredAt = time(json, "occurred_at");
            Optional<DeliveryRules.Freshness> freshness = time(json, "freshness")
                    .map(time -> new DeliveryRules.Freshness(
                            time,
                            Duration.ofSeconds(json.path("freshness")
                                    .path("tolerance_seconds")
                                    .asLong())));
            return new DeliveryRules(
                    format,
                    signature(json.path("signature"), credentials),
                    freshness,
                    // a placeholder keeps the rule whole when its parts had problems: the start stops anyway
                    new EventTypeRule(
                            parts.isEmpty()
                                    ? List.of(new EventTypeRule.Part(new ValueSource.Literal(""), false))
                                    : parts),
                    deliveryId,
                    occurredAt,
                    handshake(json.path("handshake")));
        }

        /** A time of the delivery, where {@code field} of the delivery rules names one: a source and its format. */
        private Optional<OccurredAt> time(JsonNode delivery, String field) {
            JsonNode json = delivery.path(field);
            if (json.isMissingNode()) {
                return Optional.empty();
            }
            return source(json, "delivery." + field, false)
                    .map(source -> new OccurredAt(
                            source,
                            TimeFormat.valueOf(json.path("format").asText().toUpperCase(Locale.ROOT))));
        }

        private SignatureScheme signature(JsonNode json, List<ProviderDescriptor.CredentialField> credentials) {
            String scheme = json.path("scheme").asText();
            String secretField = json.path("secret_field").asText();
            // every connection has the secret: the operator gives it, or Arbor generates it when left out
            if (credentials.stream()
                    .noneMatch(c -> c.key().equals(secretField) && c.secret() && (c.required() || c.generated()))) {
                problems.add("delivery.signature.secret_field: '" + secretField
                        + "' is not a required (or generated) secret credential field");
            }
            var fields = new SchemeFields(json, scheme, problems);
            SignatureScheme built = switch (scheme) {
                case "body_hmac" ->
                    new SignatureScheme.BodyHmac(
                            secretField,
                            fields.text("header"),
                            fields.optionalText("prefix"),
                            SignatureScheme.Encoding.valueOf(
                                    fields.text("encoding").toUpperCase(Locale.ROOT)));
                case "timestamped_hmac" ->
                    new SignatureScheme.TimestampedHmac(secretField, fields.text("header"), fields.tolerance());
                case "slack_v0" ->
                    new SignatureScheme.TimestampHeaderHmac(
                            secretField,
                            fields.text("header"),
                            fields.text("timestamp_header"),
                            fields.tolerance(),
                            SignatureScheme.TimestampHeaderHmac.Layout.SLACK_V0);
                case "timestamp_first_hmac" ->
                    new SignatureScheme.TimestampHeaderHmac(
                            secretField,
                            fields.text("header"),
                            fields.text("timestamp_header"),
                            fields.tolerance(),
                            SignatureScheme.TimestampHeaderHmac.Layout.TIMESTAMP_FIRST);
                case "standard_webhooks" ->
                    new SignatureScheme.StandardWebhooks(
                            secretField,
                            fields.text("id_header"),
                            fields.text("timestamp_header"),
                            fields.text("header"),
                            fields.tolerance());
                case "shared_token" ->
                    new SignatureScheme.SharedToken(secretField, fields.text("header"), fields.optionalText("prefix"));
                case "twilio" -> new SignatureScheme.TwilioSignature(secretField, fields.text("header"));
                case "graph_client_state" -> new SignatureScheme.GraphClientState(secretField);
                default -> throw new IllegalStateException("the schema allows scheme " + scheme);
            };
            fields.refuseUnused();
            return built;
        }

        private Handshake handshake(JsonNode json) {
            if (json.isMissingNode()) {
                return new Handshake.None();
            }
            String kind = json.path("kind").asText();
            var fields = new SchemeFields(json, kind, problems, "delivery.handshake", "kind");
            Handshake built = switch (kind) {
                case "header_ping" -> new Handshake.HeaderPing(fields.text("header"), fields.text("value"));
                case "payload_challenge" ->
                    new Handshake.PayloadChallenge(
                            fields.path("path"), fields.text("equals"), fields.path("challenge_path"));
                case "query_token" -> new Handshake.QueryToken(fields.text("query_param"));
                default -> throw new IllegalStateException("the schema allows handshake " + kind);
            };
            fields.refuseUnused();
            return built;
        }

        private Optional<ValueSource> source(JsonNode json, String at, boolean literalAllowed) {
            var given = new ArrayList<String>();
            for (String key : List.of("header", "path", "literal")) {
                if (json.has(key)) {
                    given.add(key);
                }
            }
            if (given.size() != 1 || (!literalAllowed && given.contains("literal"))) {
                problems.add(at + ": must name exactly one of header, path" + (literalAllowed ? ", literal" : ""));
                return Optional.empty();
            }
            return switch (given.getFirst()) {
                case "header" ->
                    Optional.of(new ValueSource.Header(json.path("header").asText()));
                case "path" -> path(json.path("path").asText(), at + ".path").map(ValueSource.Path::new);
                default ->
                    Optional.of(new ValueSource.Literal(json.path("literal").asText()));
            };
        }

        private Optional<PayloadPath> path(String text, String at) {
            Optional<PayloadPath> path = PayloadPath.parse(text);
            if (path.isEmpty()) {
                problems.add(at + ": '" + text + "' is not a path of the form $.a.b, $.a[0] or $['a.b']");
            }
            return path;
        }

        /** The fields of one signature scheme or handshake: each one it needs present, none it ignores given. */
        private static final class SchemeFields {
            private static final PayloadPath NOWHERE = PayloadPath.parse("$").orElseThrow();
            private final JsonNode json;
            private final String kind;
            private final List<String> problems;
            private final String at;
            private final Set<String> used = new HashSet<>();

            SchemeFields(JsonNode json, String kind, List<String> problems) {
                this(json, kind, problems, "delivery.signature", "scheme", "secret_field");
            }

            SchemeFields(JsonNode json, String kind, List<String> problems, String at, String... always) {
                this.json = json;
                this.kind = kind;
                this.problems = problems;
                this.at = at;
                used.addAll(List.of(always));
            }

            String text(String field) {
                used.add(field);
                if (!json.has(field)) {
                    problems.add(at + "." + field + ": is required for " + kind);
                    return "";
                }
                return json.path(field).asText();
            }

            String optionalText(String field) {
                used.add(field);
                return json.path(field).asText("");
            }

            Duration tolerance() {
                used.add("tolerance_seconds");
                if (!json.has("tolerance_seconds")) {
                    problems.add(at + ".tolerance_seconds: is required for " + kind);
                    return Duration.ZERO;
                }
                return Duration.ofSeconds(json.path("tolerance_seconds").asLong());
            }

            PayloadPath path(String field) {
                String text = text(field);
                Optional<PayloadPath> path = PayloadPath.parse(text);
                if (path.isEmpty() && !text.isEmpty()) {
                    problems.add(at + "." + field + ": '" + text + "' is not a path of the form $.a.b");
                }
                return path.orElse(NOWHERE);
            }

            void refuseUnused() {
                json.properties().forEach(field -> {
                    if (!used.contains(field.getKey())) {
                        problems.add(at + "." + field.getKey() + ": is not a field of " + kind);
                    }
                });
            }
        }
    }
}
