package dev.arbor.routers;

import static dev.arbor.platform.http.Schema.any;
import static dev.arbor.platform.http.Schema.arrayOf;
import static dev.arbor.platform.http.Schema.bool;
import static dev.arbor.platform.http.Schema.integer;
import static dev.arbor.platform.http.Schema.mapOf;
import static dev.arbor.platform.http.Schema.named;
import static dev.arbor.platform.http.Schema.nullable;
import static dev.arbor.platform.http.Schema.object;
import static dev.arbor.platform.http.Schema.oneOf;
import static dev.arbor.platform.http.Schema.resource;
import static dev.arbor.platform.http.Schema.string;
import static dev.arbor.platform.http.Schema.timestamp;

import dev.arbor.platform.http.Schema;

/** The shapes of the routers API: routers with their graphs, versions, the action catalog and its validation. */
final class ApiShapes {
    private ApiShapes() {}

    private static final Schema PROBLEMS = arrayOf(object().required("code", string())
            .required("param", nullable(string()))
            .required("message", string()));
    private static final Schema WARNINGS = arrayOf(
            object().required("code", string()).required("message", string()).optional("param", nullable(string())));

    static final Schema DAG_CONFIG = named(
            "RouterDagConfig",
            object().optional("name", string())
                    .optional("description", string())
                    .optional("entry_step", string())
                    .optional(
                            "steps",
                            arrayOf(
                                    object().required("step_id", string())
                                            .required("action_type", string())
                                            .optional("name", string())
                                            .optional("params", mapOf(any()))
                                            .optional("conditions", arrayOf(string()))
                                            .optional("depends_on", arrayOf(string()))
                                            .optional("next_steps", arrayOf(string()))
                                            .closed(),
                                    DagCheck.MAX_STEPS))
                    .optional("parameters", arrayOf(any()))
                    .optional("outputs", mapOf(any()))
                    .closed());

    private static Schema.Obj router() {
        return resource("router")
                .required("project_id", string())
                .required("name", string())
                .required("description", string())
                .required("tags", arrayOf(string()))
                .required("icon", string())
                .required("dag_config", DAG_CONFIG)
                .required("status", oneOf("draft", "active", "inactive"))
                .required("step_count", integer(0, DagCheck.MAX_STEPS))
                .required("created_at", timestamp())
                .required("modified_at", timestamp());
    }

    static final Schema ROUTER = named("Router", router().closed());

    /** One router, as a save answers it and a read shows it: the router, and what keeps a draft from being active. */
    static final Schema ROUTER_SAVED =
            named("RouterSaved", router().required("warnings", WARNINGS).closed());

    static final Schema VERSION = named(
            "RouterVersion",
            object().required("object", oneOf("router.version"))
                    .required("router_id", string())
                    .required("version", integer(1, Integer.MAX_VALUE))
                    .required("step_count", integer(0, DagCheck.MAX_STEPS))
                    .required("dag_config", DAG_CONFIG)
                    .required("saved_at", timestamp())
                    .required("replaced_at", timestamp())
                    .closed());

    static final Schema ACTION_VALIDATION = validation("action.validation");
    static final Schema GRAPH_VALIDATION = validation("router.validation");

    private static Schema validation(String object) {
        return object().required("object", oneOf(object))
                .required("valid", bool())
                .required("errors", PROBLEMS)
                .required("warnings", WARNINGS);
    }
}
