package dev.arbor.platform.http;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.HashSet;
import java.util.List;

/**
 * A JSON request body declared once, as the list of its fields: its handler reads the body with {@link #reader} and
 * each field's {@link BodyField#read}, and the route gives {@link #schema} to the OpenAPI document. A field the body
 * does not declare is ignored with a warning, as {@link BodyReader} does, so the document leaves the object open.
 */
public record BodySpec(List<BodyField<?>> fields) {
    public BodySpec {
        fields = List.copyOf(fields);
        var names = new HashSet<String>();
        for (BodyField<?> field : fields) {
            if (!names.add(field.name())) {
                throw new IllegalArgumentException("a body declares '" + field.name() + "' twice");
            }
        }
    }

    public static BodySpec of(BodyField<?>... fields) {
        return new BodySpec(List.of(fields));
    }

    /** A reader of {@code body} that reads only the fields declared here. */
    public BodyReader reader(ObjectNode body) {
        return BodyReader.of(body, this);
    }

    /** The body's shape for the OpenAPI document. */
    public Schema.Obj schema() {
        Schema.Obj object = Schema.object();
        for (BodyField<?> field : fields) {
            // a JSON null counts as absent, so an optional field may be sent as null
            object = field.required() ? object.required(field.name(), field.schema())
                    : object.optional(field.name(), Schema.nullable(field.schema()));
        }
        return object;
    }
}
