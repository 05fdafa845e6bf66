package dev.arbor.access;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.db.Paging;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.ids.Ids;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.StatementContext;
import org.jspecify.annotations.Nullable;

/** Projects in the database. */
final class ProjectStore {
    private static final String COLUMNS = "id, name, description, created_at";

    private final Database database;
    private final Clock clock;

    ProjectStore(Database database, Clock clock) {
        this.database = requireNonNull(database, "database");
        this.clock = requireNonNull(clock, "clock");
    }

    Project create(String name, String description) {
        return database.write(handle -> {
            requireFreeName(handle, name, null);
            var project = new Project(Ids.next("prj"), name, description, clock.millis());
            handle.createUpdate("""
                            INSERT INTO projects (id, name, description, created_at)
                            VALUES (:id, :name, :description, :created_at)""")
                    .bind("id", project.id())
                    .bind("name", name)
                    .bind("description", description)
                    .bind("created_at", project.createdAtMillis())
                    .execute();
            return project;
        });
    }

    Optional<Project> find(String id) {
        return database.read(handle -> handle.createQuery("SELECT " + COLUMNS + " FROM projects WHERE id = :id")
                .bind("id", id)
                .map(ProjectStore::project)
                .findOne());
    }

    /** Every project, or only those in {@code visible} when it is given. */
    Paging.Result<Project> list(Page page, Optional<Set<String>> visible) {
        return database.read(handle -> {
            if (visible.isPresent() && visible.get().isEmpty()) {
                return new Paging.Result<Project>(List.of(), false);
            }
            String from = visible.isPresent() ? "projects WHERE id IN (<visible>)" : "projects WHERE 1 = 1";
            return Paging.newestFirst(
                    handle,
                    COLUMNS,
                    from,
                    page,
                    ProjectStore::project,
                    cursor -> visible.map(v -> v.contains(cursor)).orElse(true) && exists(handle, cursor),
                    query -> visible.ifPresent(v -> query.bindList("visible", List.copyOf(v))));
        });
    }

    Optional<Project> update(String id, Optional<String> name, Optional<String> description) {
        return database.write(handle -> {
            if (!exists(handle, id)) {
                return Optional.empty();
            }
            if (name.isPresent()) {
                requireFreeName(handle, name.get(), id);
                handle.createUpdate("UPDATE projects SET name = :name WHERE id = :id")
                        .bind("name", name.get())
                        .bind("id", id)
                        .execute();
            }
            description.ifPresent(
                    text -> handle.createUpdate("UPDATE projects SET description = :description WHERE id = :id")
                            .bind("description", text)
                            .bind("id", id)
                            .execute());
            return handle.createQuery("SELECT " + COLUMNS + " FROM projects WHERE id = :id")
                    .bind("id", id)
                    .map(ProjectStore::project)
                    .findOne();
        });
    }

    boolean delete(String id) {
        return database.write(handle -> handle.createUpdate("DELETE FROM projects WHERE id = :id")
                        .bind("id", id)
                        .execute()
                == 1);
    }

    private static boolean exists(Handle handle, String id) {
        return handle.createQuery("SELECT 1 FROM projects WHERE id = :id")
                .bind("id", id)
                .mapTo(Integer.class)
                .findOne()
                .isPresent();
    }

    private static void requireFreeName(Handle handle, String name, @Nullable String except) {
        var owner = handle.createQuery("SELECT id FROM projects WHERE name = :name")
                .bind("name", name)
                .mapTo(String.class)
                .findOne();
        if (owner.isPresent() && !owner.get().equals(except)) {
            throw ApiException.of(
                    ErrorCode.PROJECT_EXISTS,
                    "name",
                    "A project named '" + name + "' exists already (" + owner.get() + ").");
        }
    }

    private static Project project(ResultSet rs, StatementContext ctx) throws SQLException {
        return new Project(
                rs.getString("id"), rs.getString("name"), rs.getString("description"), rs.getLong("created_at"));
    }
}
