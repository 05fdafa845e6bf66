package dev.arbor.studio.templates;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Warning;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.VersionChanges;
import dev.arbor.studio.templates.versions.StarterTemplates;
import dev.arbor.studio.templates.versions.TemplateHead;
import dev.arbor.studio.templates.versions.TemplateStore;
import dev.arbor.studio.templates.versions.TemplateVersion;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;

/** Saving templates: versions on definition change, optimistic concurrency, aliases, archive and delete. */
final class TemplateService {
    /** What a write did: {@code created}, {@code new_version}, {@code unchanged} or {@code metadata_only}. */
    record Saved(
            int status,
            String change,
            TemplateHead head,
            TemplateVersion version,
            Map<String, Integer> aliases,
            List<Warning> warnings) {}

    /** A template as read: its head, one version, and its aliases. */
    record Loaded(TemplateHead head, TemplateVersion version, Map<String, Integer> aliases) {}

    /** A page of templates as one read saw them, and whether more follow. */
    record Listed(List<Listing> templates, boolean more) {}

    /** A template of a list: its head, its latest version and its aliases. */
    record Listing(TemplateHead head, TemplateVersion latest, Map<String, Integer> aliases) {}

    private final TemplateStore store;
    private final Clock clock;
    private final TemplateHistory history;

    TemplateService(TemplateStore store, Clock clock, TemplateHistory history) {
        this.store = requireNonNull(store, "store");
        this.clock = requireNonNull(clock, "clock");
        this.history = requireNonNull(history, "history");
    }

    /** The templates {@code filter} matches, a page of them, each with its latest version and its aliases. */
    Listed list(TemplateStore.ListFilter filter, Page page) {
        return store.database().read(handle -> {
            List<TemplateHead> heads = store.list(handle, filter, page);
            var shown = new ArrayList<Listing>();
            for (TemplateHead head : heads.subList(0, Math.min(heads.size(), page.limit()))) {
                shown.add(new Listing(
                        head,
                        store.version(handle, head.id(), head.latestVersion()).orElseThrow(),
                        store.aliases(handle, head)));
            }
            return new Listed(shown, heads.size() > page.limit());
        });
    }

    /** {@code POST /templates}: creates, or answers {@code unchanged} for the same definition under the same id. */
    Saved create(TemplateInput input, String source) {
        String id = input.id().orElseThrow(() -> ApiException.of(ErrorCode.MISSING_FIELD, "id", "`id` is required."));
        return store.database().write(handle -> {
            Optional<TemplateHead> existing = reclaim(handle, store.headForUpdate(handle, id));
            if (existing.isEmpty()) {
                return insert(handle, id, input, source);
            }
            TemplateHead head = live(existing.get());
            TemplateVersion latest =
                    store.version(handle, id, head.latestVersion()).orElseThrow();
            if (!latest.contentHash().equals(TemplateVersion.hash(input.definition()))) {
                throw ApiException.of(
                        ErrorCode.TEMPLATE_EXISTS,
                        "id",
                        "A template '" + id + "' exists with another "
                                + "definition; save a new version with PUT or PATCH /v1/studio/templates/" + id + ".");
            }
            return new Saved(200, "unchanged", head, latest, store.aliases(handle, head), input.warnings());
        });
    }

