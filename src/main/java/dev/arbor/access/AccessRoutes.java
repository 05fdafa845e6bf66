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
import java.util.Optional;
import java.util.Set;

/** {@code /auth/tokens}, {@code /auth/me} and {@code /projects}. */
final class AccessRoutes {
    private static final QueryParam INCLUDE_REVOKED =
            new QueryParam("include_revoked", Schema.oneOf("true", "false"), "true lists revoked tokens too.");
    static final int MAX_NAME = 100;
    private static final int MAX_DESCRIPTION = 2000;

    private static final BodyField.Text PROJECT_NAME = BodyField.text(REQUIRED, "name", MAX_NAME);
    private static final BodyField.Text NEW_NAME = BodyField.text(OPTIONAL, "name", MAX_NAME);
    private static final BodyField.Text DESCRIPTION = BodyField.text(OPTIONAL, "description", MAX_DESCRIPTION);
    private static final BodySpec NEW_PROJECT = BodySpec.of(PROJECT_NAME, DESCRIPTION);
    private static final BodySpec PROJECT_CHANGE = BodySpec.of(NEW_NAME, DESCRIPTION);

    private final ProjectStore projects;
    private final TokenStore tokens;
    private final CurrentProject currentProject;
    private final java.util.function.Consumer<String> revoked;

    AccessRoutes(
            ProjectStore projects,
            TokenStore tokens,
            CurrentProject currentProject,
            java.util.function.Consumer<String> revoked) {
        this.revoked = requireNonNull(revoked, "revoked");
        this.projects = requireNonNull(projects, "projects");
        this.tokens = requireNonNull(tokens, "tokens");
        this.currentProject = requireNonNull(currentProject, "currentProject");
    }

    void addTo(Routes routes) {
        routes.group("auth")
                .post("/auth/tokens", "Create an API token (its secret is shown once)", this::createToken)
                .body(NewToken.SPEC.schema())
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
        NewToken asked = NewToken.read(Requests.jsonObject(ctx), projects);
        var created = tokens.create(asked.name(), asked.role(), asked.projects(), asked.expiresAtMillis());
        Responses.created(
                ctx,
                "/auth/tokens/" + created.token().id(),
                AccessReplies.TokenReply.created(created.token(), created.secret(), asked.warnings()));
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
        revoked.accept(token.id());
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
