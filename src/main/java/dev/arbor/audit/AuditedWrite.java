package dev.arbor.audit;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.http.Route;
import dev.arbor.platform.http.Schema;
import io.javalin.http.HandlerType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How one write route's change is audited, worked out once from the route table: which resource it changes (the
 * read that shows that resource, the path parameter that names it), its type and the action.
 *
 * <ul>
 *   <li>A create ({@code POST /credentials}) makes a resource that a read under its path shows ({@code GET
 *       /credentials/{credential_id}}), or, failing that, a read anywhere that answers the create's shape with an id
 *       of its own ({@code GET /runs/{run_id}} for {@code POST /pipelines/{pipeline_id}/runs}): no state before, the
 *       new resource's after.
 *   <li>Any other write changes the resource its own path shows, or the nearest path above it that a read shows one
 *       resource at ({@code GET /runs/{run_id}} for {@code POST /runs/{run_id}/cancel}): its state before and after.
 *   <li>A write with no such read is audited without states: who, what, which resource, and the names of the fields
 *       it sent.
 * </ul>
 *
 * <p>The resource's type is the name of the parameter that names it without {@code _id} ({@code credential}), or the
 * path's last word for a resource of its own ({@code settings}). The action is {@code create}, {@code update} or
 * {@code delete} at the resource's own path, else the words of the path below it ({@code cancel}, {@code
 * download.cancel}; a delete's end in {@code .delete}).
 */
record AuditedWrite(Route write, String action, String resourceType, Resource resource) {
    private static final Pattern PARAM = Pattern.compile("\\{([^}]+)}");

    AuditedWrite {
        requireNonNull(write, "write");
        requireNonNull(action, "action");
        requireNonNull(resourceType, "resourceType");
        requireNonNull(resource, "resource");
    }

    /** Where the resource's state is read. */
    sealed interface Resource {
        /** A create: the new resource is read at {@code read}, its id in the last path parameter. */
        record Created(Route read) implements Resource {}

        /**
         * An existing resource, read at {@code read} before and after; {@code id} names the path parameter with its
         * id (none for a resource of its own, such as the studio's settings); {@code deletes}: the write removes it.
         */
        record Existing(Route read, Optional<String> id, boolean deletes) implements Resource {}

        /** No read shows it; {@code id}: the path parameter that names it, if any. */
        record Unread(Optional<String> id) implements Resource {}
    }

    String routeName() {
        return write.method() + " " + write.path();
    }

    static AuditedWrite of(Route write, List<Route> routes) {
        List<Route> reads = routes.stream()
                .filter(r -> r.method() == HandlerType.GET && !answersList(r))
                .toList();
        List<Route> lists = routes.stream()
                .filter(r -> r.method() == HandlerType.GET && answersList(r))
                .toList();
        if (write.method() == HandlerType.POST) {
            Optional<Route> created = createdRead(write, reads);
            if (created.isPresent()) {
                String type = typeOf(created.get().path());
                return new AuditedWrite(write, "create", type, new Resource.Created(created.get()));
            }
        }
        for (String path = write.path(); !path.isEmpty(); path = path.substring(0, path.lastIndexOf('/'))) {
            String at = path;
            Optional<Route> read =
                    reads.stream().filter(r -> r.path().equals(at)).findFirst();
            if (read.isPresent()) {
                boolean own = at.equals(write.path());
                Optional<String> id = lastParam(at).filter(param -> at.endsWith("{" + param + "}"));
                return new AuditedWrite(
                        write,
                        own ? verb(write.method()) : below(write, at),
                        typeOf(at),
                        new Resource.Existing(read.get(), id, own && write.method() == HandlerType.DELETE));
            }
        }
        // no read shows it: named by its last path parameter, else by the list it is in
        String path = write.path();
        Optional<String> id = lastParam(path);
        String resourcePath = id.map(param -> path.substring(0, path.indexOf("{" + param + "}") + param.length() + 2))
                .orElseGet(() -> collectionOf(path, lists).orElse(path));
        String action = resourcePath.equals(path) ? verb(write.method()) : below(write, resourcePath);
        String type = id.isPresent() || !lists.stream().anyMatch(l -> l.path().equals(resourcePath))
                ? typeOf(resourcePath)
                : singular(typeOf(resourcePath));
        return new AuditedWrite(write, action, type, new Resource.Unread(id));
    }

