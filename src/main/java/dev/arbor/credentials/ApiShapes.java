package dev.arbor.credentials;

import static dev.arbor.platform.http.Schema.named;
import static dev.arbor.platform.http.Schema.resource;
import static dev.arbor.platform.http.Schema.string;
import static dev.arbor.platform.http.Schema.timestamp;

import dev.arbor.platform.http.Schema;

/** The shapes of credentials, for the OpenAPI document (a value is written, never shown). */
final class ApiShapes {
    private ApiShapes() {}

    static final Schema CREDENTIAL = named(
            "Credential",
            resource("credential")
                    .required("name", string())
                    .required("description", string())
                    .required("created_at", timestamp())
                    .required("updated_at", timestamp()));
}