    /**
     * {@code PUT /templates/{id}} and, after merging, {@code PATCH}: head fields not sent are kept, definition
     * fields not sent take their defaults; a different definition makes a new version.
     */
    Saved save(String id, TemplateInput input, Optional<Integer> ifMatch, String source) {
        if (id.startsWith(StarterTemplates.PREFIX)) {
            throw readOnly(id);
        }
        if (input.id().isPresent() && !input.id().get().equals(id)) {
            throw ApiException.of(
                    ErrorCode.INVALID_FIELD,
                    "id",
                    "`id` is '" + input.id().get() + "' but the path names '" + id + "'.");
        }
        return store.database().write(handle -> {
            Optional<TemplateHead> existing = reclaim(handle, store.headForUpdate(handle, id));
            if (existing.isEmpty()) {
                return insert(handle, id, input, source);
            }
            TemplateHead head = live(existing.get());
            requireWritable(head);
            checkVersion(head, ifMatch.or(input::baseVersion));
            TemplateVersion latest =
                    store.version(handle, id, head.latestVersion()).orElseThrow();
            String hash = TemplateVersion.hash(input.definition());
            boolean newDefinition = !hash.equals(latest.contentHash());
            if (newDefinition && head.archived()) {
                throw ApiException.of(
                        ErrorCode.TEMPLATE_ARCHIVED,
                        "Template '" + id + "' is archived; " + "unarchive it (POST /v1/studio/templates/" + id
                                + "/unarchive) before saving a new version.");
            }
            long now = clock.millis();
            TemplateHead updated =
                    withHead(head, input, now, newDefinition ? head.latestVersion() + 1 : head.latestVersion());
            boolean headChanged = !sameHead(head, updated);
            TemplateVersion version = latest;
            if (newDefinition) {
                version = newVersion(
                        id,
                        updated.latestVersion(),
                        input,
                        source,
                        Optional.of(head.latestVersion()),
                        VersionChanges.between(head.latestVersion(), latest.definition(), input.definition()),
                        now);
                store.insertVersion(handle, version);
            }
            if (newDefinition || headChanged) {
                store.updateHead(handle, updated);
            } else {
                updated = head;
            }
            String change = newDefinition ? "new_version" : headChanged ? "metadata_only" : "unchanged";
            return new Saved(200, change, updated, version, store.aliases(handle, updated), input.warnings());
        });
    }

    /** A new latest version with an older version's definition; {@code unchanged} when it is the latest already. */
    Saved restore(String id, String versionReference, Optional<String> note) {
        var source = load(id, Optional.of(versionReference));
        requireWritable(source.head());
        var input = TemplateInput.definitionOnly(
                source.version().definition(),
                note.orElse("Restore version " + source.version().version()));
        return save(id, input, Optional.empty(), "restore");
    }

    /** A page of a template's versions as one read saw them, its aliases, and whether more follow. */
    record Versions(List<TemplateVersion> versions, Map<String, Integer> aliases, boolean more) {}

    /**
     * A page of the versions of template {@code id}, after or before a version number; refuses a cursor that is no
     * version of it.
     */
    Versions versions(String id, Page page, Optional<Integer> after, Optional<Integer> before) {
        return store.database().read(handle -> {
            TemplateHead head = store.head(handle, id).orElseThrow(() -> notFound(id));
            Map<String, Integer> aliases = store.aliases(handle, head);
            after.or(() -> before).ifPresent(cursor -> {
                if (cursor < 1 || cursor > head.latestVersion()) {
                    throw page.unknownCursor();
                }
            });
            List<TemplateVersion> rows = store.versions(handle, id, page, after, before);
            boolean more = rows.size() > page.limit();
            if (more) {
                rows = before.isPresent()
                        ? rows.subList(rows.size() - page.limit(), rows.size())
                        : rows.subList(0, page.limit());
            }
            return new Versions(rows, aliases, more);
        });
    }

    /** The version of template {@code id} that {@code reference} names (a number, an alias or latest). */
    Loaded version(String id, String reference) {
        return store.database().read(handle -> {
            TemplateHead head = store.head(handle, id).orElseThrow(() -> notFound(id));
            Map<String, Integer> aliases = store.aliases(handle, head);
            int number = resolve(handle, head, aliases, reference, "version");
            return new Loaded(head, store.version(handle, id, number).orElseThrow(), aliases);
        });
    }

    Loaded load(String id, Optional<String> versionReference) {
        return load(id, versionReference, "version");
    }

    /** @param param the field that named the version, for errors */
    private Loaded load(String id, Optional<String> versionReference, String param) {
        return store.database().read(handle -> {
            TemplateHead head = live(store.head(handle, id).orElseThrow(() -> notFound(id)));
            Map<String, Integer> aliases = store.aliases(handle, head);
            int number = versionReference
                    .map(ref -> resolve(handle, head, aliases, ref, param))
                    .orElse(head.latestVersion());
            return new Loaded(head, store.version(handle, id, number).orElseThrow(), aliases);
        });
    }

    /** A version number from {@code n}, an alias or {@code latest}. */
    int resolve(Handle handle, TemplateHead head, Map<String, Integer> aliases, String reference, String param) {
        if (reference.chars().allMatch(Character::isDigit) && !reference.isEmpty()) {
            int number;
            try {
                number = Integer.parseInt(reference);
            } catch (NumberFormatException e) {
                number = -1;
            }
            if (number >= 1 && number <= head.latestVersion()) {
                return number;
            }
            List<Integer> versions = store.versionNumbers(handle, head.id());
            throw ApiException.of(
                    ErrorCode.TEMPLATE_VERSION_NOT_FOUND,
                    param,
                    "Template '" + head.id() + "' has no version " + reference + "; its versions are "
                            + ranges(versions) + ".");
        }
        Integer version = aliases.get(reference);
        if (version == null) {
            throw ApiException.of(
                    ErrorCode.ALIAS_NOT_FOUND,
                    param,
                    "Template '" + head.id() + "' has no alias '" + reference + "'; its aliases are "
                            + String.join(", ", aliases.keySet()) + ".");
        }
        return version;
    }

