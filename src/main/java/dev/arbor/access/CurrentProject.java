package dev.arbor.access;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problem;
import dev.arbor.platform.http.HeaderParam;
import dev.arbor.platform.http.Schema;
import io.javalin.http.Context;
import java.util.List;
import java.util.Optional;

/**
 * The one rule for the project an admin request acts in. The {@code X-Project-Id} header names it on every route
 * that acts in a project; a {@code project_id} the route itself takes (a body field or a query parameter) wins over
 * the header. A member may name only its own projects (403 {@code project_forbidden}), and a project that does not
 * exist is 404 {@code project_not_found}; either error's {@code param} says where the project was named. Routes that
 * read the header declare {@link #HEADER}, so that the OpenAPI document shows it.
 */
public final class CurrentProject {
    public static final HeaderParam HEADER = new HeaderParam(
            "X-Project-Id",
            Schema.string(),
            "The project this request acts in; a project_id the operation takes wins over it. A member token may "
                    + "name only its own projects.");
    /** The name of a route's own project field or parameter, and the {@code param} of a missing project. */
    public static final String FIELD = "project_id";

    private final ProjectStore projects;

    CurrentProject(ProjectStore projects) {
        this.projects = requireNonNull(projects, "projects");
    }

    /** The project the request's header names, checked; empty when it names none. */
    public Optional<ProjectId> named(Context ctx) {
        return named(ctx, Optional.empty());
    }

    /**
     * The project the route's own {@code project_id} names when it is given, else the one the header names; checked.
     * Empty when neither names one.
     */
    public Optional<ProjectId> named(Context ctx, Optional<String> projectId) {
        requireNonNull(projectId, "projectId");
        if (projectId.isPresent()) {
            return Optional.of(check(ctx, projectId.get(), FIELD));
        }
        return HEADER.read(ctx).map(id -> check(ctx, id, HEADER.name()));
    }

    /** {@link #named(Context)}, for a route that cannot act without a project: 400 {@code missing_field} if none. */
    public ProjectId required(Context ctx) {
        return required(ctx, Optional.empty());
    }

    /** {@link #named(Context, Optional)}, for a route that cannot act without a project. */
    public ProjectId required(Context ctx, Optional<String> projectId) {
        return named(ctx, projectId).orElseThrow(() -> ApiException.of(List.of(missing())));
    }

    /** The problem of a request that names no project where one is needed, for a route that lists it with others. */
    public static Problem missing() {
        return new Problem(
                ErrorCode.MISSING_FIELD,
                FIELD,
                "`" + FIELD + "` is required: name the project in it or in the " + HEADER.name() + " header.");
    }

    /** 403 {@code project_forbidden}: the caller may not act in the project that {@code param} leads to. */
    public static ApiException forbidden(String param, String message) {
        return ApiException.of(ErrorCode.PROJECT_FORBIDDEN, param, message);
    }

    /** The project with this id, when the caller may act in it; {@code param} says where it was named. */
    ProjectId check(Context ctx, String id, String param) {
        // a member is refused before the project is looked up: it learns nothing of other projects, not even that
        // they exist
        if (!Access.principal(ctx).mayActIn(id)) {
            throw forbidden(param, "This token may not act in project '" + id + "' (`" + param + "`).");
        }
        if (projects.find(id).isEmpty()) {
            throw ApiException.of(
                    ErrorCode.PROJECT_NOT_FOUND, param, "There is no project '" + id + "' (`" + param + "`).");
        }
        return new ProjectId(id);
    }
}
