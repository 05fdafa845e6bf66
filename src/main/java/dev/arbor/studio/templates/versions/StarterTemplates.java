package dev.arbor.studio.templates.versions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.TemplateDefinition;
import dev.arbor.studio.definitions.TemplateDefinitionCodec;
import dev.arbor.studio.definitions.VersionChanges;
import dev.arbor.studio.definitions.checks.DefinitionValidator;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.Optional;

/**
 * The starter templates {@code builtin/<name>}: realistic scenarios written as data in
 * {@code catalog/starter-templates.json}, checked and seeded at every start. A scenario that changed becomes a new
 * version; the head follows the catalog. They are callable and clonable, never writable.
 */
public final class StarterTemplates {
    public static final String PREFIX = "builtin/";
    private static final String CATALOG = "/catalog/starter-templates.json";

    private StarterTemplates() {}

    /**
     * Seeds every scenario; a scenario that does not pass the template checks stops the start. A read-only
     * database keeps the ones it has.
     */
    public static int seed(TemplateStore store, Clock clock) {
        if (store.database().readOnly()) {
            return 0;
        }
        JsonNode catalog = read();
        int count = 0;
        for (JsonNode scenario : catalog) {
            seed(store, clock, scenario);
            count++;
        }
        return count;
    }

    private static void seed(TemplateStore store, Clock clock, JsonNode scenario) {
        String id = PREFIX + scenario.path("id").asText();
        var problems = new Problems();
        var result = DefinitionValidator.validate(
                new DefinitionValidator.Fields(
                        scenario.get("modalities"), null, null, scenario.get("questions"), null, null, null),
                problems,
                java.util.Set.of());
        if (!problems.isEmpty()) {
            throw new IllegalStateException("starter template " + id + " is invalid: " + problems.list());
        }
        TemplateDefinition definition = TemplateDefinitionCodec.read(result.definition());
        ObjectNode metadata = Json.object();
        metadata.put("studio.group", scenario.path("group").asText());
        metadata.put("studio.sample", scenario.path("sample").asText());
        String name = scenario.path("name").asText();
        String description = scenario.path("description").asText();
        store.database().update(handle -> {
            long now = clock.millis();
            Optional<TemplateHead> existing = store.headForUpdate(handle, id);
            if (existing.isEmpty()) {
                store.insertHead(handle, TemplateHead.builtin(id, name, description, metadata, 1, now, now));
                store.insertVersion(
                        handle,
                        TemplateVersion.create(
                                id,
                                1,
                                "Starter template",
                                definition,
                                "builtin",
                                Optional.empty(),
                                VersionChanges.first(definition),
                                now,
                                "studio"));
                return;
            }
            TemplateHead head = existing.get();
            TemplateVersion latest =
                    store.version(handle, id, head.latestVersion()).orElseThrow();
            int version = head.latestVersion();
            if (!latest.contentHash().equals(TemplateVersion.hash(definition))) {
                version++;
                store.insertVersion(
                        handle,
                        TemplateVersion.create(
                                id,
                                version,
                                "Updated starter template",
                                definition,
                                "builtin",
                                Optional.of(head.latestVersion()),
                                VersionChanges.between(head.latestVersion(), latest.definition(), definition),
                                now,
                                "studio"));
            }
            boolean same = version == head.latestVersion()
                    && head.name().equals(name)
                    && head.description().equals(description)
                    && head.metadata().equals(metadata);
            if (!same) {
                store.updateHead(
                        handle,
                        TemplateHead.builtin(id, name, description, metadata, version, head.createdAtMillis(), now));
            }
        });
    }

    private static JsonNode read() {
        try (InputStream in = requireNonNull(StarterTemplates.class.getResourceAsStream(CATALOG), CATALOG)) {
            return Json.read(in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
