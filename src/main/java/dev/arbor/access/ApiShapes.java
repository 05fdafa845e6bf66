package dev.arbor.access;

import static dev.arbor.platform.http.Schema.arrayOf;
import static dev.arbor.platform.http.Schema.named;
import static dev.arbor.platform.http.Schema.nullable;
import static dev.arbor.platform.http.Schema.object;
import static dev.arbor.platform.http.Schema.oneOf;
import static dev.arbor.platform.http.Schema.resource;
import static dev.arbor.platform.http.Schema.string;
import static dev.arbor.platform.http.Schema.timestamp;

import dev.arbor.platform.http.Schema;

/** The shapes of projects and tokens, for the OpenAPI document. */
final class ApiShapes {
    private ApiShapes() {}

    static final Schema WARNINGS = Schema.arrayOf(
            object().required("code", string()).required("message", string()).optional("param", nullable(string())));
    static final Schema ROLE = oneOf("admin", "member");

    static final Schema PROJECT = named(
            "Project",
            resource("project")
                    .required("name", string())
                    .required("description", string())
                    .required("created_at", timestamp())
                    .optional("warnings", WARNINGS));

    static final Schema TOKEN = named(
            "Token",
            resource("token")
                    .required("name", string())
                    .required("role", ROLE)
                    .required("projects", arrayOf(string()))
                    .required("hint", string())
                    .required("created_at", timestamp())
                    .required("expires_at", nullable(timestamp()))
                    .required("last_used_at", nullable(timestamp()))
                    .required("revoked_at", nullable(timestamp()))
                    .optional("token", string())
                    .optional("warnings", WARNINGS));
    static final Schema PRINCIPAL = object().required("object", oneOf("principal"))
            .required("token_id", string())
            .required("role", ROLE)
            .required("projects", arrayOf(string()));
}
