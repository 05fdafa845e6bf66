package dev.arbor.events.providers;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One event provider of the catalog: what an operator enters to connect it (its credential fields), the event types it
 * sends with a sample of each, the payload paths worth grouping events by, and how its deliveries are read.
 */
public record ProviderDescriptor(
        String provider,
        String providerType,
        String name,
        String documentationUrl,
        List<CredentialField> credentials,
        List<EventType> eventTypes,
        List<GroupingSuggestion> groupingSuggestions,
        DeliveryRules delivery) {
    public ProviderDescriptor {
        requireNonNull(provider, "provider");
        requireNonNull(providerType, "providerType");
        requireNonNull(name, "name");
        requireNonNull(documentationUrl, "documentationUrl");
        credentials = List.copyOf(credentials);
        eventTypes = List.copyOf(eventTypes);
        groupingSuggestions = List.copyOf(groupingSuggestions);
        requireNonNull(delivery, "delivery");
    }

    /**
     * A field of the connection form; a secret one is masked there and never read back. A generated one may be left
     * out: Arbor then chooses its value (a Standard Webhooks signing secret) and shows it once, for the operator to
     * give the sender; given, it is the one the sender generated and showed.
     */
    public record CredentialField(
            String key, String label, String type, boolean secret, boolean required, boolean generated) {
        public CredentialField {
            requireNonNull(key, "key");
            requireNonNull(label, "label");
            requireNonNull(type, "type");
        }
    }

    /**
     * An event type in the provider's own words, with a payload of that type as the provider sends it and the headers
     * the type rule reads.
     */
    public record EventType(String type, String description, JsonNode sampleEvent, Map<String, String> sampleHeaders) {
        public EventType {
            requireNonNull(type, "type");
            requireNonNull(description, "description");
            sampleEvent = sampleEvent.deepCopy();
            sampleHeaders = Map.copyOf(sampleHeaders);
        }

        @Override
        public JsonNode sampleEvent() {
            return sampleEvent.deepCopy();
        }
    }

    /** A payload path events of this provider are usefully grouped by (a repository, an incident, a customer). */
    public record GroupingSuggestion(PayloadPath path, String label) {
        public GroupingSuggestion {
            requireNonNull(path, "path");
            requireNonNull(label, "label");
        }
    }

    public Optional<EventType> eventType(String type) {
        return eventTypes.stream().filter(t -> t.type().equals(type)).findFirst();
    }

    /** The descriptor as {@code GET /events/descriptors} shows it. */
    public Map<String, Object> toJson() {
        var json = new LinkedHashMap<String, Object>();
        json.put("object", "event.descriptor");
        json.put("provider", provider);
        json.put("provider_type", providerType);
        json.put("name", name);
        json.put("documentation_url", documentationUrl);
        json.put(
                "credentials",
                credentials.stream()
                        .map(c -> Map.of(
                                "key",
                                c.key(),
                                "label",
                                c.label(),
                                "type",
                                c.type(),
                                "secret",
                                c.secret(),
                                "required",
                                c.required(),
                                "generated",
                                c.generated()))
                        .toList());
        json.put(
                "event_types",
                eventTypes.stream()
                        .map(t -> {
                            var type = new LinkedHashMap<String, Object>();
                            type.put("type", t.type());
                            type.put("description", t.description());
                            type.put("sample_event", t.sampleEvent());
                            if (!t.sampleHeaders().isEmpty()) {
                                type.put("sample_headers", t.sampleHeaders());
                            }
                            return type;
                        })
                        .toList());
        json.put(
                "grouping_suggestions",
                groupingSuggestions.stream()
                        .map(g -> Map.of("path", g.path().text(), "label", g.label()))
                        .toList());
        return json;
    }
}