    Saved setArchived(String id, boolean archived) {
        return store.database().write(handle -> {
            TemplateHead head = live(store.headForUpdate(handle, id).orElseThrow(() -> notFound(id)));
            requireWritable(head);
            boolean changes = head.archived() != archived;
            TemplateHead updated = changes ? head.withArchived(archived, clock.millis()) : head;
            if (changes) {
                store.updateHead(handle, updated);
            }
            return new Saved(
                    200,
                    changes ? "metadata_only" : "unchanged",
                    updated,
                    store.version(handle, id, updated.latestVersion()).orElseThrow(),
                    store.aliases(handle, updated),
                    List.of());
        });
    }

    record AliasChange(String alias, int version, Optional<Integer> previous, long updatedAtMillis) {}

    AliasChange setAlias(String id, String alias, int version) {
        return store.database().write(handle -> {
            TemplateHead head = live(store.headForUpdate(handle, id).orElseThrow(() -> notFound(id)));
            requireWritable(head);
            if (store.version(handle, id, version).isEmpty()) {
                throw ApiException.of(
                        ErrorCode.TEMPLATE_VERSION_NOT_FOUND,
                        "version",
                        "Template '" + id
                                + "' has no version " + version + "; its versions are "
                                + ranges(store.versionNumbers(handle, id)) + ".");
            }
            long now = clock.millis();
            return new AliasChange(alias, version, store.setAlias(handle, id, alias, version, now), now);
        });
    }

    void deleteAlias(String id, String alias) {
        store.database().update(handle -> {
            TemplateHead head = live(store.headForUpdate(handle, id).orElseThrow(() -> notFound(id)));
            requireWritable(head);
            if (!store.deleteAlias(handle, id, alias)) {
                throw ApiException.of(
                        ErrorCode.ALIAS_NOT_FOUND,
                        "alias",
                        "Template '" + id + "' has no alias '"
                                + alias + "'; its aliases are "
                                + String.join(", ", store.aliases(handle, head).keySet())
                                + ".");
            }
        });
    }

    /** What a delete did: versions kept for the decisions that remain, decisions deleted with the template. */
    record Deleted(int versionsKept, long decisionsDeleted) {}

    /**
     * Deletes a template. With {@code deleteHistory} its decisions go too; otherwise, while decisions name it, its
     * versions stay (so history still reads) and its id stays reserved: a new template cannot take it.
     */
    Deleted delete(String id, boolean deleteHistory) {
        TemplateHead found =
                live(store.database().read(handle -> store.head(handle, id)).orElseThrow(() -> notFound(id)));
        requireWritable(found);
        long deleted = deleteHistory ? history.deleteDecisions(id) : 0;
        boolean keep = !deleteHistory && history.decisions(id) > 0;
        return store.database().write(handle -> {
            TemplateHead head = live(store.headForUpdate(handle, id).orElseThrow(() -> notFound(id)));
            if (keep) {
                store.updateHead(handle, head.withDeleted(clock.millis()));
                return new Deleted(head.latestVersion(), 0);
            }
            store.delete(handle, id);
            return new Deleted(0, deleted);
        });
    }

    /**
     * A deleted template's head: 409 {@code template_id_reserved} while decisions name it; once none do, it is
     * removed and the id is free again.
     */
    private Optional<TemplateHead> reclaim(Handle handle, Optional<TemplateHead> existing) {
        if (existing.isEmpty() || existing.get().deletedAtMillis().isEmpty()) {
            return existing;
        }
        String id = existing.get().id();
        if (history.decisions(id) > 0) {
            throw ApiException.of(
                    ErrorCode.TEMPLATE_ID_RESERVED,
                    "id",
                    "Template '" + id + "' was deleted, but its "
                            + "decisions are still in history under that id; choose another id, or delete the template with "
                            + "?history=delete.");
        }
        store.delete(handle, id);
        return Optional.empty();
    }

