package dev.arbor.routers;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.db.Paging;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.references.Referrers;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.Update;

/** The SQL of routers, the versions their saves replaced, and what they refer to outside themselves. */
final class RouterStore {
    private static final String COLUMNS =
            "id, project_id, name, description, tags, icon, status, dag_config, created_at, modified_at";

    /** One thing a router refers to: a model (endpoints, cloud models, models) or a credential, by id or name. */
    record Reference(Referrers.Kind kind, String ref) {
        Reference {
            requireNonNull(kind, "kind");
            requireNonNull(ref, "ref");
        }
    }

    /** A dag_config a save replaced. */
    record Version(int version, ObjectNode dagConfig, Instant savedAt, Instant replacedAt) {}

    /** What a list keeps: each filter given narrows it. */
    record Filter(
            Optional<Set<String>> projects,
            Optional<RouterStatus> status,
            Optional<String> nameContains,
            List<String> tags) {
        Filter {
            requireNonNull(projects, "projects");
            requireNonNull(status, "status");
            requireNonNull(nameContains, "nameContains");
            tags = List.copyOf(tags);
        }
    }

    private final Database database;
    private final Clock clock;
    /**
     * The active routers, by id, as requests find them: read again after each write here (before the write is
     * answered), and when another server's write moves the routers' change counter ({@link #reloadActive}).
     */
    private volatile List<Router> active;

    RouterStore(Database database, Clock clock) {
        this.database = requireNonNull(database, "database");
        this.clock = requireNonNull(clock, "clock");
        this.active = readActive();
    }

    /**
     * Reads the active routers again. Serialised, each reading once it holds the lock, so that the last reload to
     * finish read the latest committed state.
     */
    synchronized void reloadActive() {
        active = readActive();
    }

    private List<Router> readActive() {
        return database.read(
                handle -> handle.createQuery("SELECT " + COLUMNS + " FROM routers WHERE status = 'active' ORDER BY id")
                        .map((rs, ctx) -> row(rs))
                        .list());
    }

    Instant now() {
        return clock.instant();
    }

    void create(Router router, Set<Reference> references) {
        database.write(handle -> {
            requireFreeName(handle, router.projectId(), router.name(), Optional.empty());
            withFields(
                            handle.createUpdate("INSERT INTO routers (" + COLUMNS + ") VALUES (:id, :project, :name,"
                                    + " :description, :tags, :icon, :status, :dag, :created, :modified)"),
                            router)
                    .bind("project", router.projectId())
                    .bind("created", router.createdAt().toEpochMilli())
                    .execute();
            writeReferences(handle, router.id(), references);
            return null;
        });
        reloadActive();
    }

    /** Binds what an insert and an update both write of a router. */
    private static Update withFields(Update update, Router router) {
        return update.bind("id", router.id())
                .bind("name", router.name())
                .bind("description", router.description())
                .bind("tags", Json.writeString(router.tags()))
                .bind("icon", router.icon())
                .bind("status", router.status().wire())
                .bind("dag", Json.writeString(router.dagConfig()))
                .bind("modified", router.modifiedAt().toEpochMilli());
    }

    Optional<Router> find(String id) {
        return database.read(handle -> handle.createQuery("SELECT " + COLUMNS + " FROM routers WHERE id = :id")
                .bind("id", id)
                .map((rs, ctx) -> row(rs))
                .findOne());
    }

    Paging.Result<Router> list(Page page, Filter filter) {
        if (filter.projects().filter(Set::isEmpty).isPresent()) {
            return new Paging.Result<>(List.of(), false);
        }
        var where = new StringBuilder("routers WHERE 1 = 1");
        filter.projects().ifPresent(p -> where.append(" AND project_id IN (<projects>)"));
        filter.status().ifPresent(s -> where.append(" AND status = :status"));
        filter.nameContains().ifPresent(q -> where.append(" AND LOWER(name) LIKE :q ESCAPE '!'"));
        for (int i = 0; i < filter.tags().size(); i++) {
            where.append(" AND tags LIKE :tag").append(i).append(" ESCAPE '!'");
        }
        return database.read(handle -> Paging.newestFirst(
                handle,
                COLUMNS,
                where.toString(),
                page,
                (rs, ctx) -> row(rs),
                cursor -> find(cursor)
                        .filter(r -> filter.projects()
                                .map(p -> p.contains(r.projectId()))
                                .orElse(true))
                        .isPresent(),
                query -> {
                    filter.projects().ifPresent(p -> query.bindList("projects", List.copyOf(p)));
                    filter.status().ifPresent(s -> query.bind("status", s.wire()));
                    filter.nameContains().ifPresent(q -> query.bind("q", "%" + likeText(q.toLowerCase()) + "%"));
                    for (int i = 0; i < filter.tags().size(); i++) {
                        // tags are stored as a JSON array: a tag is there when its JSON string is
                        query.bind(
                                "tag" + i,
                                "%" + likeText(Json.writeString(filter.tags().get(i))) + "%");
                    }
                }));
    }

