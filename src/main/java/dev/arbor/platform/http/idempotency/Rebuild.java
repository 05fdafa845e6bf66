package dev.arbor.platform.http.idempotency;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.PathParamsView;
import dev.arbor.platform.http.Route;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.json.Json;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * How a write's answer is made again when its work committed but its server died before the answer was kept: from
 * what the work stored, read through the route table. A write answering a resource is answered by the read that shows
 * that resource (same shape): at the write's own path (a replace or an update), at a path it is under (an action such
 * as {@code /runs/{id}/cancel}) or, for a create, at the path its new id names (an id the request made). A delete
 * answers its envelope, a write without a body its status; any other answer (a secret shown once, a model's answer, a
 * shape no read shows) cannot be made again, and a retry is refused rather than run twice.
 */
sealed interface Rebuild {
    Pattern PATH_PARAM = Pattern.compile("\\{([^}]+)}");

    /** The write's answer made again: its status, body and headers set on {@code ctx}. */
    void answer(Context ctx, List<String> minted) throws Exception;

    /** A write that answers only its status. */
    record Empty(int status) implements Rebuild {
        @Override
        public void answer(Context ctx, List<String> minted) {
            ctx.status(status);
        }
    }

    /** A delete: {@code {id, object: "<name>.deleted", deleted: true}}, the id its path names. */
    record Deleted(int status, String object, String idParam) implements Rebuild {
        public Deleted {
            requireNonNull(object, "object");
            requireNonNull(idParam, "idParam");
        }

        @Override
        public void answer(Context ctx, List<String> minted) {
            var body = new LinkedHashMap<String, Object>();
            body.put("id", ctx.pathParam(idParam));
            body.put("object", object);
            body.put("deleted", true);
            ctx.status(status).contentType("application/json").result(Json.write(body));
        }
    }

    /** The resource the write answers, read at the write's own path or one it is under, named by its path parameters. */
    record Read(int status, Route read) implements Rebuild {
        public Read {
            requireNonNull(read, "read");
        }

        @Override
        public void answer(Context ctx, List<String> minted) throws Exception {
            read.handler().handle(ctx);
            ctx.status(status);
        }
    }

    /**
     * A create: the resource at the first path one of the ids the request made names (its {@code location}), its other
     * path parameters the write's own (an example under its template).
     */
    record Created(int status, List<Route> reads) implements Rebuild {
        public Created {
            reads = List.copyOf(reads);
        }

        @Override
        public void answer(Context ctx, List<String> minted) throws Exception {
            for (String id : minted) {
                for (Route read : reads) {
                    String param = params(read.path()).getLast();
                    var named = new LinkedHashMap<>(ctx.pathParamMap());
                    named.put(param, id);
                    try {
                        read.handler().handle(new PathParamsView(ctx, named));
                    } catch (ApiException e) {
                        if (e.status() >= 400 && e.status() < 500) {
                            continue; // an id of something else the request made
                        }
                        throw e;
                    }
                    String location = read.path();
                    for (var entry : named.entrySet()) {
                        location = location.replace("{" + entry.getKey() + "}", entry.getValue());
                    }
                    ctx.header("location", location);
                    ctx.status(status);
                    return;
                }
            }
            throw lost("what it created is gone");
        }
    }

    /** An answer that cannot be made again from what is stored. */
    record Lost() implements Rebuild {
        @Override
        public void answer(Context ctx, List<String> minted) {
            throw lost("this route's answer cannot be made again from what it stored");
        }
    }

    static ApiException lost(String why) {
        return ApiException.of(
                ErrorCode.IDEMPOTENCY_ANSWER_LOST,
                Idempotency.HEADER,
                "The request with this Idempotency-Key was carried out and its changes are stored, but its server "
                        + "stopped before answering, and " + why + "; do not send it again: read the result instead.");
    }

    /** How {@code write}'s answer is made again, from the reads among {@code routes}. */
    static Rebuild of(Route write, List<Route> routes) {
        if (write.replies().isEmpty()) {
            return new Lost();
        }
        Route.Reply reply = write.replies().getFirst();
        if (reply.content().isEmpty()) {
            return new Empty(reply.status());
        }
        Schema shape = reply.content().get("application/json");
        if (shape == null) {
            return new Lost();
        }
        Optional<String> deleted = deletedObject(shape);
        List<String> params = params(write.path());
        if (deleted.isPresent() && !params.isEmpty()) {
            return new Deleted(reply.status(), deleted.get(), params.getLast());
        }
        List<Route> reads = routes.stream()
                .filter(route -> HandlerType.GET.equals(route.method())
                        && route.replies().stream()
                                .anyMatch(r -> r.status() == 200
                                        && shape.equals(r.content().get("application/json"))))
                .toList();
        for (String path = write.path(); !path.isEmpty(); path = path.substring(0, path.lastIndexOf('/'))) {
            String at = path;
            Optional<Route> read =
                    reads.stream().filter(route -> route.path().equals(at)).findFirst();
            if (read.isPresent()) {
                return new Read(reply.status(), read.get());
            }
        }
        // a read under the write's own path first: the location a create answers
        List<Route> byId = reads.stream()
                .filter(route -> {
                    List<String> named = params(route.path());
                    return !named.isEmpty()
                            && params.containsAll(named.subList(0, named.size() - 1))
                            && !params.contains(named.getLast());
                })
                .sorted(java.util.Comparator.comparing(route -> !route.path().startsWith(write.path() + "/")))
                .toList();
        return byId.isEmpty() ? new Lost() : new Created(reply.status(), byId);
    }

    /** The object name of a delete's envelope, {@code <name>.deleted}, when {@code shape} is one. */
    private static Optional<String> deletedObject(Schema shape) {
        if (!(shape instanceof Schema.Obj object)) {
            return Optional.empty();
        }
        boolean flagged = object.properties().stream().anyMatch(p -> p.name().equals("deleted"));
        return object.properties().stream()
                .filter(p -> flagged && p.name().equals("object"))
                .map(Schema.Property::schema)
                .flatMap(schema -> schema instanceof Schema.Enum e && e.values().size() == 1
                        ? e.values().stream().filter(value -> value.endsWith(".deleted"))
                        : Stream.empty())
                .findFirst();
    }

    private static List<String> params(String path) {
        Matcher matcher = PATH_PARAM.matcher(path);
        var names = new java.util.ArrayList<String>();
        while (matcher.find()) {
            names.add(matcher.group(1));
        }
        return names;
    }
}
