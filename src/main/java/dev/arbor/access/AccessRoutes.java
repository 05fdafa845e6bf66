package dev.arbor.access;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static dev.arbor.platform.http.bodies.BodyField.Presence.REQUIRED;
import static java.util.Objects.requireNonNull;

import dev.arbor.platform.db.Page;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.Deleted;
import dev.arbor.platform.http.ListReply;
import dev.arbor.platform.http.PageParams;
import dev.arbor.platform.http.QueryParam;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodySpec;
import io.javalin.http.Context;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/** {@code /auth/tokens}, {@code /auth/me} and {@code /projects}. */
final class AccessRoutes {
    private static final QueryParam INCLUDE_REVOKED =
            new QueryParam("include_revoked", Schema.oneOf("true", "false"), "true lists revoked tokens too.");
    private static final int MAX_NAME = 100;
    private static final int MAX_DESCRIPTION = 2000;
    /** The last second of the year 9999 (Unix seconds): the latest {@code expires_at} a token may have. */
    private static final long LAST_SECOND = 253_402_300_799L;

    private static final BodyField.Text TOKEN_NAME = BodyField.text(REQUIRED, "name", MAX_NAME);
    private static final BodyField.Choice ROLE = BodyField.choice(
            REQUIRED, "role", Stream.of(Role.values()).map(Role::wire).toList(), "must be 'admin' or 'member'");
    private static final BodyField.Texts PROJECTS = BodyField.texts(OPTIONAL, "projects", 1000, 100);
    private static final BodyField.Whole EXPIRES_AT = BodyField.integer(OPTIONAL, "expires_at", 0, LAST_SECOND);
    private static final BodySpec NEW_TOKEN = BodySpec.of(TOKEN_NAME, ROLE, PROJECTS, EXPIRES_AT);

    private static final BodyField.Text PROJECT_NAME = BodyField.text(REQUIRED, "name", MAX_NAME);
    private static final BodyField.Text NEW_NAME = BodyField.text(OPTIONAL, "name", MAX_NAME);
    private static final BodyField.Text DESCRIPTION = BodyField.text(OPTIONAL, "description", MAX_DESCRIPTION);
    private static final BodySpec NEW_PROJECT = BodySpec.of(PROJECT_NAME, DESCRIPTION);
    private static final BodySpec PROJECT_CHANGE = BodySpec.of(NEW_NAME, DESCRIPTION);

    private final ProjectStore projects;
    private final TokenStore tokens;
    private final CurrentProject currentProject;

    AccessRoutes(ProjectStore projects, TokenStore tokens, CurrentProject currentProject) {
        this.projects = requireNonNull(projects, "projects");
        this.tokens = requireNonNull(tokens, "tokens");
        this.currentProject = requireNonNull(currentProject, "currentProject");
    }

    void addTo(Routes routes) {
        routes.group("auth")
                .post("/auth/tokens", "Create an API token (its secret is shown once)", this::createToken)
                .body(NEW_TOKEN.schema())
                .created(ApiShapes.TOKEN)
                .get("/auth/tokens", "List API tokens", this::listTokens)
                .query(PageParams.PARAMETERS)
                .query(INCLUDE_REVOKED)
                .ok(Schema.list(ApiShapes.TOKEN))
                .delete("/auth/tokens/{token_id}", "Revoke an API token", this::revokeToken)
                .ok(ApiShapes.TOKEN)
                .get("/auth/me", "Who the caller is", this::me)
                .ok(ApiShapes.PRINCIPAL);
        routes.group("projects")
                .post("/projects", "Create a project", this::createProject)
                .body(NEW_PROJECT.schema())
                .created(ApiShapes.PROJECT)
                .get("/projects", "List the projects the caller may use", this::listProjects)
                .query(PageParams.PARAMETERS)
                .ok(Schema.list(ApiShapes.PROJECT))
                .get("/projects/{project_id}", "Get a project", this::getProject)
                .ok(ApiShapes.PROJECT)
                .patch("/projects/{project_id}", "Rename or describe a project", this::updateProject)
                .body(PROJECT_CHANGE.schema())
                .ok(ApiShapes.PROJECT)
                .delete("/projects/{project_id}", "Delete a project", this::deleteProject)
                .ok(Schema.deleted("project"));
    }