    private Saved insert(Handle handle, String id, TemplateInput input, String source) {
        long now = clock.millis();
        var head = new TemplateHead(
                id,
                input.name().orElse(id),
                input.description().orElse(""),
                "user",
                false,
                input.metadata().orElse(Json.object()),
                input.storage().orElse("full"),
                input.retentionDays().flatMap(r -> r),
                1,
                now,
                now,
                Optional.empty());
        store.insertHead(handle, head);
        TemplateVersion version =
                newVersion(id, 1, input, source, Optional.empty(), VersionChanges.first(input.definition()), now);
        store.insertVersion(handle, version);
        return new Saved(201, "created", head, version, store.aliases(handle, head), input.warnings());
    }

    private static TemplateVersion newVersion(
            String id,
            int number,
            TemplateInput input,
            String source,
            Optional<Integer> base,
            ObjectNode changes,
            long now) {
        return TemplateVersion.create(
                id,
                number,
                input.note().orElse(number == 1 ? "First version" : ""),
                input.definition(),
                source,
                base,
                changes,
                now,
                "local");
    }

    private static TemplateHead withHead(TemplateHead head, TemplateInput input, long now, int latest) {
        return new TemplateHead(
                head.id(),
                input.name().orElse(head.name()),
                input.description().orElse(head.description()),
                head.origin(),
                head.archived(),
                input.metadata().orElse(head.metadata()),
                input.storage().orElse(head.storage()),
                input.retentionDays().orElse(head.retentionDays()),
                latest,
                head.createdAtMillis(),
                now,
                head.deletedAtMillis());
    }

    private static boolean sameHead(TemplateHead a, TemplateHead b) {
        return a.name().equals(b.name())
                && a.description().equals(b.description())
                && a.metadata().equals(b.metadata())
                && a.storage().equals(b.storage())
                && a.retentionDays().equals(b.retentionDays())
                && a.latestVersion() == b.latestVersion();
    }

    private static void checkVersion(TemplateHead head, Optional<Integer> expected) {
        if (expected.isPresent() && expected.get() != head.latestVersion()) {
            throw ApiException.of(
                            ErrorCode.VERSION_CONFLICT,
                            "base_version",
                            "This change was made against version "
                                    + expected.get() + ", but the latest is " + head.latestVersion()
                                    + "; read it, reapply the change and send it again.")
                    .withField("current_version", head.latestVersion());
        }
    }

    static void requireWritable(TemplateHead head) {
        if (head.builtin()) {
            throw readOnly(head.id());
        }
    }

    private static ApiException readOnly(String id) {
        return ApiException.of(
                ErrorCode.TEMPLATE_READ_ONLY,
                "Starter template '" + id + "' is read-only; "
                        + "clone it with POST /v1/studio/templates {\"id\": \"...\", \"from\": {\"template\": \"" + id
                        + "\"}} to change it.");
    }

    /** {@code id}, {@code id@3} or {@code id@alias}: the version a reference names. */
    Loaded reference(String reference) {
        int at = reference.lastIndexOf('@');
        return at < 0
                ? load(reference, Optional.empty(), "template")
                : load(reference.substring(0, at), Optional.of(reference.substring(at + 1)), "template");
    }

    private static TemplateHead live(TemplateHead head) {
        if (head.deletedAtMillis().isPresent()) {
            throw ApiException.of(
                    ErrorCode.TEMPLATE_NOT_FOUND,
                    "template",
                    "Template '" + head.id() + "' was deleted on "
                            + Instant.ofEpochMilli(head.deletedAtMillis().get()) + ".");
        }
        return head;
    }

    static ApiException notFound(String id) {
        return ApiException.of(ErrorCode.TEMPLATE_NOT_FOUND, "template", "There is no template '" + id + "'.");
    }

    /** "1–3, 5": versions as ranges, for messages. */
    static String ranges(List<Integer> versions) {
        if (versions.isEmpty()) {
            return "none";
        }
        var parts = new java.util.ArrayList<String>();
        int start = versions.getFirst();
        int previous = start;
        for (int i = 1; i <= versions.size(); i++) {
            Integer current = i < versions.size() ? versions.get(i) : null;
            if (current == null || current != previous + 1) {
                parts.add(start == previous ? Integer.toString(start) : start + "–" + previous);
                if (current != null) {
                    start = current;
                }
            }
            if (current != null) {
                previous = current;
            }
        }
        return parts.stream().collect(Collectors.joining(", "));
    }
}
