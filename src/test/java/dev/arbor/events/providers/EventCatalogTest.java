package dev.arbor.events.providers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The shipped catalog of event providers loads, and a provider that does not make sense stops the start. */
class EventCatalogTest {
    private static final EventCatalog CATALOG = EventCatalog.load();

    @Test
    void theShippedCatalogHasTheRealProviders() {
        assertThat(CATALOG.names())
                .hasSizeGreaterThanOrEqualTo(20)
                .contains(
                        "github",
                        "gitlab",
                        "bitbucket",
                        "stripe",
                        "slack",
                        "teams",
                        "pagerduty",
                        "opsgenie",
                        "sentry",
                        "linear",
                        "jira",
                        "shopify",
                        "datadog",
                        "grafana",
                        "alertmanager",
                        "zendesk",
                        "twilio",
                        "typeform",
                        "calendly",
                        "standard_webhooks");
    }

    static Stream<Arguments> sampleEvents() {
        return CATALOG.all().stream()
                .flatMap(provider ->
                        provider.eventTypes().stream().map(type -> Arguments.of(provider.provider(), type.type())));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("sampleEvents")
    void everySampleEventYieldsItsOwnTypeThroughTheTypeRule(String provider, String type) {
        ProviderDescriptor descriptor = CATALOG.find(provider).orElseThrow();
        ProviderDescriptor.EventType eventType = descriptor.eventType(type).orElseThrow();
        var headers = new LinkedHashMap<String, List<String>>();
        eventType.sampleHeaders().forEach((name, value) -> headers.put(name, List.of(value)));
        var request = new InboundRequest(new byte[0], headers, URI.create("https://arbor.test/events/hooks/t"));

        assertThat(descriptor.delivery().eventType().typeOf(request, eventType.sampleEvent()))
                .contains(type);
    }

    @Test
    void aTypeRuleJoinsAHeaderAndAnOptionalPayloadField() {
        var rule = CATALOG.find("github").orElseThrow().delivery().eventType();
        var push = new InboundRequest(
                new byte[0], Map.of("x-github-event", List.of("push")), URI.create("https://arbor.test/h"));

        assertThat(rule.typeOf(push, Json.read("{\"ref\": \"refs/heads/main\"}")))
                .contains("push");
        assertThat(rule.typeOf(push, Json.read("{\"action\": \"opened\"}"))).contains("push.opened");
        assertThat(rule.typeOf(
                        new InboundRequest(new byte[0], Map.of(), URI.create("https://arbor.test/h")),
                        Json.read("{\"action\": \"opened\"}")))
                .isEmpty();
    }

    static Stream<Arguments> brokenDescriptors() {
        return Stream.of(
                Arguments.of(
                        "/delivery/signature/header", null, "delivery.signature.header: is required for body_hmac"),
                Arguments.of("/delivery/signature/scheme", "\"md5\"", "delivery.signature.scheme: "),
                Arguments.of(
                        "/delivery/signature/secret_field",
                        "\"webhook_secret\"",
                        "delivery.signature.secret_field: 'webhook_secret' is not a required (or generated) secret credential field"),
                Arguments.of(
                        "/credentials/0/secret",
                        "false",
                        "delivery.signature.secret_field: 'signing_secret' is not a required (or generated) secret"),
                Arguments.of(
                        "/delivery/signature/timestamp_header",
                        "\"X-Hub-Timestamp\"",
                        "delivery.signature.timestamp_header: is not a field of body_hmac"),
                Arguments.of(
                        "/event_types/0/type",
                        "\"issues.reopened\"",
                        "event_types[0].sample_event: yields the type 'issues.opened' through the type rule, not"
                                + " 'issues.reopened'"),
                Arguments.of(
                        "/event_types/1/type",
                        "\"issues.opened\"",
                        "event_types[1].type: 'issues.opened' is there twice"),
                Arguments.of(
                        "/delivery/event_type/1",
                        "{\"header\": \"X-GitHub-Event\", \"path\": \"$.action\"}",
                        "delivery.event_type[1]: must name exactly one of header, path, literal"),
                Arguments.of(
                        "/delivery/delivery_id",
                        "{\"literal\": \"always-the-same\"}",
                        "delivery.delivery_id: must name exactly one of header, path"),
                Arguments.of(
                        "/grouping_suggestions/0/path",
                        "\"$.repository..full_name\"",
                        "grouping_suggestions[0].path: '$.repository..full_name' is not a path"),
                Arguments.of(
                        "/grouping_suggestions/0/path",
                        "\"$.repository.fullname\"",
                        "grouping_suggestions[0].path: $.repository.fullname is in no sample event"),
                Arguments.of("/grouping_suggestions/0/path", "\"repository\"", "grouping_suggestions[0].path: "),
                Arguments.of("/provider", "\"gitlab\"", "provider: is 'gitlab', not the file's name 'github'"),
                Arguments.of("/colour", "\"blue\"", "property 'colour' is not defined in the schema"),
                Arguments.of("/event_types", "[]", "event_types: lists no event type"),
                Arguments.of(
                        "/delivery/handshake/value", null, "delivery.handshake.value: is required for header_ping"),
                Arguments.of("/credentials/0/required", "\"yes\"", "credentials[0].required: "));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("brokenDescriptors")
    void aBrokenDescriptorStopsTheStartNamingItsProviderAndField(String pointer, String value, String message) {
        ObjectNode github = (ObjectNode) resource("/catalog/event-providers/github.json");
        set(github, pointer, Optional.ofNullable(value).map(Json::read));
        var files = new LinkedHashMap<String, JsonNode>();
        files.put("github", github);

        assertThatThrownBy(() -> EventCatalog.of(files))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("event provider 'github' (catalog/event-providers/github.json) is invalid: ")
                .hasMessageContaining(message);
    }

    @Test
    void anUntouchedDescriptorPasses() {
        var files = new LinkedHashMap<String, JsonNode>();
        files.put("github", resource("/catalog/event-providers/github.json"));

        assertThat(EventCatalog.of(files).names()).containsExactly("github");
    }

    /** Sets the value at {@code pointer} (its parent must exist), or removes it when there is none. */
    private static void set(ObjectNode root, String pointer, Optional<JsonNode> value) {
        JsonPointer at = JsonPointer.compile(pointer);
        JsonNode parent = root.at(at.head());
        String last = at.last().getMatchingProperty();
        if (parent instanceof ArrayNode array) {
            int index = at.last().getMatchingIndex();
            value.ifPresentOrElse(v -> array.set(index, v), () -> array.remove(index));
        } else {
            ObjectNode object = (ObjectNode) parent;
            value.ifPresentOrElse(v -> object.set(last, v), () -> object.remove(last));
        }
    }

    private static JsonNode resource(String name) {
        try (InputStream in = EventCatalogTest.class.getResourceAsStream(name)) {
            return Json.read(in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