    private void createToken(Context ctx) {
        Access.requireAdmin(ctx);
        var body = NEW_TOKEN.reader(Requests.jsonObject(ctx));
        Optional<String> name = TOKEN_NAME.read(body);
        Optional<Role> role = ROLE.read(body).map(text -> Role.parse(text).orElseThrow());
        List<String> projectIds = PROJECTS.read(body).orElse(List.of());
        for (int i = 0; i < projectIds.size(); i++) {
            if (projects.find(projectIds.get(i)).isEmpty()) {
                body.rejectItem(
                        "projects", i, ErrorCode.INVALID_FIELD, "names no project ('" + projectIds.get(i) + "')");
            }
        }
        if (role.orElse(null) == Role.ADMIN && !projectIds.isEmpty()) {
            body.reject("projects", ErrorCode.INVALID_FIELD, "must be empty for an admin, who may use every project");
        }
        Optional<Long> expiresAt = EXPIRES_AT.read(body);
        long now = System.currentTimeMillis() / 1000;
        if (expiresAt.isPresent() && expiresAt.get() <= now) {
            body.reject("expires_at", ErrorCode.INVALID_FIELD, "must be in the future (Unix seconds)");
        }
        var warnings = body.finish();
        var created = tokens.create(
                name.orElseThrow(), role.orElseThrow(), projectIds, expiresAt.map(seconds -> seconds * 1000));
        Responses.created(
                ctx,
                "/auth/tokens/" + created.token().id(),
                AccessReplies.TokenReply.created(created.token(), created.secret(), warnings));
    }

    private void listTokens(Context ctx) {
        Access.requireAdmin(ctx);
        Page page = PageParams.from(ctx);
        boolean includeRevoked =
                INCLUDE_REVOKED.read(ctx).filter("true"::equals).isPresent();
        Responses.ok(
                ctx, ListReply.page(tokens.list(page, includeRevoked), ApiToken::id, AccessReplies.TokenReply::of));
    }

    private void revokeToken(Context ctx) {
        Access.requireAdmin(ctx);
        String id = ctx.pathParam("token_id");
        ApiToken token = tokens.revoke(id)
                .orElseThrow(() ->
                        ApiException.of(ErrorCode.TOKEN_NOT_FOUND, "token_id", "There is no token '" + id + "'."));
        Responses.ok(ctx, AccessReplies.TokenReply.of(token));
    }

    private void me(Context ctx) {
        Responses.ok(ctx, AccessReplies.PrincipalReply.of(Access.principal(ctx)));
    }

    private void createProject(Context ctx) {
        Access.requireAdmin(ctx);
        var body = NEW_PROJECT.reader(Requests.jsonObject(ctx));
        Optional<String> name = PROJECT_NAME.read(body);
        String description = DESCRIPTION.read(body).orElse("");
        var warnings = body.finish();
        Project project = projects.create(name.orElseThrow().trim(), description);
        Responses.created(ctx, "/projects/" + project.id(), AccessReplies.ProjectReply.of(project, warnings));
    }

    private void listProjects(Context ctx) {
        Principal principal = Access.principal(ctx);
        Page page = PageParams.from(ctx);
        Optional<Set<String>> visible = principal.isAdmin() ? Optional.empty() : Optional.of(principal.projects());
        Responses.ok(ctx, ListReply.page(projects.list(page, visible), Project::id, AccessReplies.ProjectReply::of));
    }

    private void getProject(Context ctx) {
        Responses.ok(ctx, AccessReplies.ProjectReply.of(visibleProject(ctx)));
    }

    private void updateProject(Context ctx) {
        Access.requireAdmin(ctx);
        String id = visibleProject(ctx).id();
        var body = PROJECT_CHANGE.reader(Requests.jsonObject(ctx));
        Optional<String> name = NEW_NAME.read(body).map(String::trim);
        if (name.isPresent() && name.get().isEmpty()) {
            body.reject("name", ErrorCode.INVALID_FIELD, "must not be empty");
        }
        Optional<String> description = DESCRIPTION.read(body);
        var warnings = body.finish();
        Project project = projects.update(id, name, description).orElseThrow(() -> notFound(id));
        Responses.ok(ctx, AccessReplies.ProjectReply.of(project, warnings));
    }

    private void deleteProject(Context ctx) {
        Access.requireAdmin(ctx);
        String id = ctx.pathParam("project_id");
        if (!projects.delete(id)) {
            throw notFound(id);
        }
        Responses.ok(ctx, Deleted.of(id, "project"));
    }

    /** The project the path names, held to the current project's rule: a member's own, and one that exists. */
    private Project visibleProject(Context ctx) {
        String id = currentProject
                .check(ctx, ctx.pathParam("project_id"), "project_id")
                .value();
        return projects.find(id).orElseThrow(() -> notFound(id));
    }

    private static ApiException notFound(String id) {
        return ApiException.of(ErrorCode.PROJECT_NOT_FOUND, "project_id", "There is no project '" + id + "'.");
    }
}
