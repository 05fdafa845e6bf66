package dev.arbor.studio.examples;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problem;
import dev.arbor.platform.ids.Ids;
import dev.arbor.studio.templates.Templates;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;

/**
 * Changes to a template's test examples, each one transaction that moves the examples revision on. An input is an
 * example once: adding or changing another example to the same input is refused, naming the one that has it.
 */
final class Examples {
    static final int MAX_IMPORT = 5000;
    private static final List<String> READ_ONLY =
            List.of("id", "object", "template", "revision", "created_at", "updated_at");

    private final ExampleStore store;
    private final ExampleDrafts drafts;
    private final Clock clock;

    Examples(ExampleStore store, ExampleDrafts drafts, Clock clock) {
        this.store = requireNonNull(store, "store");
        this.drafts = requireNonNull(drafts, "drafts");
        this.clock = requireNonNull(clock, "clock");
    }

    /** One item of an import that was not added, at its index in the import. */
    record Failure(int index, Problem problem) {}

    /** What an import did: the examples it added, the revision they are in, and those it refused. */
    record Imported(int created, int revision, List<Failure> failed) {
        Imported {
            failed = List.copyOf(failed);
        }
    }

    ExampleStore.Row create(Templates.Resolved template, ObjectNode body) {
        writable(template);
        ExampleDrafts.Draft draft =
                drafts.draft(template, body, Optional.empty()).orElseThrow();
        long now = clock.millis();
        return store.database().write(handle -> {
            int revision = ExampleStore.nextRevision(handle, template.id());
            ExampleStore.withInput(handle, template.id(), draft.inputHash()).ifPresent(existing -> {
                throw exists(existing);
            });
            var created = draft.row(Ids.next("ex"), template.id(), revision, now, now);
            ExampleStore.insert(handle, created);
            return created;
        });
    }

    /**
     * Merges {@code patch} into the example ({@code variables} and {@code expected} key by key, a null removing a
     * key) and checks the result as a new example that keeps its id, creation time and source decision.
     */
    ExampleStore.Row change(Templates.Resolved template, String id, ObjectNode patch) {
        writable(template);
        ExampleStore.Row current = store.database()
                .read(handle -> ExampleStore.current(handle, template.id(), id))
                .orElseThrow(() -> notFound(id));
        ObjectNode merged = current.json();
        for (String field : READ_ONLY) {
            if (patch.has(field)) {
                throw ApiException.of(
                        ErrorCode.READ_ONLY_FIELD, field, "`" + field + "` of an example cannot be changed.");
            }
            merged.remove(field);
        }
        patch.properties().forEach(e -> {
            JsonNode value = e.getValue();
            boolean keyed = e.getKey().equals("variables") || e.getKey().equals("expected");
            if (keyed && value.isObject() && merged.path(e.getKey()).isObject()) {
                ObjectNode target = (ObjectNode) merged.get(e.getKey());
                value.properties().forEach(v -> {
                    if (v.getValue().isNull()) {
                        target.remove(v.getKey());
                    } else {
                        target.set(v.getKey(), v.getValue());
                    }
                });
            } else {
                merged.set(e.getKey(), value);
            }
        });
        merged.remove("from_decision");
        ExampleDrafts.Draft draft =
                drafts.draft(template, merged, Optional.empty()).orElseThrow().withFromDecision(current.fromDecision());
        return store.database().write(handle -> {
            int revision = ExampleStore.nextRevision(handle, template.id());
            ExampleStore.retire(handle, template.id(), id, revision);
            ExampleStore.withInput(handle, template.id(), draft.inputHash()).ifPresent(existing -> {
                throw exists(existing);
            });
            var changed = draft.row(id, template.id(), revision, current.createdAtMillis(), clock.millis());
            ExampleStore.insert(handle, changed);
            return changed;
        });
    }

    void delete(Templates.Resolved template, String id) {
        writable(template);
        store.database().update(handle -> {
            int revision = ExampleStore.nextRevision(handle, template.id());
            if (!ExampleStore.retire(handle, template.id(), id, revision)) {
                throw notFound(id);
            }
        });
    }

    /** Adds every item that checks and is not an example yet, in one revision; the others are listed. */
    Imported importAll(Templates.Resolved template, JsonNode items) {
        writable(template);
        if (!items.isArray() || items.isEmpty()) {
            throw ApiException.of(
                    ErrorCode.INVALID_FIELD,
                    "examples",
                    "`examples` must be a list of 1 to " + MAX_IMPORT + " examples.");
        }
        if (items.size() > MAX_IMPORT) {
            throw ApiException.of(
                    ErrorCode.TOO_MANY_ITEMS,
                    "examples",
                    "An import takes at most " + MAX_IMPORT + " examples; this one has " + items.size()
                            + ". Split it.");
        }
        var failed = new ArrayList<Failure>();
        var checked = new LinkedHashMap<Integer, ExampleDrafts.Draft>();
        for (int i = 0; i < items.size(); i++) {
            String prefix = ParamPath.index("examples", i);
            if (!(items.get(i) instanceof ObjectNode item)) {
                failed.add(new Failure(
                        i,
                        new Problem(ErrorCode.INVALID_FIELD, prefix, "`" + prefix + "` must be an example object.")));
                continue;
            }
            try {
                checked.put(i, drafts.draft(template, item, Optional.of(prefix)).orElseThrow());
            } catch (ApiException e) {
                failed.add(new Failure(i, e.problems().getFirst()));
            }
        }
        long now = clock.millis();
        int[] created = {0};
        int revision = store.database().write(handle -> {
            int next = ExampleStore.nextRevision(handle, template.id());
            checked.forEach((index, draft) -> {
                Optional<String> existing = ExampleStore.withInput(handle, template.id(), draft.inputHash());
                if (existing.isPresent()) {
                    failed.add(new Failure(
                            index,
                            new Problem(
                                    ErrorCode.EXAMPLE_EXISTS,
                                    ParamPath.index("examples", index),
                                    "This input is already example " + existing.get() + ".")));
                    return;
                }
                ExampleStore.insert(handle, draft.row(Ids.next("ex"), template.id(), next, now, now));
                created[0]++;
            });
            return next;
        });
        failed.sort(Comparator.comparingInt(Failure::index));
        return new Imported(created[0], revision, failed);
    }

    static ApiException notFound(String id) {
        return ApiException.of(ErrorCode.EXAMPLE_NOT_FOUND, "example_id", "There is no test example " + id + ".");
    }

    private static void writable(Templates.Resolved template) {
        if (template.id().startsWith("builtin/")) {
            throw ApiException.of(
                    ErrorCode.TEMPLATE_READ_ONLY,
                    "Starter template '" + template.id() + "' is read-only; clone it to keep examples of your own.");
        }
    }

    private static ApiException exists(String existing) {
        return ApiException.of(
                        ErrorCode.EXAMPLE_EXISTS,
                        "This input is already example " + existing + "; change that one instead.")
                .withField("existing_id", existing);
    }
}