    /**
     * Saves a router's new fields: the dag_config it had becomes a version when {@code keepVersion}; its references
     * are rewritten. 409 {@code router_exists} when another router of its project has its name.
     */
    void update(Router router, Set<Reference> references, VersionKeeping keeping) {
        database.write(handle -> {
            Router current = handle.createQuery("SELECT " + COLUMNS + " FROM routers WHERE id = :id"
                            + database.dialect().forUpdate())
                    .bind("id", router.id())
                    .map((rs, ctx) -> row(rs))
                    .findOne()
                    .orElseThrow(() -> Routers.notFound(router.id(), false));
            requireFreeName(handle, router.projectId(), router.name(), Optional.of(router.id()));
            if (keeping == VersionKeeping.KEEP_PREVIOUS) {
                int version = handle.createQuery(
                                        "SELECT COALESCE(MAX(version), 0) FROM router_versions WHERE router_id = :id")
                                .bind("id", router.id())
                                .mapTo(Integer.class)
                                .one()
                        + 1;
                handle.createUpdate("INSERT INTO router_versions (router_id, version, dag_config, saved_at,"
                                + " replaced_at) VALUES (:id, :version, :dag, :saved, :replaced)")
                        .bind("id", router.id())
                        .bind("version", version)
                        .bind("dag", Json.writeString(current.dagConfig()))
                        .bind("saved", current.modifiedAt().toEpochMilli())
                        .bind("replaced", router.modifiedAt().toEpochMilli())
                        .execute();
            }
            withFields(
                            handle.createUpdate("UPDATE routers SET name = :name, description = :description,"
                                    + " tags = :tags, icon = :icon, status = :status, dag_config = :dag,"
                                    + " modified_at = :modified WHERE id = :id"),
                            router)
                    .execute();
            writeReferences(handle, router.id(), references);
            return null;
        });
        reloadActive();
    }

    /** Whether a save keeps the dag_config it replaces as a version. */
    enum VersionKeeping {
        KEEP_PREVIOUS,
        SAME_GRAPH
    }

    Paging.Result<Version> versions(String routerId, Page page) {
        return database.read(handle -> {
            var sql = new StringBuilder("SELECT version, dag_config, saved_at, replaced_at FROM router_versions"
                    + " WHERE router_id = :id");
            page.after().ifPresent(a -> sql.append(" AND version < :cursor"));
            page.before().ifPresent(b -> sql.append(" AND version > :cursor"));
            sql.append(page.before().isPresent() ? " ORDER BY version ASC" : " ORDER BY version DESC")
                    .append(" LIMIT :fetch");
            var query = handle.createQuery(sql.toString()).bind("id", routerId).bind("fetch", page.limit() + 1);
            page.after().or(page::before).ifPresent(cursor -> query.bind("cursor", cursorVersion(page, cursor)));
            List<Version> rows = new ArrayList<>(query.map((rs, ctx) -> new Version(
                            rs.getInt("version"),
                            (ObjectNode) Json.read(rs.getString("dag_config")),
                            Instant.ofEpochMilli(rs.getLong("saved_at")),
                            Instant.ofEpochMilli(rs.getLong("replaced_at"))))
                    .list());
            boolean more = rows.size() > page.limit();
            if (more) {
                rows.removeLast();
            }
            if (page.before().isPresent()) {
                Collections.reverse(rows);
            }
            return new Paging.Result<>(rows, more);
        });
    }

    private static int cursorVersion(Page page, String cursor) {
        try {
            return Integer.parseInt(cursor);
        } catch (NumberFormatException e) {
            throw page.unknownCursor();
        }
    }