    /** Whether a read answers a list ({@code {"object": "list", ...}}): not one resource's state. */
    private static boolean answersList(Route read) {
        return read.replies().stream()
                .filter(reply -> reply.status() == 200)
                .map(reply -> reply.content().get("application/json"))
                .anyMatch(shape -> shape != null && isList(shape));
    }

    private static boolean isList(Schema shape) {
        return switch (shape) {
            case Schema.Named named -> isList(named.schema());
            case Schema.Obj object ->
                object.properties().stream()
                        .anyMatch(p -> p.name().equals("object")
                                && p.schema() instanceof Schema.Enum e
                                && e.values().equals(List.of("list")));
            default -> false;
        };
    }

    /** The nearest path at or above {@code path} that a read lists resources at. */
    private static Optional<String> collectionOf(String path, List<Route> lists) {
        for (String at = path; !at.isEmpty(); at = at.substring(0, at.lastIndexOf('/'))) {
            String here = at;
            if (lists.stream().anyMatch(l -> l.path().equals(here))) {
                return Optional.of(here);
            }
        }
        return Optional.empty();
    }

    /** A list's name as one of its items': {@code tokens} to {@code token}. */
    private static String singular(String plural) {
        if (plural.endsWith("ies")) {
            return plural.substring(0, plural.length() - 3) + "y";
        }
        return plural.endsWith("s") ? plural.substring(0, plural.length() - 1) : plural;
    }

    /** The read of what a POST creates: one id under its path, or one anywhere answering its shape with a new id. */
    private static Optional<Route> createdRead(Route write, List<Route> reads) {
        List<String> params = params(write.path());
        Optional<Route> under = reads.stream()
                .filter(r -> r.path().startsWith(write.path() + "/{")
                        && r.path().indexOf('/', write.path().length() + 1) < 0)
                .findFirst();
        if (under.isPresent()) {
            return under;
        }
        if (write.replies().isEmpty()
                || write.replies().getFirst().status() != 201
                        && write.replies().getFirst().status() != 202) {
            return Optional.empty();
        }
        var shape = write.replies().getFirst().content().get("application/json");
        if (shape == null) {
            return Optional.empty();
        }
        return reads.stream()
                .filter(r -> r.replies().stream()
                        .anyMatch(reply -> reply.status() == 200
                                && shape.equals(reply.content().get("application/json"))))
                .filter(r -> {
                    List<String> named = params(r.path());
                    return !named.isEmpty()
                            && r.path().endsWith("}")
                            && params.containsAll(named.subList(0, named.size() - 1))
                            && !params.contains(named.getLast());
                })
                .findFirst();
    }

    private static String verb(HandlerType method) {
        return switch (method.name()) {
            case "POST" -> "create";
            case "DELETE" -> "delete";
            default -> "update";
        };
    }

    /** The words of the write's path below its resource's: {@code cancel}, {@code steps.approval}. */
    private static String below(Route write, String resourcePath) {
        var words = new ArrayList<String>();
        for (String segment : write.path().substring(resourcePath.length()).split("/")) {
            if (!segment.isEmpty() && !segment.startsWith("{")) {
                words.add(segment);
            }
        }
        if (write.method() == HandlerType.DELETE) {
            words.add("delete");
        } else if (write.method() != HandlerType.POST) {
            words.add("update");
        }
        return words.isEmpty() ? verb(write.method()) : String.join(".", words);
    }

    private static String typeOf(String path) {
        if (path.endsWith("}")) {
            String param = lastParam(path).orElseThrow();
            return param.equals("builtin_name") ? "template" : param.replaceAll("_id$", "");
        }
        String last = path.substring(path.lastIndexOf('/') + 1);
        return last.isEmpty() ? "server" : last.toLowerCase(Locale.ROOT);
    }

    private static Optional<String> lastParam(String path) {
        List<String> names = params(path);
        return names.isEmpty() ? Optional.empty() : Optional.of(names.getLast());
    }

    private static List<String> params(String path) {
        Matcher matcher = PARAM.matcher(path);
        var names = new ArrayList<String>();
        while (matcher.find()) {
            names.add(matcher.group(1));
        }
        return names;
    }
}
