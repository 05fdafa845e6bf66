package dev.arbor.platform.http.bodies;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.http.Schema;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * A JSON request body declared once, as the list of its fields: its handler reads the body with {@link #reader} and
 * each field's {@link BodyField#read}, and the route gives {@link #schema} to the OpenAPI document. A field the body
 * does not declare is ignored with a warning, as {@link BodyReader} does, so the document leaves the object open;
 * a {@link #closed} body refuses it instead, as its reader starts.
 *
 * @param closedAs for a body that refuses undeclared fields, what the refusal calls it (such as "a schedule")
 */
public record BodySpec(List<BodyField<?>> fields, Optional<String> closedAs) {
    public BodySpec {
        fields = List.copyOf(fields);
        requireNonNull(closedAs, "closedAs");
        var names = new HashSet<String>();
        for (BodyField<?> field : fields) {
            if (!names.add(field.name())) {
                throw new IllegalArgumentException("a body declares '" + field.name() + "' twice");
            }
        }
    }

    public static BodySpec of(BodyField<?>... fields) {
        return new BodySpec(List.of(fields), Optional.empty());
    }

    /** A body that refuses fields it does not declare, calling itself {@code what} in the refusal. */
    public static BodySpec closed(String what, BodyField<?>... fields) {
        return new BodySpec(List.of(fields), Optional.of(what));
    }

    /** Adds {@code invalid_field} for each field of {@code body}, nested {@code at} that path, not declared here. */
    void refuseUndeclared(ObjectNode body, @Nullable String at, Problems problems) {
        String what = closedAs.orElseThrow(() -> new IllegalStateException("this body ignores undeclared fields"));
        problems.unknownFields(body, fields.stream().map(BodyField::name).collect(Collectors.toSet()), at, what);
    }

    /**
     * Whether {@code field} is one of this body's fields, or the field a declared {@link BodyField.Worded} words: the
     * same name with the same documented rules, so that an equal field made again (a pattern compiled anew is not
     * equal to the first) is still the declared one.
     */
    boolean declares(BodyField<?> field) {
        // the declared constant itself, most often: no schema is rendered for it
        return fields.contains(field)
                || fields.stream()
                        .map(declared -> declared instanceof BodyField.Worded<?> worded ? worded.field() : declared)
                        .anyMatch(declared -> declared.name().equals(field.name())
                                && declared.schema().equals(field.schema()));
    }

    /** A reader of {@code body} that reads only the fields declared here; a closed body's others are refused. */
    public BodyReader reader(ObjectNode body) {
        BodyReader reader = BodyReader.of(body, this);
        if (closedAs.isPresent()) {
            refuseUndeclared(body, null, reader.problems());
        }
        return reader;
    }

    /** The body's shape for the OpenAPI document. */
    public Schema.Obj schema() {
        Schema.Obj object = Schema.object();
        for (BodyField<?> field : fields) {
            // a JSON null counts as absent, so an optional field may be sent as null
            object = field.required()
                    ? object.required(field.name(), field.schema())
                    : object.optional(field.name(), Schema.nullable(field.schema()));
        }
        return closedAs.isPresent() ? object.closed() : object;
    }
}
