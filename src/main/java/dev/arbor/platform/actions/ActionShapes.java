package dev.arbor.platform.actions;

import static dev.arbor.platform.http.Schema.any;
import static dev.arbor.platform.http.Schema.arrayOf;
import static dev.arbor.platform.http.Schema.bool;
import static dev.arbor.platform.http.Schema.mapOf;
import static dev.arbor.platform.http.Schema.object;
import static dev.arbor.platform.http.Schema.oneOf;
import static dev.arbor.platform.http.Schema.string;

import dev.arbor.platform.http.Schema;

/** What the action catalogs' routes answer and read, the same for pipelines and routers: one catalog writes both. */
public final class ActionShapes {
    /** An {@link ActionCatalog}'s listing: its categories, then each action with its params and outputs. */
    public static final Schema CATALOG = object().required("object", oneOf("list"))
            .required(
                    "categories",
                    arrayOf(object().required("id", string())
                            .required("name", string())
                            .required("actions", arrayOf(string()))))
            .required(
                    "data",
                    arrayOf(object().required("type", string())
                            .required("name", string())
                            .required("category", string())
                            .required("description", string())
                            .required("icon", string())
                            .required("color", string())
                            .required("params", arrayOf(mapOf(any())))
                            .required("outputs", arrayOf(string()))
                            .optional("output_named_by", string())
                            .optional("terminal", bool())));
    /** One action's params to check. */
    public static final Schema ACTION_CHECK =
            object().required("action_type", string()).optional("params", mapOf(any()));

    private ActionShapes() {}
}