    boolean delete(String id) {
        boolean deleted = database.write(handle -> {
            handle.createUpdate("DELETE FROM router_references WHERE router_id = :id")
                    .bind("id", id)
                    .execute();
            handle.createUpdate("DELETE FROM router_versions WHERE router_id = :id")
                    .bind("id", id)
                    .execute();
            return handle.createUpdate("DELETE FROM routers WHERE id = :id")
                            .bind("id", id)
                            .execute()
                    == 1;
        });
        reloadActive();
        return deleted;
    }

    /** The active router with this id in these projects, else the oldest active one with this name in them. */
    List<Router> findActive(Predicate<String> inProject, String nameOrId) {
        List<Router> visible = active.stream()
                .filter(r -> (r.id().equals(nameOrId) || r.name().equals(nameOrId)) && inProject.test(r.projectId()))
                .toList();
        List<Router> byId =
                visible.stream().filter(r -> r.id().equals(nameOrId)).toList();
        return byId.isEmpty() ? visible : byId;
    }

    /** The active routers that refer to any of these names of one thing. */
    List<Router> activeReferring(Referrers.Kind kind, Set<String> refs) {
        if (refs.isEmpty()) {
            return List.of();
        }
        return database.read(handle -> activeReferring(handle, kind, refs));
    }

    /** Makes the active routers that refer to any of these names inactive; which. */
    List<Router> deactivateReferring(Referrers.Kind kind, Set<String> refs) {
        if (refs.isEmpty()) {
            return List.of();
        }
        List<Router> deactivated = database.write(handle -> {
            List<Router> routers = activeReferring(handle, kind, refs);
            long now = clock.millis();
            for (Router router : routers) {
                handle.createUpdate("UPDATE routers SET status = 'inactive', modified_at = :now WHERE id = :id")
                        .bind("now", Math.max(now, router.modifiedAt().toEpochMilli() + 1))
                        .bind("id", router.id())
                        .execute();
            }
            return routers;
        });
        reloadActive();
        return deactivated;
    }

    private static List<Router> activeReferring(Handle handle, Referrers.Kind kind, Set<String> refs) {
        return handle.createQuery("SELECT " + COLUMNS + " FROM routers WHERE status = 'active' AND id IN"
                        + " (SELECT router_id FROM router_references WHERE kind = :kind AND ref IN (<refs>))"
                        + " ORDER BY id")
                .bind("kind", kind.name().toLowerCase(Locale.ROOT))
                .bindList("refs", List.copyOf(refs))
                .map((rs, ctx) -> row(rs))
                .list();
    }

    private static void writeReferences(Handle handle, String routerId, Set<Reference> references) {
        handle.createUpdate("DELETE FROM router_references WHERE router_id = :id")
                .bind("id", routerId)
                .execute();
        for (Reference reference : references) {
            handle.createUpdate("INSERT INTO router_references (router_id, kind, ref) VALUES (:id, :kind, :ref)")
                    .bind("id", routerId)
                    .bind("kind", reference.kind().name().toLowerCase(Locale.ROOT))
                    .bind("ref", reference.ref())
                    .execute();
        }
    }

    private static void requireFreeName(Handle handle, String project, String name, Optional<String> except) {
        Optional<String> holder = handle.createQuery(
                        "SELECT id FROM routers WHERE project_id = :project AND name = :name")
                .bind("project", project)
                .bind("name", name)
                .mapTo(String.class)
                .findOne()
                .filter(id -> except.map(e -> !e.equals(id)).orElse(true));
        if (holder.isPresent()) {
            throw ApiException.of(
                    ErrorCode.ROUTER_EXISTS,
                    "name",
                    "Router " + holder.get() + " is named '" + name + "' already; names are unique in a project.");
        }
    }

    /** A text for LIKE, its wildcards and the escape character taken literally. */
    private static String likeText(String text) {
        return text.replace("!", "!!").replace("%", "!%").replace("_", "!_");
    }

    private static Router row(ResultSet rs) throws SQLException {
        var tags = new ArrayList<String>();
        Json.read(rs.getString("tags")).forEach(tag -> tags.add(tag.asText()));
        JsonNode dag = Json.read(rs.getString("dag_config"));
        return new Router(
                rs.getString("id"),
                rs.getString("project_id"),
                rs.getString("name"),
                rs.getString("description"),
                tags,
                rs.getString("icon"),
                RouterStatus.of(rs.getString("status")).orElseThrow(),
                (ObjectNode) dag,
                Instant.ofEpochMilli(rs.getLong("created_at")),
                Instant.ofEpochMilli(rs.getLong("modified_at")));
    }
}
