package dev.arbor.connectors.gateways;

import static java.util.Objects.requireNonNull;

import dev.arbor.access.Access;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.http.PageParams;
import dev.arbor.platform.http.QueryParam;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import io.javalin.http.Context;
import java.util.List;

/** The registry's routes: list and search its MCP servers, read one with its credential schema, add and remove. */
final class RegistryRoutes {
    private static final QueryParam SEARCH = new QueryParam("q", Schema.string(), "Words the names contain.");
    private final ConnectorRegistry registry;

    RegistryRoutes(ConnectorRegistry registry) {
        this.registry = requireNonNull(registry, "registry");
    }

    void addTo(Routes routes) {
        routes.group("connectors")
                .get("/connectors/registry", "List the registry's MCP servers by name (q searches names)", this::list)
                .query(PageParams.PARAMETERS)
                .query(SEARCH)
                .ok(Schema.list(ApiShapes.CONNECTOR))
                .get(
                        "/connectors/registry/{connector_id}",
                        "Get a registry entry with its credential schema",
                        this::get)
                .ok(ApiShapes.CONNECTOR)
                .post("/connectors/registry", "Add an MCP server of your own to the registry", this::add)
                .body(ConnectorRegistry.NEW_CONNECTOR.schema())
                .created(ApiShapes.CONNECTOR)
                .delete("/connectors/registry/{connector_id}", "Remove an entry added to the registry", this::remove)
                .ok(Schema.deleted("connector"));
    }

    private void list(Context ctx) {
        Access.requireAdmin(ctx);
        Page page = PageParams.from(ctx);
        List<Connector> all = registry.list(SEARCH.read(ctx).filter(q -> !q.isBlank()));
        int from = 0;
        int to = all.size();
        if (page.after().isPresent()) {
            from = position(all, page.after().get(), page) + 1;
            to = Math.min(all.size(), from + page.limit());
        } else if (page.before().isPresent()) {
            to = position(all, page.before().get(), page);
            from = Math.max(0, to - page.limit());
        } else {
            to = Math.min(all.size(), page.limit());
        }
        List<Connector> shown = all.subList(from, to);
        boolean more = page.before().isPresent() ? from > 0 : to < all.size();
        Responses.ok(
                ctx,
                Responses.list(
                        shown.stream().map(c -> c.view(false)).toList(),
                        shown.stream().map(Connector::id).toList(),
                        more));
    }

    private static int position(List<Connector> all, String cursor, Page page) {
        for (int i = 0; i < all.size(); i++) {
            if (all.get(i).id().equals(cursor)) {
                return i;
            }
        }
        throw page.unknownCursor();
    }

    private void get(Context ctx) {
        Access.requireAdmin(ctx);
        Responses.ok(ctx, registry.require(ctx.pathParam("connector_id")).view(true));
    }

    private void add(Context ctx) {
        Access.requireAdmin(ctx);
        Connector connector = registry.add(Requests.jsonObject(ctx));
        Responses.created(ctx, "/connectors/registry/" + connector.id(), connector.view(true));
    }

    private void remove(Context ctx) {
        Access.requireAdmin(ctx);
        String id = ctx.pathParam("connector_id");
        registry.remove(id);
        Responses.ok(ctx, new Removed(id, "connector.deleted", true));
    }

    /** A registry entry removed. */
    record Removed(String id, String object, boolean deleted) {}
}
